"""EXAM end to end with the LLM answerer behind a real OpenAI-compatible HTTP server.

``benchmark score --metrics exam --exam-answerer llm`` reads outputs for the written
``webtrack-2009-2012`` exam; every reader call goes through groundcover's OpenAI client to
a uvicorn server on 127.0.0.1 whose 'model' answers a multiple-choice question with the
option the text contains (a malformed body and an HTTP 500 injected on the way).  EXAM,
the gold articles' normaliser and n-EXAM must be the hand-computed numbers; replies that
stay unusable are failures with their raw text kept; a re-run sends no request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.families.exam.bank import task_bank
from benchmark.tasks import load_task
from tests.helpers.openai_server import (
    ScriptedModel,
    ServerThread,
    control,
    create_app,
    exam_reader,
    http_judge_profile,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-exam-reader", exam_reader))) as srv:  # type: ignore[arg-type]
        yield srv


def test_exam_with_an_llm_reader_over_http(server: ServerThread, tmp_path: Path) -> None:
    profile_file = http_judge_profile(
        tmp_path, server, "http-scripted-reader", "scripted-exam-reader", max_new_tokens=32, batch_size=8
    )
    bank = task_bank(load_task("webtrack-2009-2012"))
    keys = [q.answer for q in bank["175"]]
    answers = {
        "175": f"Signs: {keys[0]}. Also {keys[2]}, and {keys[4]}.",  # 3 of 5 keys
        "182": "GARBLE: this text makes the reader reply nonsense.",
    }
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(
        "".join(
            json.dumps({"query_id": q, "answer": a, "model": "org/sys"}) + "\n" for q, a in answers.items()
        )
    )
    control(server, "reset")
    control(server, "faults", faults=["malformed", "500"])
    args = [
        "score", "--outputs", str(outputs), "--tasks", "webtrack-2009-2012", "--metrics", "exam",
        "--exam-answerer", "llm", "--judge-profile", str(profile_file),
        "--results-dir", str(tmp_path / "results"), "--no-progress",
    ]  # fmt: skip
    # one of two queries fails on purpose: the result is written with its failure recorded and held
    # back (exit 3), its ranked score withheld (the failure policy; --max-failure-rate 5%)
    assert main(args) == 3
    stats = control(server, "stats")
    assert stats["faults"] == 2 and stats["requests"] >= 70  # 60 gold questions + 10 + repairs

    result_file = next((tmp_path / "results").rglob("webtrack-2009-2012.exam.json"))
    result = json.loads(result_file.read_text())
    assert "failed on 1 of 2 queries" in result["scores"]["n_exam"]["incomplete"]
    # the scripted reader answers with the first option its text contains: right on 44 of the
    # 60 questions from the gold articles (paraphrased keys and distractors named too cost the rest)
    gold_mean = 44 / 60
    assert result["curves"]["gold_exam"]["175"] == 1.0
    per_query = {q["query_id"]: q for q in result["per_query"]}
    assert per_query["175"]["scores"]["exam"] == pytest.approx(0.6)
    assert per_query["175"]["scores"]["n_exam"] == pytest.approx(0.6 / gold_mean)
    assert per_query["182"]["failed"] and per_query["182"]["scores"]["exam"] is None  # never a zero
    assert result["failures"] == {"answer": 1}
    traces = [
        json.loads(line)
        for line in result_file.with_name("webtrack-2009-2012.exam.traces.jsonl").read_text().splitlines()
    ]
    garbled = next(t for t in traces if t["query_id"] == "182")["questions"][0]
    assert garbled["correct"] is None and len(garbled["raw"]) == 3 and garbled["error"].startswith("reader:")
    chosen = next(t for t in traces if t["query_id"] == "175")["questions"]
    assert [q["choice"] for q in chosen] == [keys[0], None, keys[2], None, keys[4]]

    assert main(args) == 3  # resumes from the checkpoint: nothing is asked again
    assert control(server, "stats")["requests"] == stats["requests"]
