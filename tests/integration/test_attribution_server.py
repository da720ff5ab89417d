"""Citation support end to end with the LLM judge behind a real OpenAI-compatible server.

``benchmark score --metrics attribution --attribution-judge llm`` reads RAG outputs of a
small task; every judge call goes through groundcover's OpenAI client to a uvicorn server on
127.0.0.1 whose 'model' says *full* when the cited text holds every word of the sentence,
*partial* when it holds some, else *none* (a malformed body and an HTTP 500 injected on the
way).  The scores must be the hand-computed ones, an unusable reply a failure with its raw
text kept (never "none"), and a re-run sends no request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, http_judge_profile
from tests.unit.test_attribution import tiny

pytestmark = pytest.mark.slow


def level(messages: list[dict[str, str]]) -> str:
    turn = next(m["content"] for m in reversed(messages) if "Cited text:" in m["content"])
    cited = turn.split("Cited text:", 1)[1].split("\nSentence:", 1)[0]
    sentence = turn.split("\nSentence:", 1)[1].split("\n", 1)[0]
    if "GARBLE" in sentence:
        return "It is hard to say."
    have = {w.lower() for w in re.findall(r"\w+", cited)}
    words = [w.lower() in have for w in re.findall(r"\w+", sentence)]
    return "full" if all(words) else "partial" if any(words) else "none"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-support-judge", level))) as srv:  # type: ignore[arg-type]
        yield srv


def test_citation_support_with_an_llm_judge_over_http(server: ServerThread, tmp_path: Path) -> None:
    profile_file = http_judge_profile(
        tmp_path, server, "http-scripted-support", "scripted-support-judge", max_new_tokens=8
    )
    tiny(tmp_path)
    rag = {"retriever": "bm25", "k": 2, "prompt": "rag-answer@1", "corpus": "tiny"}
    rows = [  # q1: one sentence fully backed by [1], one in part; q2: the judge's replies are unusable
        {"query_id": "q1", "answer": "Paris is the capital of France [1]. The Seine flows through Paris [1].",
         "model": "org/sys", "rag": rag, "retrieval": {"passages": ["A", "B"]}},
        {"query_id": "q2", "answer": "GARBLE [2].", "model": "org/sys", "rag": rag,
         "retrieval": {"passages": ["A", "C"]}},
    ]  # fmt: skip
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    control(server, "reset")
    control(server, "faults", faults=["malformed", "500"])
    args = [
        "score", "--outputs", str(outputs), "--tasks", str(tmp_path / "tiny-attribution"), "--metrics",
        "attribution", "--attribution-judge", "llm", "--judge-profile", str(profile_file),
        "--results-dir", str(tmp_path / "results"), "--no-progress", "--no-attribution-diagnostics",
    ]  # fmt: skip
    # one of two queries fails on purpose: the result is written with its failure recorded and held
    # back (exit 3), its ranked score withheld (the failure policy; --max-failure-rate 5%)
    assert main(args) == 3
    stats = control(server, "stats")
    assert stats["faults"] == 2 and stats["requests"] >= 3

    result_file = next((tmp_path / "results").rglob("*.attribution.json"))
    result = json.loads(result_file.read_text())
    assert "failed on 1 of 2 queries" in result["scores"]["citation_recall"]["incomplete"]
    per_query = {q["query_id"]: q for q in result["per_query"]}
    assert per_query["q1"]["scores"] == {
        "citation_recall": 0.5, "citation_precision": 0.5, "support_recall": 0.75,
        "support_precision": 0.75, "uncited": 0.0, "invalid_citations": 0.0,
    }  # fmt: skip
    q2 = per_query["q2"]
    assert q2["scores"]["citation_recall"] is None and any(f.startswith("support:") for f in q2["failures"])
    traces = [
        json.loads(x)
        for x in result_file.with_name(result_file.name.replace(".json", ".traces.jsonl"))
        .read_text()
        .splitlines()
    ]
    failed = next(t for t in traces if t["query_id"] == "q2")["sentences"][0]
    assert failed["citations"][0]["alone"] is None and len(failed["raw"]) == 3 and failed["errors"]

    assert main(args) == 3  # resumes from the checkpoint: nothing is asked again
    assert control(server, "stats")["requests"] == stats["requests"]
