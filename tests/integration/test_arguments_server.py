"""The argument family end to end with an OpenAI-compatible judge over real HTTP.

``benchmark score`` reads RAG outputs for ``arguana-debates`` (evidence ids from the real
ArguAna corpus), and every judge call goes through groundcover's OpenAI client to a
real uvicorn server on 127.0.0.1 that serves the scripted judge of
``tests/helpers/arguments.py`` — a malformed body and an HTTP 500 injected on the way.
The scores must be the hand-computed ones, the raw replies kept, and a re-run must not
send a single request (checkpoint and model-call cache).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.families.arguments.pipeline import system_position
from benchmark.families.arguments.trace import ArgumentTrace
from benchmark.tasks import load_task
from tests.helpers.arguments import scripted
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, http_judge_profile

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-argument-judge", scripted))) as srv:  # type: ignore[arg-type]
        yield srv


def test_score_rag_arguments_through_an_openai_compatible_judge(server: ServerThread, tmp_path: Path) -> None:
    profile_file = http_judge_profile(tmp_path, server, "http-scripted-judge", "scripted-argument-judge")

    task = load_task("arguana-debates")
    qids = list(task.table("queries").query_id[:2])
    docs = list(task.table("corpus").doc_id[:3])
    outputs = tmp_path / "outputs.jsonl"
    rag = {
        "retriever": "bm25",
        "k": 3,
        "prompt": "raarg-argument@1",
        "corpus": "ArguAna points",
        "rerank": "stance",
    }
    rows = [
        {
            "query_id": q,
            "answer": f"Argument {i}: the evidence shows it [2]. And more [3].",
            "model": "org/system",
            "rag": rag,
            "retrieval": {"passages": docs, "cited": [docs[1], docs[2]]},
        }
        for i, q in enumerate(qids)
    ]
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    control(server, "reset")
    control(server, "faults", faults=["malformed", "500"])
    args = [
        "score",
        "--outputs",
        str(outputs),
        "--tasks",
        "arguana-debates",
        "--judge-profile",
        str(profile_file),
        "--results-dir",
        str(tmp_path / "results"),
        "--no-progress",
        "--quality-judge",
        "listwise_sc",
        "--context-judges",
        "direct,fine_grained,geval,query_rubric",
        "--joint-judges",
        "rag_direct,rag_rubric,listwise_rag,listwise_rag_fg",
    ]
    assert main(args) == 0
    stats = control(server, "stats")
    assert stats["faults"] == 2 and stats["requests"] > 20

    result_file = next((tmp_path / "results").rglob("arguana-debates.arguments.json"))
    result = json.loads(result_file.read_text())
    assert result["scores"]["overall_quality"]["value"] == pytest.approx(7 / 3)
    assert result["scores"]["context_direct"]["value"] == pytest.approx(0.6)
    assert result["model"]["rag"]["rerank"] == "stance"
    traces = [
        ArgumentTrace.model_validate_json(line)
        for line in result_file.with_name("arguana-debates.arguments.traces.jsonl").read_text().splitlines()
    ]
    for t in traces:
        assert t.evidence_source == "given" and [d.doc_id for d in t.evidence] == docs
        assert t.cited == docs[1:]
        assert t.scores["win_rag_direct"] == (1.0 if system_position(t) == 1 else 0.0)
        assert t.scores["context_listwise_rag_fg"] is None  # malformed every time: a failure, not 0
        raw = t.judges["listwise_rag_fg"].raw  # the first reply, then two repair turns
        assert len(raw) == 3 and raw[0] == "I cannot do this."

    assert main(args) == 0  # resumes from the checkpoint: nothing is asked again
    assert control(server, "stats")["requests"] == stats["requests"]


def topic_counting(messages: list[dict[str, str]]) -> str:
    """Direct context relevance = 10 x the share of evidence documents that mention meat
    or vegetarians: a judge whose score must fall as irrelevant documents come in."""
    text = messages[-1]["content"]
    if "0 (irrelevant) to 10" not in text:
        return scripted(messages)
    docs = re.findall(r"^\[\d+\] (.*)$", text.split("Documents:", 1)[1], flags=re.M)
    on_topic = sum(bool(re.search(r"vegetarian|meat", d, re.I)) for d in docs)
    return f"Score: {round(10 * on_topic / max(len(docs), 1))}"


def test_judge_check_on_arguments_finds_the_context_judge_falling(tmp_path: Path) -> None:
    with ServerThread(create_app(ScriptedModel("counting", topic_counting))) as srv:  # type: ignore[arg-type]
        profile_file = http_judge_profile(tmp_path, srv, "http-counting-judge", "counting")
        outputs = tmp_path / "closed-book.jsonl"
        rows = [
            {
                "query_id": f"environment-aeghhgwpe:{s}",
                "answer": "Meat is murder; eat plants.",
                "model": "org/m",
            }
            for s in ("pro", "con")
        ]
        outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
        args = ["judge-check", "--outputs", str(outputs), "--tasks", "arguana-debates"]
        args += ["--irrelevant", "0,60,100", "--contradictions", "none", "--judge-profile", str(profile_file)]
        args += ["--quality-judge", "listwise", "--context-judges", "direct", "--joint-judges", "none"]
        assert main([*args, "--results-dir", str(tmp_path / "check"), "--no-progress"]) == 0
    values = []
    for level in ("0", "60", "100"):
        (result,) = (tmp_path / "check" / f"irrelevant-{level}").rglob("*.arguments.json")
        values.append(json.loads(result.read_text())["scores"]["context_direct"]["value"])
    assert values[0] > values[1] > values[2] and values[0] >= 0.8 and values[2] <= 0.2
    assert (tmp_path / "check" / "judge-check-irrelevant.png").exists()
