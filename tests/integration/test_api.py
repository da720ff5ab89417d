"""``benchmark.score`` on a DataFrame is ``benchmark score`` on a file, with a judge LLM.

The cheapest command-line scoring run with a real judge behind HTTP (EXAM with the LLM
reader on a scripted OpenAI-compatible server, ``tests/integration/test_dead_judge.py``'s
set-up) is run twice: through the command line on an outputs file, and through the API
on a DataFrame of the same answers with a cold cache.  The result files hold the same
numbers, the judge is asked the same number of times, and a second API call resumes from
the checkpoints without asking it anything.  ``benchmark.plan`` counts what the run asks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import benchmark
from benchmark.core.results import read_result
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, exam_reader
from tests.integration.test_dead_judge import TASK, judge_and_answers, score

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-exam-reader", exam_reader))) as srv:  # type: ignore[arg-type]
        yield srv


def test_the_api_scores_a_dataframe_as_the_command_line_scores_its_file(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile, outputs = judge_and_answers(server, tmp_path)
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-cli"))
    control(server, "reset")
    assert score(outputs, profile, tmp_path / "cli") == 0
    asked_by_cli = control(server, "stats")["requests"]
    (cli_file,) = (tmp_path / "cli").rglob(f"{TASK}.exam.json")

    frame = pd.DataFrame([json.loads(line) for line in outputs.read_text().splitlines() if line.strip()])
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-api"))  # a cold cache
    plan = benchmark.plan(
        frame, task=TASK, metrics=["exam"], settings={"exam": {"answerer": "llm"}}, judge_profile=profile,
        results_dir=tmp_path / "api", query_batch=1, progress=False,
    )  # fmt: skip
    assert plan.queries == {(TASK, "org/sys", "exam"): (len(frame), 0)}
    control(server, "reset")
    results = benchmark.score(
        frame, task=TASK, metrics=["exam"], settings={"exam": {"answerer": "llm"}}, judge_profile=profile,
        results_dir=tmp_path / "api", query_batch=1, progress=False,
    )  # fmt: skip
    assert control(server, "stats")["requests"] == asked_by_cli
    (api_file,) = (tmp_path / "api").rglob(f"{TASK}.exam.json")
    cli, api = read_result(cli_file), read_result(api_file)
    assert api.scores == cli.scores and api.settings == cli.settings
    assert [q.model_dump() for q in api.per_query] == [q.model_dump() for q in cli.per_query]
    assert results.results[0].scores == cli.scores
    assert len(results.traces()) == len(frame)

    control(server, "reset")
    again = benchmark.score(
        frame, task=TASK, metrics=["exam"], settings={"exam": {"answerer": "llm"}}, judge_profile=profile,
        results_dir=tmp_path / "api", query_batch=1, progress=False,
    )  # fmt: skip
    assert again.results[0].scores == cli.scores
    assert control(server, "stats")["requests"] <= 1  # the preflight at most: every query was checkpointed
