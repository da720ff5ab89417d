"""The board's figures as a reader sees them: every piece of text inside the figure (no
label running off an edge) and no legend over the axes (it covered the curves).

Drawn from the published results, seven entries with long names: the case that broke."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.board.leaderboard import build_leaderboard
from benchmark.core import figures
from benchmark.core.results import iter_results
from benchmark.families import BUILTIN, REGISTRY
from benchmark.families import views as family_views
from benchmark.models.profiles import DEFAULT_PROFILE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def published():  # type: ignore[no-untyped-def]
    return build_leaderboard(ROOT / "leaderboard" / "results", ROOT / "submissions")


def _figures(published, fid):  # type: ignore[no-untyped-def]
    fam = REGISTRY[fid]
    # every published result, those the failure policy keeps off the boards too: the figures are drawn alike
    # (a family with no current result, arguments under profile v5, is drawn from its history)
    results = []
    for folder in (ROOT / "leaderboard" / "results", ROOT / "leaderboard" / "history"):
        results = results or [
            r
            for _, r in iter_results(folder)
            if r.metric_family == fid and r.profile_id.split("@")[0] == DEFAULT_PROFILE
        ]
    assert results, fid
    for option in [value for _, value in fam.view_options] or [None]:
        for title, fig in family_views.figures(fam, results, option).items():
            yield f"{fid}/{option}/{title}", fig


@pytest.mark.parametrize("fid", list(BUILTIN))  # the families with published results
def test_text_inside_and_legends_off_the_axes(published, fid: str) -> None:  # type: ignore[no-untyped-def]
    seen = 0
    for name, fig in _figures(published, fid):
        seen += 1
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        drawn, frame = fig.get_tightbbox(renderer), fig.bbox_inches  # everything drawn, in inches
        assert (
            drawn.x0 >= -0.01
            and drawn.y0 >= -0.01
            and drawn.x1 <= frame.x1 + 0.01
            and drawn.y1 <= frame.y1 + 0.01
        ), f"{name}: something drawn runs off the figure ({drawn} outside {frame})"
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
        for legend in legends:
            for ax in fig.axes:
                assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)), (
                    f"{name}: the legend covers the axes"
                )
        figures.pyplot().close(fig)
    assert seen


def test_entry_labels_are_short_and_tell_entries_apart(published) -> None:  # type: ignore[no-untyped-def]
    icat = [e.result for e in published.entries if e.result.metric_family == "icat"]
    labels = figures.entry_labels(icat)
    assert len(set(labels)) == len(labels)
    assert all(len(label) <= 60 for label in labels), labels  # the full ones ran to 90
    assert "SmolLM2-135M-Instruct · RAG bm25+subq(all) k5" in labels
    twins = [icat[0], icat[0]]  # two entries that would read alike keep their full label
    assert figures.entry_labels(twins) == [icat[0].model.label] * 2


def test_a_dollar_in_a_name_is_drawn_as_text(published) -> None:  # type: ignore[no-untyped-def]
    """ "$" starts matplotlib's math mode: an unescaped "$\\frac" in a model id broke the figure."""
    result = next(e.result for e in published.entries if e.result.metric_family == "exam")
    odd = result.model_copy(update={"model": result.model.model_copy(update={"id": "org/$\\frac$x"})})
    fig = family_views.figures(REGISTRY["exam"], [odd])["EXAM and n-EXAM"]
    fig.canvas.draw()  # raises a ValueError from the math parser when not escaped
    labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert labels[0] == "\\$\\frac\\$x"
