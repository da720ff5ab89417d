"""Leaderboard rules: like with like, missing is missing, ranks from paired tests, safe renderings."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmark.board.leaderboard import build_leaderboard, from_results, overall_table
from benchmark.board.render import display_frame, md_cell, to_html, to_markdown
from benchmark.cli.main import main
from benchmark.core.results import QueryScores, result_path, write_result
from benchmark.families import REGISTRY
from benchmark.scoring.runner import RunOptions, incomplete_reasons, score_summaries, withhold_scores
from tests.helpers.results_fixture import (
    EVIL,
    EXPECTED_RANKS,
    MODELS,
    OTHER_PROFILE,
    PROFILE,
    QUERIES,
    RAG_LABEL,
    REFERENCE,
    REFERENCE_SETTING,
    make_result,
    write_fixture,
)


def default_board(lb) -> pd.DataFrame:
    icat = lb.tables["icat"]
    return icat[icat["judge_profile"] == f"{PROFILE['name']}@{PROFILE['version']}"].set_index("model")


def test_paired_ranks_and_boards_never_mix_profiles(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    lb = build_leaderboard(results, subs)
    icat = lb.tables["icat"]
    assert icat["board"].nunique() == 2
    board = default_board(lb)
    assert board.loc[~board["reference"], "rank"].to_dict() == EXPECTED_RANKS
    other = icat[icat["judge_profile"] == f"{OTHER_PROFILE['name']}@{OTHER_PROFILE['version']}"]
    assert other["model"].tolist() == ["acme/strong"] and other["rank"].tolist() == [1]
    # display metadata comes from validated model cards only
    board = default_board(lb)
    assert board.loc["beta-lab/mid", "open_weights"] == True  # noqa: E712
    assert board.loc[EVIL, "open_weights"] is None
    assert (
        set(board["rank_method"]) == {board["rank_method"].iloc[0]} and "Holm" in board["rank_method"].iloc[0]
    )


def test_closed_book_and_rag_are_two_entries(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    board = default_board(build_leaderboard(results, subs))
    assert board.loc["acme/close", "setting"] == "closed-book"
    assert board.loc[RAG_LABEL, "setting"] == "RAG bm25 k=5"


def test_different_query_sets_or_beta_are_different_boards() -> None:
    full = make_result("a/full", MODELS["acme/strong"], PROFILE)
    limited = make_result("b/limited", MODELS["acme/close"][:6], PROFILE, queries=QUERIES[:6])
    beta2 = make_result("c/beta2", MODELS["beta-lab/mid"], PROFILE, beta=2.0)
    lb = from_results([full, limited, beta2])
    assert lb.tables["icat"]["board"].nunique() == 3
    assert lb.tables["icat"]["rank"].tolist() == [1, 1, 1]  # each alone on its board


def test_failed_queries_are_shown_and_left_out_of_the_mean() -> None:
    values = MODELS["acme/strong"]
    res = make_result("a/failing", values, PROFILE, failed=("100", "101"))
    row = from_results([res]).tables["icat"].iloc[0]
    assert row["failed"] == 2 and row["queries"] == 12 and row["icat_m_n"] == 10
    assert row["icat_m"] == sum(values[2:]) / 10


def test_missing_board_means_no_overall_rank() -> None:
    tables = {
        "icat": pd.DataFrame(
            {
                "judge_profile": ["p"] * 3,
                "board": ["t1", "t1", "t2"],
                "model": ["a", "b", "a"],
                "rank": pd.Series([2, 1, 1], dtype="Int64"),
                "setting": ["closed-book"] * 3,
            }
        )
    }
    ov = overall_table(tables).set_index("model")
    assert ov.loc["a", "mean_rank"] == 1.5 and ov.loc["a", "overall_rank"] == 1
    assert pd.isna(ov.loc["b", "overall_rank"]) and pd.isna(ov.loc["b", "mean_rank"])
    assert ov.loc["b", "missing"] == "t2"


def test_equal_mean_ranks_share_an_overall_rank() -> None:
    """a and b swap ranks 1 and 2 on two boards: one mean rank, one overall rank, and the
    next model is third (two models are better than it), not second."""
    tables = {
        "icat": pd.DataFrame(
            {
                "judge_profile": ["p"] * 6,
                "board": ["t1", "t1", "t1", "t2", "t2", "t2"],
                "model": ["a", "b", "c", "a", "b", "c"],
                "rank": pd.Series([1, 2, 3, 2, 1, 3], dtype="Int64"),
                "setting": ["closed-book"] * 6,
            }
        )
    }
    ov = overall_table(tables).set_index("model")
    assert ov["mean_rank"].to_dict() == {"a": 1.5, "b": 1.5, "c": 3.0}
    assert ov["overall_rank"].to_dict() == {"a": 1, "b": 1, "c": 3}


def test_a_board_that_does_not_apply_is_neither_counted_nor_missing() -> None:
    """Attribution needs evidence: a closed-book model is not on its board and still gets
    an overall rank from the boards that apply; a RAG model missing from it gets none."""
    icat = pd.DataFrame(
        {
            "judge_profile": ["p"] * 3,
            "board": ["icat"] * 3,
            "model": ["closed", "rag", "rag2"],
            "rank": pd.Series([2, 1, 1], dtype="Int64"),
            "setting": ["closed-book", "rag-bm25-k5", "rag-bm25-k5"],
        }
    )
    attribution = pd.DataFrame(
        {
            "judge_profile": ["p"],
            "board": ["attr"],
            "model": ["rag"],
            "rank": pd.Series([1], dtype="Int64"),
            "setting": ["rag-bm25-k5"],
        }
    )
    ov = overall_table({"icat": icat, "attribution": attribution}).set_index("model")
    assert ov.loc["closed", "of_boards"] == 1 and ov.loc["closed", "overall_rank"] == 2
    assert ov.loc["rag", "of_boards"] == 2 and ov.loc["rag", "mean_rank"] == 1.0
    assert ov.loc["rag2", "missing"] == "attr" and pd.isna(ov.loc["rag2", "overall_rank"])


def test_size_that_does_not_apply_is_a_dash(tmp_path: Path) -> None:
    from benchmark.families import REGISTRY

    results, subs = write_fixture(tmp_path)
    view = display_frame(build_leaderboard(results, subs).tables["icat"], REGISTRY["icat"]).set_index("model")
    assert view.loc["groundcover/copy-baseline", "size"] == "—" and view.loc["acme/close", "size"] == "8B"


def test_renderings_escape_model_names(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    lb = build_leaderboard(results, subs)
    page = to_html(lb)
    assert "<script>window" not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    md = to_markdown(lb)
    assert f"`{EVIL}`" in md  # a code span: neither HTML nor Markdown is interpreted inside


def test_markdown_cells_neutralise_links_and_html() -> None:
    assert md_cell("[x](javascript:alert(1))") == "`[x](javascript:alert(1))`"
    assert md_cell("a|b") == "`a\\|b`"
    assert md_cell("has `tick`") == "`` has `tick` ``"
    assert md_cell("0.512 [0.40, 0.61]") == "0.512 [0.40, 0.61]"  # numbers stay plain
    assert md_cell("`x`").startswith("`` ") and md_cell("`x`").endswith(" ``")


def test_newest_result_wins_and_invalid_files_are_skipped(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    newer = make_result("acme/close", MODELS["acme/strong"], PROFILE)
    newer.run.finished = "2027-01-01T00:00:00+00:00"
    p = result_path(
        results, newer.model, f"{PROFILE['name']}@{PROFILE['version']}", "webtrack-2009-2012", "icat"
    )
    write_result(newer, p.with_name("again.icat.json"))
    (results / "broken.json").write_text("{not json")
    lb = build_leaderboard(results, subs)
    assert default_board(lb).loc["acme/close", "icat_m"] == sum(MODELS["acme/strong"]) / 12
    assert any(s.startswith("broken.json") for s in lb.skipped)  # relative: no server paths shown


def test_cli_writes_snapshot(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    results, subs = write_fixture(tmp_path)
    out = tmp_path / "snap"
    md = tmp_path / "comment.md"
    args = ["leaderboard", "--results-dir", str(results), "--submissions-dir", str(subs), "--out", str(out)]
    assert main([*args, "--markdown", str(md)]) == 0
    assert {p.name for p in out.iterdir()} >= {
        "icat.csv",
        "overall.csv",
        "leaderboard.json",
        "leaderboard.md",
        "index.html",
    }
    printed = capsys.readouterr().out
    assert "acme/strong" in printed and "paired permutation test" in printed
    assert "### ICAT" in md.read_text()
    # a family with no result here (another built-in, a plug-in merely installed) has no board:
    # no CSV, no entry in the JSON
    boards = {p.stem for p in out.glob("*.csv")} - {"overall"}
    assert "icat" in boards and "exam" not in boards and "toy" not in boards
    assert all(len(pd.read_csv(out / f"{b}.csv")) for b in boards)
    assert set(json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))["families"]) == boards


def test_space_card_is_tagged_as_a_leaderboard() -> None:
    readme = (Path(__file__).resolve().parents[2] / "hf_space" / "README.md").read_text()
    assert "tags:\n  - leaderboard" in readme


def test_space_shows_every_published_family_ranked_with_numeric_columns() -> None:
    """The published board as the Space builds it: one ranked table per family, numbers as
    numbers (so the column menu sorts them), and the decomposition methods on their own."""
    import importlib.util

    from benchmark.families import BUILTIN, REGISTRY
    from benchmark.space import table as app

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("space_app", root / "hf_space" / "app.py")
    assert spec and spec.loader
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)  # the Hub Space's entry: the package's app, nothing of its own
    assert entry.build_app.__module__ == "benchmark.space.app"
    lb = build_leaderboard(root / "leaderboard" / "results", root / "submissions")
    # only what the failure policy holds back is left off (a judge failing on most queries)
    assert all("incomplete" in s for s in lb.skipped)
    held = {Path(s.split(":", 1)[0]).name.split(".")[-2] for s in lb.skipped}
    for fid, fam in ((f, REGISTRY[f]) for f in BUILTIN):  # the published families (no plug-in's)
        if fid in held and lb.tables[fid].empty:
            continue
        view = app.table_view(lb, fid, app.Filters(), app.all_columns(fam))
        assert "no results match" not in view["model"].tolist(), fid
        update = app.shown_table(view, fam)
        types = dict(zip(view.columns, update.datatype, strict=True))
        assert types["rank"] == "number" and types[fam.columns[0].label] == "number"
        # the model's name is a link built from escaped text (app.model_cell); intervals are text
        assert types["model"] == "html" and types[f"{fam.columns[0].label} CI"] == "str"
    methods = app.table_view(lb, "decompscore", app.Filters(), ["DecompScore"])
    assert methods["model"].tolist()[0] == "decomposer/russellian" and len(methods) == 6
    assert not lb.overall["model"].str.startswith("decomposer/").any()  # methods are not models


# ---------------------------------------------------------------------------------
# Per-score n and failures, incomplete results, failure-driven inflation (issue 36)
# ---------------------------------------------------------------------------------


def _per_query(rows: list[tuple[str, dict[str, float | None], list[str], bool]]) -> list[QueryScores]:
    return [
        QueryScores(
            query_id=q,
            scores=s,
            failures=f,
            failed=all(v is None for v in s.values()) and bool(f),
            unreachable=u,
        )
        for q, s, f, u in rows
    ]


def test_each_score_counts_the_queries_its_judge_failed_on_apart_from_those_it_does_not_apply_to() -> None:
    per_query = _per_query(
        [
            ("1", {"icat_m": 0.5, "icat_s": 0.2}, [], False),
            ("2", {"icat_m": 0.4, "icat_s": None}, ["alignment: backend unavailable: down"], True),
            ("3", {"icat_m": 0.3, "icat_s": None}, ["alignment: no JSON object"], False),
            ("4", {"icat_m": None, "icat_s": None}, [], False),  # not applicable: no failure
            ("5", {"icat_m": None, "icat_s": None}, ["claims: backend unavailable: down"], True),
        ]
    )
    scores = score_summaries(REGISTRY["icat"], per_query, RunOptions(bootstrap_resamples=200))
    assert (scores["icat_m"].n, scores["icat_m"].failed, scores["icat_m"].unreachable) == (3, 1, 1)
    assert (scores["icat_s"].n, scores["icat_s"].failed, scores["icat_s"].unreachable) == (1, 3, 2)
    # one failure policy: unreached or unusable, every failure counts against the rate
    withhold_scores(REGISTRY["icat"], scores, per_query, 0.05)
    assert "3 of 5 queries" in (scores["icat_s"].incomplete or "")
    assert "2 unreached, 1 with replies that could not be used" in (scores["icat_s"].incomplete or "")
    assert "1 of 5" in (scores["icat_m"].incomplete or "")
    reasons = incomplete_reasons(REGISTRY["icat"], "icat_s", scores, per_query, 0.05)
    assert any("ICAT-S" in r and "3 of 5" in r and "ranked score" in r for r in reasons)
    assert any("1 of 5 queries have no score" in r and "1 unreached" in r for r in reasons)
    # ranked by ICAT-M, which the judge failed on once in five (20%): a rate of 0.2 accepts it,
    # and ICAT-S (60%) is withheld without making the result incomplete
    scores = score_summaries(REGISTRY["icat"], per_query, RunOptions(bootstrap_resamples=200))
    withhold_scores(REGISTRY["icat"], scores, per_query, 0.2)
    assert scores["icat_m"].incomplete is None and scores["icat_s"].incomplete
    assert incomplete_reasons(REGISTRY["icat"], "icat_m", scores, per_query, 0.2) == []  # 1 lost in 5: 20%
    scores = score_summaries(REGISTRY["icat"], per_query, RunOptions(bootstrap_resamples=200))
    withhold_scores(REGISTRY["icat"], scores, per_query, 0.6)  # 3 of 5 is 60%: not more
    assert incomplete_reasons(REGISTRY["icat"], "icat_s", scores, per_query, 0.6) == []


def test_a_withheld_score_is_no_number_on_a_board_and_its_reason_is_said(tmp_path: Path) -> None:
    done = make_result("acme/done", MODELS["acme/strong"], PROFILE)
    other = next(k for k in done.scores if k != done.primary)
    held = done.model_copy(deep=True)
    held.scores[
        other
    ].incomplete = "ICAT-S: the judge failed on 3 of 12 queries (3 with replies that could not be used)"
    table = from_results([held]).tables["icat"]
    assert table[other].isna().all() and table[f"{other}_ci_low"].isna().all()
    assert table[done.primary].notna().all() and table["rank"].notna().all()
    from benchmark.board.render import failure_lines, withheld_lines

    (line,) = withheld_lines(table)
    assert line.startswith("Withheld") and "acme/done: ICAT-S: the judge failed on 3 of 12 queries" in line
    assert not any("Withheld" in x for x in failure_lines(REGISTRY["icat"], table))  # a note, not a warning


def test_a_score_no_query_has_is_left_out_but_its_failed_queries_still_make_the_result_incomplete() -> None:
    per_query = _per_query(
        [
            ("1", {"icat_m": 0.5, "icat_s": None}, ["alignment: backend unavailable: down"], True),
            ("2", {"icat_m": 0.4, "icat_s": None}, ["alignment: backend unavailable: down"], True),
            ("3", {"icat_m": 0.4, "icat_s": None}, [], False),
        ]
    )
    scores = score_summaries(REGISTRY["icat"], per_query, RunOptions(bootstrap_resamples=200))
    assert "icat_s" not in scores and scores["icat_m"].failed == 0
    (reason,) = incomplete_reasons(REGISTRY["icat"], "icat_s", scores, per_query, 0.05)
    assert "2 of 3" in reason and "no value on any query" in reason
    assert incomplete_reasons(REGISTRY["icat"], "icat_m", scores, per_query, 0.05) == []


def test_an_incomplete_result_is_on_no_board_and_says_why(tmp_path: Path) -> None:
    done = make_result("acme/done", MODELS["acme/strong"], PROFILE)
    broken = make_result("acme/broken", MODELS["acme/close"], PROFILE).model_copy(
        update={"incomplete": ["ICAT-M: the judge could not be reached on 3 of 12 queries"]}
    )
    for r in (done, broken):
        write_result(r, result_path(tmp_path, r.model, r.profile_id, r.task.id, "icat"))
    lb = build_leaderboard(tmp_path)
    assert lb.tables["icat"]["model"].tolist() == ["acme/done"]
    assert any("incomplete" in s and "3 of 12" in s for s in lb.skipped)
    assert from_results([done, broken]).tables["icat"]["model"].tolist() == ["acme/done"]


def test_boards_show_the_mean_over_shared_queries_and_flag_entries_that_fail_far_more() -> None:
    values = MODELS["acme/strong"]
    steady = make_result("acme/steady", values, PROFILE)
    also = make_result("acme/also", MODELS["acme/close"], PROFILE)
    # fails on the four queries where the others score lowest: its own mean looks better
    hard = sorted(QUERIES, key=lambda q: values[QUERIES.index(q)])[:4]
    failing = make_result("acme/failing", values, PROFILE, failed=tuple(hard))
    board = from_results([steady, also, failing]).tables["icat"].set_index("model")
    assert board.loc["acme/failing", "failed"] == 4 and board.loc["acme/failing", "n"] == 8
    assert board.loc["acme/failing", "icat_m"] > board.loc["acme/steady", "icat_m"]  # inflated
    kept = [v for q, v in zip(QUERIES, values, strict=True) if q not in hard]
    assert board.loc["acme/steady", "shared_mean"] == pytest.approx(sum(kept) / 8)
    assert board.loc["acme/failing", "shared_mean"] == board.loc["acme/steady", "shared_mean"]
    assert board["shared_n"].tolist() == [8, 8, 8]
    assert board["failure_flag"].to_dict() == {"acme/steady": False, "acme/also": False, "acme/failing": True}
    lb = from_results([steady, also, failing])
    md = to_markdown(lb)
    assert "acme/failing has 4 of 12 queries failed" in md
    view = display_frame(lb.tables["icat"], REGISTRY["icat"])
    assert {"n", "failed"} <= set(view.columns)


def test_one_failure_more_than_the_median_is_not_flagged() -> None:
    a = make_result("acme/a", MODELS["acme/strong"], PROFILE)
    b = make_result("acme/b", MODELS["acme/close"], PROFILE, failed=("100",))
    board = from_results([a, b]).tables["icat"]
    assert not board["failure_flag"].any()


def test_on_a_small_board_two_failures_more_than_the_median_are_not_flagged_three_are() -> None:
    """12 queries: a tenth of them is 1.2, below the floor of 2, so the floor decides — an
    entry is flagged only when it fails on more than 2 queries beyond the board's median."""
    steady = make_result("acme/steady", MODELS["acme/strong"], PROFILE)
    also = make_result("acme/also", MODELS["acme/close"], PROFILE)
    for failed, flagged in ((("100", "101"), False), (("100", "101", "102"), True)):
        failing = make_result("acme/failing", MODELS["beta-lab/mid"], PROFILE, failed=failed)
        board = from_results([steady, also, failing]).tables["icat"].set_index("model")
        assert board["queries"].max() == 12 and board.loc["acme/failing", "failed"] == len(failed)
        assert board["failure_flag"].to_dict() == {
            "acme/steady": False,
            "acme/also": False,
            "acme/failing": flagged,
        }


