"""TREC AutoJudge's formats (benchmark.metaeval.autojudge) and an AutoJudge judge's
leaderboard on a ranking card (benchmark.api.autojudge.autojudge_card), on the hand-written
fixture tests/fixtures/autojudge/.  No model is loaded: the round trip that scores the
fixture is tests/integration/test_autojudge_roundtrip.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scipy import stats

from benchmark.api.autojudge import autojudge_card, run_answers
from benchmark.core.errors import InputError
from benchmark.metaeval import autojudge as aj

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "autojudge"
RUNS = ("run-a", "run-b", "run-c", "run-d", "run-e")


def problem(err: pytest.ExceptionInfo[InputError]) -> tuple[str, int | None, str | None]:
    p = err.value.problems[0]
    return p.file, p.line, p.field


def test_the_fixture_requests_are_read() -> None:
    requests = aj.read_requests(FIXTURE / "topics.jsonl")
    assert [r.request_id for r in requests] == ["t1", "t2", "t3"]
    assert requests[0].title == "Why is the sky blue?"
    assert requests[2].problem_statement == "Explain what causes the rise and fall of the sea on the coast."


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"request_id": "t9"}', "title", "non-empty string"),
        ('{"title": "x"}', "request_id", "non-empty string"),
        ('{"request_id": "t1", "title": "again"}', "request_id", "again (first on line 1)"),
        ('{"request_id": "t9", "title": "x", "topic_id": "t8"}', "topic_id", "must equal request_id"),
    ],
)
def test_a_bad_request_names_file_line_and_field(tmp_path: Path, line: str, field: str, message: str) -> None:
    path = tmp_path / "topics.jsonl"
    path.write_text('{"request_id": "t1", "title": "ok"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as err:
        aj.read_requests(path)
    file, n, got = problem(err)
    assert file.endswith("topics.jsonl") and n == 2 and got == field


def test_a_human_leaderboard_is_read_with_its_aggregates_apart() -> None:
    board = aj.read_leaderboard(FIXTURE / "human.eval.txt")
    assert board.measures == ["nugget_recall"]
    measure, scores = board.board(None)
    assert measure == "nugget_recall" and sorted(scores) == list(RUNS)
    assert scores["run-b"] == {"t1": 0.5, "t2": 0.75, "t3": 0.5}
    assert board.aggregates["nugget_recall"]["run-b"] == pytest.approx(1.75 / 3)


def test_a_judge_leaderboard_in_tot_columns_is_read() -> None:
    board = aj.read_leaderboard(FIXTURE / "other-judge.eval.txt", "tot")
    _, scores = board.board("GRADE")
    assert scores["run-e"] == {"t1": 0.6, "t2": 0.4, "t3": 0.5}
    with pytest.raises(InputError, match="no measure 'nope'; it has GRADE"):
        board.board("nope", "--judge-measure")
    # read in the wrong column order, the measure column holds the topics: no measure named GRADE
    with pytest.raises(InputError, match=re.escape("4 measures (t1, t2, t3, all)")):
        aj.read_leaderboard(FIXTURE / "other-judge.eval.txt", "ir_measures").board(None)


@pytest.mark.parametrize(
    ("row", "line", "field", "message"),
    [
        ("run-x\tt1\tm\n", 2, None, "3 columns; the ir_measures format has 4"),
        ("run-x\tt1\tm\thigh\n", 2, "value", "not a finite number: 'high'"),
        ("run-x\tt1\tm\tnan\n", 2, "value", "not a finite number"),
        ("run-a\tt1\tm\t0.3\n", 2, "measure", "run run-a, topic t1, m again (first on line 1)"),
    ],
)
def test_a_malformed_leaderboard_names_file_line_and_field(
    tmp_path: Path, row: str, line: int, field: str | None, message: str
) -> None:
    path = tmp_path / "judge.eval.txt"
    path.write_text("run-a\tt1\tm\t0.5\n" + row, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as err:
        aj.read_leaderboard(path)
    file, n, got = problem(err)
    assert file.endswith("judge.eval.txt") and n == line and got == field


def test_a_leaderboard_with_no_rows_or_an_unknown_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.eval.txt"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no per-topic rows"):
        aj.read_leaderboard(path)
    with pytest.raises(InputError, match="unknown leaderboard format 'csv'"):
        aj.read_leaderboard(FIXTURE / "human.eval.txt", "csv")
    with pytest.raises(InputError, match="no such file"):
        aj.read_leaderboard(tmp_path / "missing.txt")


@pytest.mark.parametrize("fmt", ["ir_measures", "tot", "rag4reports", "jsonl"])
def test_a_written_leaderboard_reads_back_with_each_runs_mean(tmp_path: Path, fmt: str) -> None:
    boards = {
        "fam_a": {"r1": {"t1": 0.1, "t2": 0.2}, "r2": {"t1": 1.0, "t2": 0.0}},
        "fam_b": {"r1": {"t1": 1.0, "t2": 1.0}, "r2": {"t1": 0.5, "t2": 0.25}},
    }
    path, measures = aj.write_leaderboard(
        tmp_path / "g.eval.txt", boards, fmt=fmt, descriptions={"fam_a": "A"}
    )
    back = aj.read_leaderboard(path, fmt)
    assert back.boards == boards
    assert back.aggregates["fam_a"] == {"r1": pytest.approx(0.15), "r2": 0.5}
    assert back.aggregates["fam_b"]["r2"] == 0.375
    spec = measures.read_text(encoding="utf-8")
    assert measures.name == "g.eval.measures.yml" and "name: fam_a" in spec and "description: A" in spec
    if fmt == "jsonl":  # the keys autojudge-evaluate's *.eval.jsonl files have
        assert set(json.loads(path.read_text(encoding="utf-8").splitlines()[0])) == {
            "run_id", "topic_id", "measure", "value",
        }  # fmt: skip


def test_the_aggregate_rows_tie_runs_whose_topics_tie_in_another_order(tmp_path: Path) -> None:
    scores = [0.1, 0.7, 0.2]
    boards = {
        "m": {
            "r1": dict(zip(["a", "b", "c"], scores, strict=True)),
            "r2": dict(zip(["c", "a", "b"], scores, strict=True)),
        }
    }
    path, _ = aj.write_leaderboard(tmp_path / "x.eval.txt", boards)
    back = aj.read_leaderboard(path)
    assert back.aggregates["m"]["r1"] == back.aggregates["m"]["r2"]


def test_the_runs_answers_are_read_for_the_length_baseline() -> None:
    answers = run_answers(FIXTURE / "runs")
    assert sorted(answers) == list(RUNS) and sorted(answers["run-d"]) == ["t1", "t2", "t3"]
    lengths = aj.word_board(answers)
    assert lengths["run-a"]["t1"] > lengths["run-e"]["t1"]


def test_an_autojudge_judges_leaderboard_on_a_ranking_card(tmp_path: Path) -> None:
    card = autojudge_card(
        FIXTURE / "other-judge.eval.txt",
        FIXTURE / "human.eval.txt",
        judge_format="tot",
        runs=FIXTURE / "runs",
        resamples=50,
        out=tmp_path / "card.yaml",
        command="benchmark autojudge card ...",
    )
    judge = aj.read_leaderboard(FIXTURE / "other-judge.eval.txt", "tot").board("GRADE")[1]
    human = aj.read_leaderboard(FIXTURE / "human.eval.txt").board(None)[1]
    a = [sum(judge[r].values()) / 3 for r in RUNS]
    h = [sum(human[r].values()) / 3 for r in RUNS]
    assert card.judge.systems == 5 and card.judge.topics == 3
    assert card.judge.kendall.value == pytest.approx(stats.kendalltau(a, h).statistic)
    assert card.judge.spearman.value == pytest.approx(stats.spearmanr(a, h).statistic)
    assert [b.name for b in card.baselines] == ["answer length (words)"]
    written = (tmp_path / "card.yaml").read_text(encoding="utf-8")
    assert "kind: ranking-card" in written and "nugget_recall from" in written
    assert card.card["human_leaderboard"].startswith("nugget_recall from")


def test_a_card_needs_three_shared_runs(tmp_path: Path) -> None:
    path = tmp_path / "two.eval.txt"
    path.write_text("run-a\tt1\tm\t0.5\nrun-b\tt1\tm\t0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match="2 common systems"):
        autojudge_card(path, FIXTURE / "human.eval.txt", resamples=10)


def test_the_command_line_writes_a_card_and_names_a_bad_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    card = tmp_path / "card.yaml"
    argv = ["autojudge", "card", "--judge", str(FIXTURE / "other-judge.eval.txt"), "--judge-format", "tot",
            "--human", str(FIXTURE / "human.eval.txt"), "--resamples", "20", "--card-out", str(card)]  # fmt: skip
    assert main(argv) == 0
    assert "verdict:" in capsys.readouterr().out and "kind: ranking-card" in card.read_text(encoding="utf-8")
    bad = tmp_path / "bad.eval.txt"
    bad.write_text("run-a\tGRADE\tt1\t0.5\nrun-b\tGRADE\tt1\tx\n", encoding="utf-8")
    assert main([*argv[:3], str(bad), *argv[4:]]) == 2
    assert "bad.eval.txt, line 2, field 'value': not a finite number: 'x'" in capsys.readouterr().err
    assert main(["autojudge", "judge", "--topics", str(FIXTURE / "topics.jsonl")]) == 2
    assert "needs --runs" in capsys.readouterr().err


def test_a_run_without_a_score_on_a_topic_is_named() -> None:
    boards = {"fam_a": {"r1": {"t1": 0.5, "t2": 0.1}, "r2": {"t1": 0.2}}}
    assert aj.check_runs_cover(boards, ["t1", "t2"], "g.eval.txt") == [
        "g.eval.txt: fam_a has no score for run r2 on topic(s) t2"
    ]
