"""A judge that dies halfway never reads as a score, and a re-run completes the result.

EXAM with the LLM reader behind a real OpenAI-compatible server on 127.0.0.1 (a scripted
reader: the option the text states).  The server answers a number of requests and then
returns HTTP 503 to every one, as a crashed or overloaded judge does.  The run must exit
with status 3, write its result marked incomplete, and no board may rank it; once the
server is back, the same command completes the result with exactly the numbers of a run
whose judge never went down — asking only what was lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.board.leaderboard import build_leaderboard
from benchmark.cli.main import main
from benchmark.core.results import read_result
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
TASK = "webtrack-2009-2012"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-exam-reader", exam_reader))) as srv:  # type: ignore[arg-type]
        yield srv


def outputs_file(folder: Path) -> Path:
    """Answers to four queries, each stating some of its exam's answer keys."""
    bank = task_bank(load_task(TASK))
    qids = sorted(bank, key=lambda q: int(q))[:4]
    lines = []
    for i, q in enumerate(qids):
        keys = [k.answer for k in bank[q]][: i + 1]
        lines.append(
            json.dumps({"query_id": q, "answer": "Facts: " + ". ".join(keys) + ".", "model": "org/sys"})
        )
    path = folder / "outputs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def judge_and_answers(server: ServerThread, folder: Path) -> tuple[Path, Path]:
    """The scripted reader as the profile's judge, and the outputs file it judges."""
    profile = http_judge_profile(
        folder, server, "http-dying-reader", "scripted-exam-reader", max_new_tokens=32, batch_size=4
    )
    return profile, outputs_file(folder)


def score(outputs: Path, profile: Path, results: Path, *extra: str) -> int:
    return main(
        [
            "score", "--outputs", str(outputs), "--tasks", TASK, "--metrics", "exam", "--exam-answerer", "llm",
            "--judge-profile", str(profile), "--results-dir", str(results), "--query-batch", "1",
            "--no-progress", *extra,
        ]
    )  # fmt: skip


def test_a_judge_that_dies_halfway_is_incomplete_and_resumes_to_the_uninterrupted_numbers(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, outputs = judge_and_answers(server, tmp_path)

    # the judge never goes down: the reference numbers, and how many requests they take
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-reference"))
    control(server, "reset")
    assert score(outputs, profile, tmp_path / "reference") == 0
    total = control(server, "stats")["requests"]
    (reference_file,) = (tmp_path / "reference").rglob(f"{TASK}.exam.json")
    reference = read_result(reference_file)
    assert not reference.incomplete and reference.scores[reference.primary].failed == 0

    # the same run on a cold cache, with the judge down for the last queries' questions (the
    # gold articles, prepared first, are answered: a judge down while preparing is the next test)
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-dying"))
    control(server, "reset")
    control(server, "down", after=total - 8)
    capsys.readouterr()
    assert score(outputs, profile, tmp_path / "dying") == 3
    err = capsys.readouterr().err
    assert "incomplete" in err and "re-run the same command" in err
    (dying_file,) = (tmp_path / "dying").rglob(f"{TASK}.exam.json")
    dying = read_result(dying_file)
    ranked = dying.scores[dying.primary]
    assert dying.incomplete and ranked.unreachable >= 1 and ranked.failed >= ranked.unreachable
    assert ranked.n + ranked.failed == len(dying.per_query)  # n is what the mean is over; the gap is shown
    assert any(pq.unreachable for pq in dying.per_query)
    board = build_leaderboard(tmp_path / "dying")
    assert board.entries == [] and any("incomplete" in s for s in board.skipped)

    # the judge is back: the same command asks only what was lost and completes the result
    control(server, "up")
    before = control(server, "stats")["requests"]
    assert score(outputs, profile, tmp_path / "dying") == 0
    asked_again = control(server, "stats")["requests"] - before
    assert 0 < asked_again < total
    resumed = read_result(dying_file)
    assert not resumed.incomplete
    assert resumed.scores == reference.scores
    assert [pq.model_dump() for pq in resumed.per_query] == [pq.model_dump() for pq in reference.per_query]
    assert build_leaderboard(tmp_path / "dying").entries


def test_a_judge_down_from_the_first_question_scores_nothing_and_the_re_run_completes(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Up for the preflight, down from the first question: every query has no score, exit 3,
    and the gold articles (read with the first batch) are asked again once it is back."""
    profile, outputs = judge_and_answers(server, tmp_path)
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home"))
    control(server, "reset")
    control(server, "down", after=0)
    capsys.readouterr()
    assert score(outputs, profile, tmp_path / "r") == 3
    assert "4 of 4 queries have no score" in capsys.readouterr().err
    (path,) = (tmp_path / "r").rglob(f"{TASK}.exam.json")
    dead = read_result(path)
    assert dead.incomplete and len(dead.failed_queries) == 4 and all(pq.unreachable for pq in dead.per_query)
    control(server, "up")
    assert score(outputs, profile, tmp_path / "r") == 0
    done = read_result(path)
    assert not done.incomplete and not done.failed_queries and done.scores["n_exam"].n == 4


def test_a_higher_max_failure_rate_accepts_the_result_and_records_the_threshold(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile, outputs = judge_and_answers(server, tmp_path)
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home"))
    control(server, "reset")
    assert score(outputs, profile, tmp_path / "warm") == 0  # the gold articles, answered and cached
    warm = control(server, "stats")["requests"]
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home2"))
    control(server, "reset")
    control(server, "down", after=warm - 8)
    assert score(outputs, profile, tmp_path / "r", "--max-failure-rate", "1") == 0
    control(server, "up")
    (path,) = (tmp_path / "r").rglob(f"{TASK}.exam.json")
    result = read_result(path)
    assert not result.incomplete and result.run.max_failure_rate == 1.0
    assert result.scores[result.primary].unreachable >= 1