def test_reference_entries_are_shown_apart_and_never_ranked(tmp_path: Path) -> None:
    """A ceiling check that beats every model holds no rank: the best model keeps rank 1, the
    reference comes after the models with its card's setting, and has no overall rank."""
    results, subs = write_fixture(tmp_path)
    lb = build_leaderboard(results, subs)
    board = default_board(lb)
    assert pd.isna(board.loc[REFERENCE, "rank"]) and board.loc[REFERENCE, "kind"] == "ceiling check"
    assert board.loc["acme/strong", "rank"] == 1
    assert board.index[-1] == REFERENCE  # after every model
    assert board.loc[REFERENCE, "setting"] == REFERENCE_SETTING
    assert REFERENCE not in set(lb.overall["model"])
    md = to_markdown(lb)
    assert "Reference entries" in md and "ceiling check" in md
    assert md.index("acme/strong") < md.index("Reference entries") < md.index(REFERENCE)
    page = to_html(lb)
    assert page.index("Reference entries") < page.index(REFERENCE)
    view = display_frame(board.reset_index(), REGISTRY["icat"]).set_index("model")
    assert view.loc[REFERENCE, "rank"] == "ceiling check"
    # the ranks' evidence: the board's paired tests among its models, the reference not among them
    board_id = board.loc["acme/strong", "board_id"]
    assert REFERENCE not in lb.comparisons[board_id].models


def test_model_card_kind_is_validated() -> None:
    from pydantic import ValidationError

    from benchmark.board.submissions import ModelCard

    base = {"name": "x", "org": "y", "license": "mit", "open_weights": True, "contact": "a@b.c"}
    assert ModelCard.model_validate(base).kind == "model"  # the safe default: ranked
    assert ModelCard.model_validate({**base, "kind": "baseline"}).is_reference
    with pytest.raises(ValidationError):
        ModelCard.model_validate({**base, "kind": "champion"})
    with pytest.raises(ValidationError):  # a setting of its own only for a reference entry
        ModelCard.model_validate({**base, "reference_setting": "copies the corpus"})
