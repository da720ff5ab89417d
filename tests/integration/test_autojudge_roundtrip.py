"""The TREC AutoJudge round trip (issue 40), on the hand-written fixture task
tests/fixtures/autojudge/: groundcover judges it with the nugget family and the offline
judge profile, writes the leaderboard AutoJudge takes, and AutoJudge's own tools check it:

* autojudge-base reads the task (``load_requests_from_file``, ``load_report``) and the
  leaderboard (``Leaderboard.load``) and its verifier accepts it (``verify``, every topic
  of every run, every measure);
* ``auto-judge-evaluate meta-evaluate`` correlates groundcover's leaderboard with the human
  one, and its Kendall τ, Spearman ρ and τ_AP-b equal groundcover's ranking card's.

The tools live in the side environment ``scripts/setup.sh --dev`` makes
(:mod:`tests.helpers.autojudge`: skipped without it, a failure under CI).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchmark.api.autojudge import AutoJudgeJudgement, autojudge_card, autojudge_judge
from benchmark.api.config import ScoringConfig
from benchmark.metaeval import autojudge as aj
from benchmark.scoring.options import RunOptions
from tests.helpers.autojudge import require_side_python

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "autojudge"
TOPICS = ("t1", "t2", "t3")

#: run by the side environment's Python: autojudge-base's own readers and verifier
VERIFY = """
import json, sys
from pathlib import Path
from autojudge_base.request import load_requests_from_file
from autojudge_base.report import load_report
from autojudge_base.leaderboard.leaderboard import Leaderboard
topics, runs, board_path, fmt = sys.argv[1:5]
ids = [r.request_id for r in load_requests_from_file(Path(topics))]
reports = [r for p in sorted(Path(runs).iterdir()) for r in load_report(p)]
board = Leaderboard.load(Path(board_path), format=fmt)
board.verify(on_missing="error", expected_topic_ids=ids)
values = {f"{e.run_id}|{e.topic_id}|{m}": float(v) for e in board.entries for m, v in e.values.items()}
json.dump({"topics": ids, "reports": sorted((r.metadata.run_id, r.metadata.topic_id) for r in reports),
           "measures": list(board.measures), "values": values}, sys.stdout)
"""


@pytest.fixture(scope="module")
def python() -> Path:
    return require_side_python()


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> AutoJudgeJudgement:
    out = tmp_path_factory.mktemp("autojudge")
    config = ScoringConfig(metrics=("nuggets",), files={"nuggets": str(FIXTURE / "nuggets.jsonl")})
    return autojudge_judge(
        FIXTURE / "topics.jsonl",
        FIXTURE / "runs",
        out,
        config=config,
        options=RunOptions(results_dir=out / "results", progress=False),
    )


def _side(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(python), *args], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_groundcover_judges_the_task_and_orders_the_runs(judged: AutoJudgeJudgement) -> None:
    assert judged.leaderboard.name == "groundcover.eval.txt" and judged.notes == []
    assert judged.task.id.startswith("autojudge-topics-") and sorted(judged.task.query_texts()) == list(
        TOPICS
    )
    assert judged.primary == {"nuggets": "nuggets_vital_strict"}
    board = judged.boards["nuggets_all_strict"]
    assert sorted(board) == ["run-a", "run-b", "run-c", "run-d", "run-e"]
    means = {run: sum(s.values()) / len(s) for run, s in board.items()}
    # run-a states every nugget and run-d none: a real judge tells them apart
    assert max(means, key=means.__getitem__) == "run-a" and min(means, key=means.__getitem__) == "run-d"
    assert means["run-a"] == 1.0 and means["run-a"] - means["run-d"] > 0.5


def test_autojudge_base_reads_and_verifies_groundcovers_files(
    python: Path, judged: AutoJudgeJudgement
) -> None:
    done = _side(python, "-c", VERIFY, str(FIXTURE / "topics.jsonl"), str(FIXTURE / "runs"),
                 str(judged.leaderboard), "ir_measures")  # fmt: skip
    seen = json.loads(done.stdout)
    assert seen["topics"] == list(TOPICS)
    assert len(seen["reports"]) == 15
    assert seen["measures"] == list(judged.boards)
    for measure, board in judged.boards.items():
        for run, scores in board.items():
            for topic, value in scores.items():
                assert seen["values"][f"{run}|{topic}|{measure}"] == value
            assert seen["values"][f"{run}|all|{measure}"] == pytest.approx(sum(scores.values()) / len(scores))


def test_autojudge_evaluate_agrees_with_groundcovers_ranking_card(
    python: Path, judged: AutoJudgeJudgement, tmp_path: Path
) -> None:
    evaluate = python.parent / "auto-judge-evaluate"
    out = tmp_path / "meta.jsonl"
    measures = [judged.primary["nuggets"], "nuggets_all_strict"]
    _side(
        python, str(evaluate), "meta-evaluate",
        "--truth-leaderboard", str(FIXTURE / "human.eval.txt"), "--truth-format", "ir_measures",
        "--eval-format", "ir_measures", "--no-truth-header", "--no-eval-header",
        "--truth-measure", "nugget_recall", *(x for m in measures for x in ("--eval-measure", m)),
        "--correlation", "kendall", "--correlation", "spearman", "--correlation", "tauap_b",
        "--output", str(out), "--silent", str(judged.leaderboard),
    )  # fmt: skip
    rows = {r["EvalMeasure"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert sorted(rows) == sorted(measures)
    for measure in measures:
        card = autojudge_card(
            judged.leaderboard,
            FIXTURE / "human.eval.txt",
            judge_measure=measure,
            resamples=20,
            autojudge_python=str(python),
        )
        theirs = rows[measure]
        # autojudge-evaluate writes 10 decimals
        assert card.judge.kendall.value == pytest.approx(theirs["kendall"], abs=1e-9)
        assert card.judge.spearman.value == pytest.approx(theirs["spearman"], abs=1e-9)
        assert card.judge.tau_ap.value == pytest.approx(theirs["tauap_b"], abs=1e-9)
        assert 0.5 < theirs["kendall"] < 1.0  # neither chance nor a copy of the human order


def test_the_leaderboard_read_back_is_what_was_written(judged: AutoJudgeJudgement) -> None:
    back = aj.read_leaderboard(judged.leaderboard)
    assert back.boards == judged.boards
