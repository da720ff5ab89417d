"""Nugget assignment end to end with the LLM judge behind a real OpenAI-compatible server.

``benchmark score --metrics nuggets --nuggets-assigner llm`` reads answers of a small task;
every judge call goes through groundcover's OpenAI client to a uvicorn server on 127.0.0.1
whose 'model' labels a fact *support* when the answer holds all its words, *partial_support*
when it holds some, else *not_support* (a malformed body and an HTTP 500 injected on the
way).  The four scores must be the hand-computed ones, an unusable reply a failure with its
raw text kept (never "not supported"), and a re-run sends no request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, http_judge_profile
from tests.unit.test_nuggets import tiny

pytestmark = pytest.mark.slow


def labels(messages: list[dict[str, str]]) -> str:
    turn = next(m["content"] for m in reversed(messages) if "Facts:" in m["content"])  # repairs come after
    answer = turn.split("Answer:\n", 1)[1].split("\n\nFacts:", 1)[0]
    if "GARBLE" in answer:
        return "They look fine to me."
    words = {w.strip(".,").lower() for w in answer.split()}
    out = []
    for n, fact in re.findall(r"^(\d+)\. (.+)$", turn.split("Facts:", 1)[1], flags=re.M):
        have = [w.strip(".,").lower() in words for w in fact.split()]
        out.append(f"{n}: {'support' if all(have) else 'partial_support' if any(have) else 'not_support'}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-nugget-judge", labels))) as srv:  # type: ignore[arg-type]
        yield srv


def test_nugget_assignment_with_an_llm_judge_over_http(server: ServerThread, tmp_path: Path) -> None:
    profile_file = http_judge_profile(
        tmp_path, server, "http-scripted-nuggets", "scripted-nugget-judge", max_new_tokens=64
    )
    tiny(tmp_path)
    rows = [  # q1: its vital nugget fully, its okay one in part; q2: unusable replies
        {"query_id": "q1", "answer": "Tornadoes form from rotating thunderstorms. Tornado Alley lies north.", "model": "org/sys"},
        {"query_id": "q2", "answer": "GARBLE", "model": "org/sys"},
    ]  # fmt: skip
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    control(server, "reset")
    control(server, "faults", faults=["malformed", "500"])
    args = [
        "score", "--outputs", str(outputs), "--tasks", str(tmp_path / "tiny-nuggets"), "--metrics", "nuggets",
        "--nuggets-assigner", "llm", "--judge-profile", str(profile_file), "--results-dir", str(tmp_path / "results"),
        "--no-progress",
    ]  # fmt: skip
    # one of two queries fails on purpose: the result is written with its failure recorded and held
    # back (exit 3), its ranked score withheld (the failure policy; --max-failure-rate 5%)
    assert main(args) == 3
    stats = control(server, "stats")
    assert stats["faults"] == 2 and stats["requests"] >= 3

    result_file = next((tmp_path / "results").rglob("*.nuggets.json"))
    result = json.loads(result_file.read_text())
    assert "failed on 1 of 2 queries" in result["scores"]["vital_strict"]["incomplete"]
    per_query = {q["query_id"]: q for q in result["per_query"]}
    assert per_query["q1"]["scores"] == {
        "vital_strict": 1.0, "vital_partial": 1.0, "all_strict": 0.5, "all_partial": 0.75,
    }  # fmt: skip
    q2 = per_query["q2"]
    assert q2["scores"]["all_strict"] is None and any(f.startswith("assignment:") for f in q2["failures"])
    traces = [
        json.loads(x)
        for x in result_file.with_name(result_file.name.replace(".json", ".traces.jsonl"))
        .read_text()
        .splitlines()
    ]
    failed = next(t for t in traces if t["query_id"] == "q2")["nuggets"][0]
    assert failed["assignment"] is None and len(failed["raw"]) == 3 and failed["errors"]

    assert main(args) == 3  # resumes from the checkpoint: nothing is asked again
    assert control(server, "stats")["requests"] == stats["requests"]


def creator(messages: list[dict[str, str]]) -> str:
    """Creation: every passage becomes a fact; importance: the first fact of a batch is vital."""
    turn = next(m["content"] for m in reversed(messages) if "Facts" in m["content"])
    if "Label each fact" in turn:
        facts = [ln for ln in turn.split("Facts:", 1)[1].splitlines() if ln[:1].isdigit()]
        return "\n".join(f"{i}: {'vital' if i == 1 else 'okay'}" for i in range(1, len(facts) + 1))
    so_far = [
        ln
        for ln in turn.split("Facts so far:", 1)[1].split("Passages:", 1)[0].splitlines()
        if ln.startswith("- ")
    ]
    new = [
        f"- {p.split('] ', 1)[1]}" for p in turn.split("Passages:", 1)[1].splitlines() if p.startswith("[")
    ]
    return "\n".join(so_far + new)


def test_nuggets_are_generated_over_http_and_written_into_the_task(tmp_path: Path) -> None:
    import pandas as pd

    from benchmark.tasks import load_task
    from tests.helpers import build_tiny_task

    corpus = pd.DataFrame(
        {"doc_id": ["d1", "d2", "d3"], "title": ["", "", ""], "url": ["", "", ""],
         "text": ["Tornadoes form from rotating storms.", "Figs grow on trees in warm places.", "Tornado Alley is in the Great Plains."]}
    )  # fmt: skip
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q1"], "doc_id": ["d1", "d3", "d2", "d2"],
         "aspect_id": [None, None, None, None], "relevance": [2, 1, 1, 0]}
    )  # fmt: skip
    root = build_tiny_task(
        tmp_path, [("q1", "tornadoes"), ("q2", "figs")], task_id="tiny-gen",
        tables={"corpus": corpus, "qrels": qrels}, metrics=["nuggets"], corpus={"kind": "table"},
    )  # fmt: skip
    with ServerThread(create_app(ScriptedModel("scripted-nugget-maker", creator))) as srv:  # type: ignore[arg-type]
        profile_file = http_judge_profile(
            tmp_path, srv, "http-nugget-maker", "scripted-nugget-maker", max_new_tokens=256
        )
        out = tmp_path / "nuggets.jsonl"
        args = ["nuggets", "generate", "--task", str(root), "--judge-profile", str(profile_file), "--out", str(out),
                "--window", "1", "--write-task"]  # fmt: skip
        assert main(args) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(w["qid"], [n["text"] for n in w["nuggets"]]) for w in written] == [
        ("q1", ["Tornadoes form from rotating storms.", "Tornado Alley is in the Great Plains."]),
        ("q2", ["Figs grow on trees in warm places."]),
    ]
    task = load_task(root)
    table = task.table("nuggets")
    assert list(table["importance"]) == ["vital", "okay", "vital"]
    assert (
        table["provenance"].str.startswith("generated: ").all()
        and "nugget-create@1" in table["provenance"][0]
    )
    assert task.card.version == "0.0.2"  # a new patch version: old results never rank with new
