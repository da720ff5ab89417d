"""The Space's views of the published boards without a browser: the CSV of an empty view, the
summary across boards, and two entries compared on the same queries (the browser tests drive
the same views in Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gradio")

from benchmark.board.leaderboard import build_leaderboard
from benchmark.board.pairs import board_pairs
from benchmark.families import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def published():  # type: ignore[no-untyped-def]
    return build_leaderboard(ROOT / "leaderboard" / "results", ROOT / "submissions")


def test_an_empty_view_is_columns_without_rows(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.download import download_frame
    from benchmark.space.table import Filters, default_columns, table_view

    fam = REGISTRY["icat"]
    empty = download_frame(
        table_view(published, "icat", Filters(search="no such model"), default_columns(fam), bounds=True)
    )
    assert empty.empty and {"model", "kind", "task", "judge profile", "board id"} <= set(empty.columns)
    full = download_frame(table_view(published, "icat", Filters(), default_columns(fam), bounds=True))
    assert (
        len(full) == len(published.tables["icat"]) and full["board id"].str.fullmatch(r"[0-9a-f]{12}").all()
    )


def test_the_summary_has_each_models_rank_on_every_board_of_its_profile(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.summary import summary_frame

    profile = published.profiles[0]
    frame = summary_frame(published, profile)
    models = published.overall[published.overall["judge_profile"] == profile]
    assert len(frame) == len(models)
    assert "ICAT" in frame.columns and "Attribution" in frame.columns
    closed = frame[frame["model"].str.contains("SmolLM2-135M-Instruct'", regex=False)]
    assert (closed["Attribution"] == "n/a").all()  # a closed-book run cites nothing: not its board
    assert "bm25-extractive" not in " ".join(frame["model"])  # reference entries have no overall rank


def test_two_entries_compared_query_by_query(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.compare import boards, compare_frame, pair_line
    from benchmark.space.details import entries_by_key

    board_id = boards(published)[0][1]
    by_key = entries_by_key(published)
    a, b = [e for k, e in by_key.items() if k.startswith(board_id) and not e.is_reference][:2]
    frame = compare_frame(a, b)
    diffs = [d for d in frame["A − B"] if d is not None]
    assert diffs == sorted(diffs, reverse=True) and len(frame) == a.result.task.queries.n
    [pair] = board_pairs(published.comparisons[board_id], [a.model_label, b.model_label])
    assert f"{pair.mean_diff:+.3f}" in pair_line(published, a, b)


def test_search_finds_the_names_the_legends_use(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.table import Filters, filter_rows

    icat = published.tables["icat"]
    found = filter_rows(icat, Filters(search="subq(all)"))  # as the legend writes it
    assert list(found["setting"]) == ["RAG bm25 + core sub-questions (all) k=5"]
    assert len(filter_rows(icat, Filters(search="core sub-questions (all)"))) == 1  # as the table did
