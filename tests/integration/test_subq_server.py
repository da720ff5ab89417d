"""Sub-question coverage end to end with the LLM coverage judge behind a real OpenAI-compatible server.

``benchmark score --metrics subq --subq-judge llm`` reads RAG outputs of a small task; every
judge call goes through groundcover's OpenAI client to a uvicorn server on 127.0.0.1 whose
'model' lists the sub-questions whose second word the text contains (a malformed body and an
HTTP 500 injected on the way).  The six metrics and the hybrid must be the hand-computed
ones, an unusable reply a failure with its raw text kept, and a re-run sends no request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from tests.helpers.openai_server import (
    ScriptedModel,
    ServerThread,
    control,
    create_app,
    http_judge_profile,
    judged_text,
)
from tests.unit.test_subq import tiny

pytestmark = pytest.mark.slow


def covered(messages: list[dict[str, str]]) -> str:
    turn, text = judged_text(messages, "Questions:")
    if "GARBLE" in text:
        return "Some of them, I suppose."
    words = {w.strip(".,;?").lower() for w in text.split()}
    hits = [n for n, q in re.findall(r"^(\d+)\. (.+)$", turn, flags=re.M) if q.split()[1].lower() in words]
    return f"Answered: {', '.join(hits) or 'none'}"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-coverage-judge", covered))) as srv:  # type: ignore[arg-type]
        yield srv


def test_subq_coverage_with_an_llm_judge_over_http(server: ServerThread, tmp_path: Path) -> None:
    profile_file = http_judge_profile(
        tmp_path, server, "http-scripted-coverage", "scripted-coverage-judge", max_new_tokens=32
    )
    tiny(tmp_path)
    rag = {"retriever": "bm25", "k": 1, "prompt": "rag-answer@1", "corpus": "tiny"}
    rows = [
        {"query_id": "q1", "answer": "Rotating air causes them; they are rated on a scale.", "model": "org/sys",
         "rag": rag, "retrieval": {"passages": ["D1#0"], "cited": []}},
        {"query_id": "q2", "answer": "GARBLE", "model": "org/sys", "rag": rag, "retrieval": {"passages": ["D2#0"], "cited": []}},
    ]  # fmt: skip
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    control(server, "reset")
    control(server, "faults", faults=["malformed", "500"])
    args = [
        "score", "--outputs", str(outputs), "--tasks", str(tmp_path / "tiny-subq"), "--metrics", "subq",
        "--subq-judge", "llm", "--judge-profile", str(profile_file), "--results-dir", str(tmp_path / "results"),
        "--no-progress",
    ]  # fmt: skip
    # one of two queries fails on purpose: the result is written with its failure recorded and held
    # back (exit 3), its ranked score withheld (the failure policy; --max-failure-rate 5%)
    assert main(args) == 3
    stats = control(server, "stats")
    assert stats["faults"] == 2 and stats["requests"] >= 4

    result_file = next((tmp_path / "results").rglob("*.subq.json"))
    result = json.loads(result_file.read_text())
    assert "failed on 1 of 2 queries" in result["scores"]["subq_hybrid"]["incomplete"]
    per_query = {q["query_id"]: q for q in result["per_query"]}
    # q1's sub-questions: causes (core), do (core), is (background), are (follow-up)
    assert per_query["q1"]["scores"] == {
        "answer_core": 0.5, "answer_background": 0.0, "answer_follow_up": 1.0,
        "retrieval_core": 0.5, "retrieval_background": 1.0, "retrieval_follow_up": 0.0,
        "subq_hybrid": pytest.approx(0.6 * 0.5 + 0.1 * 1.0),
    }  # fmt: skip
    q2 = per_query["q2"]  # the answer's judgement failed (never a zero); its retrieved chunk was judged
    assert q2["scores"]["answer_core"] is None and q2["scores"]["subq_hybrid"] is None
    assert q2["scores"]["retrieval_core"] == 0.0 and any(f.startswith("coverage:") for f in q2["failures"])
    traces = [
        json.loads(x)
        for x in result_file.with_name(result_file.name.replace(".json", ".traces.jsonl"))
        .read_text()
        .splitlines()
    ]
    garbled = next(t for t in traces if t["query_id"] == "q2")["sub_questions"][0]
    assert (
        garbled["in_answer"] is None
        and len(garbled["raw"]) == 3
        and garbled["errors"][0].startswith("coverage:")
    )

    assert main(args) == 3  # resumes from the checkpoint: nothing is asked again
    assert control(server, "stats")["requests"] == stats["requests"]
