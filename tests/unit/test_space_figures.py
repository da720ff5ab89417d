"""The Space's interactive figures and board cells, without a browser: one colour per entry
whatever else is drawn, entries in the order given (the board's rank order), an undefined
value never drawn as a number, every submitted name escaped, links only where an entry has a
page (the browser tests check the same on the served boards)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.families import views as family_views

pytest.importorskip("plotly")

from benchmark.board.leaderboard import build_leaderboard
from benchmark.board.links import model_link
from benchmark.core import figures
from benchmark.families import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def published():  # type: ignore[no-untyped-def]
    return build_leaderboard(ROOT / "leaderboard" / "results", ROOT / "submissions")


def _entries(fig) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(t.meta["entry"], t.meta["colour"]) for t in fig.data if t.meta and "entry" in t.meta]


def test_one_colour_per_entry_whatever_the_selection(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.details import entry_order
    from benchmark.space.figures import select_results
    from benchmark.space.table import Filters

    figures.fix_colours([published.entries[i].model_label for i in entry_order(published)])
    every = select_results(published, "icat", Filters())
    full = dict(_entries(family_views.plots(REGISTRY["icat"], every, "m")["factuality vs coverage"]))
    assert len(set(full.values())) == len(full)  # 7 entries, 7 colours
    for keep in (every[-1:], every[2:4]):  # a filter leaves a few: their colours stay
        shown = dict(_entries(family_views.plots(REGISTRY["icat"], keep, "m")["factuality vs coverage"]))
        assert shown == {k: full[k] for k in shown}, shown
    exam = dict(
        _entries(
            family_views.plots(REGISTRY["exam"], select_results(published, "exam", Filters()))[
                "EXAM and n-EXAM"
            ]
        )
    )
    assert exam == {k: full[k] for k in exam}  # another tab, the same colours


def test_figures_keep_the_board_order(published) -> None:  # type: ignore[no-untyped-def]
    """DecompScore's figure draws the entries in the order it is given (the board's), never
    re-sorted by value: given the board upside down, it draws it upside down."""
    from benchmark.space.figures import select_results
    from benchmark.space.table import Filters

    board = select_results(published, "decompscore", Filters())
    results = board[::-1]  # an order the values do not have: the figure must keep it
    fig = family_views.plots(REGISTRY["decompscore"], results)["DecompScore by method"]
    drawn = list(dict.fromkeys(e for e, _ in _entries(fig)))
    assert drawn == [r.model.label for r in results]
    names = list(fig.layout.yaxis.ticktext)
    assert names == [r.model.label.split("/", 1)[1].split("@")[0] for r in results]


def test_an_undefined_precision_is_named_not_drawn(published) -> None:  # type: ignore[no-untyped-def]
    import copy

    results = [copy.deepcopy(e.result) for e in published.entries if e.result.metric_family == "attribution"]
    results[-1].scores["citation_precision"].value = None  # an entry that cites nothing
    undefined = [r for r in results if (s := r.scores.get("citation_precision")) is None or s.value is None]
    assert undefined
    fig = family_views.plots(REGISTRY["attribution"], results)["Citation recall and precision"]
    for r in undefined:
        traces = [t for t in fig.data if t.meta and t.meta.get("entry") == r.model.label]
        assert traces and all(list(t.y) == [None] for t in traces), traces
        assert "precision undefined" in traces[0].name
    drawn_y = [y for t in fig.data for y in (t.y or []) if y is not None]
    assert len(drawn_y) == len(results) - len(undefined)


def test_hostile_names_are_text_in_figures(published) -> None:  # type: ignore[no-untyped-def]
    result = next(e.result for e in published.entries if e.result.metric_family == "exam")
    odd = result.model_copy(
        update={"model": result.model.model_copy(update={"id": "<b>org</b>/<a href='x'>$x$</a>"})}
    )
    fig = family_views.plots(REGISTRY["exam"], [odd])["EXAM and n-EXAM"]
    text = " ".join([*fig.layout.yaxis.ticktext, *(h for t in fig.data for h in (t.hovertext or []))])
    assert "<b>org" not in text and "<a href" not in text and "&lt;a href='x'&gt;" in text
    assert "&lt;b&gt;org&lt;/b&gt;" in text


def test_model_cells_link_and_escape() -> None:
    from benchmark.space.table import model_cell

    cell = model_cell("<img src=x onerror=alert(1)>", "https://example.org/a'b\"c", "ceiling check")
    assert "<img" not in cell and "&lt;img" in cell
    assert "href='https://example.org/a&#x27;b&quot;c'" in cell and "rel='nofollow noopener'" in cell
    assert cell.endswith(" [ceiling check]")
    assert "<a" not in model_cell("org/name", "javascript:alert(1)")  # only http(s) links
    assert model_cell("a&b", None) == "<span class='gc-name' title='a&amp;b'>a&amp;b</span>"
    # a right-to-left override is shown as an escape, in the name and in its tooltip
    assert "\u202e" not in model_cell("x/evil\u202etxt.exe", None) and "\\u202e" in model_cell(
        "x/\u202e", None
    )


def test_entry_colours_read_on_the_light_card_and_the_dark_page() -> None:
    """Each entry colour stands out (WCAG's 3:1 for graphics) on the figures' white card in
    light mode and on Gradio's dark page (#0b0f19) in dark mode."""

    def luminance(colour: str) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    dark = luminance("#0b0f19")
    for colour in figures.ENTRY_PALETTE:
        lum = luminance(colour)
        assert 1.05 / (lum + 0.05) >= 3 and (lum + 0.05) / (dark + 0.05) >= 3, colour


def test_names_in_figures_are_cut_and_shown_as_they_are(published) -> None:  # type: ignore[no-untyped-def]
    result = next(e.result for e in published.entries if e.result.metric_family == "exam")
    long = result.model_copy(update={"model": result.model.model_copy(update={"id": "org/" + "n" * 400})})
    rtl = result.model_copy(
        update={"model": result.model.model_copy(update={"id": "org/report\u202etxt.exe"})}
    )
    names = figures.plot_names([long, rtl])
    assert len(names[0]) == figures.NAME_CHARS and names[0].endswith("…")
    fig = family_views.plots(REGISTRY["exam"], [long, rtl])["EXAM and n-EXAM"]
    ticks = list(fig.layout.yaxis.ticktext)
    assert all(len(t.split("<br>")[0]) <= figures.AXIS_CHARS for t in ticks), ticks
    drawn = " ".join([*ticks, *(h for t in fig.data for h in (t.hovertext or []))])
    assert "\u202e" not in drawn and "report\\u202etxt.exe" in drawn


def _crowded(published):  # type: ignore[no-untyped-def]
    """The published board with its models' S_fact halved (0.06-0.25, intervals too): a dozen
    small models in one corner and the ceiling check at 1.0, as profile v4's board had them."""
    import copy

    lb = copy.deepcopy(published)
    for entry in lb.entries:
        s = entry.result.scores.get("s_fact")
        if entry.result.metric_family == "icat" and not entry.is_reference and s and s.value is not None:
            s.value, s.ci_low, s.ci_high = (
                v / 2 if v is not None else None for v in (s.value, s.ci_low, s.ci_high)
            )
    return lb


def test_a_crowded_scatter_opens_zoomed_to_its_models(published) -> None:  # type: ignore[no-untyped-def]
    """ICAT's factuality-vs-coverage: the SmolLM2 runs in one corner and the ceiling check at
    1.0; attribution's recall near 0 on a 0-1 axis."""
    from benchmark.space.figures import family_plots
    from benchmark.space.table import Filters

    icat = family_plots(_crowded(published), "icat", None, Filters())["factuality vs coverage"]
    low, high = icat.layout.xaxis.range
    assert high < 0.6, icat.layout.xaxis.range  # the models fill the view ...
    notes = [a.text for a in icat.layout.annotations]
    assert any("bm25-extractive-top3 [reference] at (1.00" in n for n in notes), (
        notes
    )  # ... the ceiling is named
    for trace in icat.data:  # every model's point and interval inside the view
        if trace.meta and "bm25-extractive" not in trace.meta["entry"] and trace.x and trace.x[0] is not None:
            assert (
                low <= trace.x[0] - trace.error_x.arrayminus[0]
                and trace.x[0] + trace.error_x.array[0] <= high
            )
    attribution = family_plots(published, "attribution", None, Filters())["Citation recall and precision"]
    assert attribution.layout.xaxis.range[1] < 0.3, attribution.layout.xaxis.range
    beta = family_plots(published, "icat", None, Filters())["beta sweep"]
    assert beta.layout.xaxis.range is None  # lines are not zoomed


def test_links_go_to_the_model_page_or_the_submission(published) -> None:  # type: ignore[no-untyped-def]
    links = {(e.model_label, model_link(e.result, e.card)) for e in published.entries}
    assert all(
        link == "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct"
        for label, link in links
        if label.startswith("HuggingFaceTB/")
    )
    baseline = {link for label, link in links if label.startswith("groundcover/bm25-extractive-top3")}
    assert baseline == {
        "https://github.com/groundcover-bench/groundcover/tree/main/submissions/groundcover__bm25-extractive-top3"
    }
    assert {link for label, link in links if label.startswith("decomposer/")} == {None}  # no card, no Hub id


def test_trace_pages_number_on(published) -> None:  # type: ignore[no-untyped-def]
    from benchmark.space.details import detail_html, trace_pages, traces_of

    entry = next(
        e
        for e in published.entries
        if e.result.metric_family == "icat" and "bm25-extractive" in e.model_label
    )
    qid, trace = max(traces_of(entry).items(), key=lambda kv: len(str(kv[1])))
    key, pages = trace_pages(trace)
    assert key == "claims" and len(pages) > 1
    assert "<ol class='gc-claims' start='1'>" in detail_html(entry, qid, 0)
    assert f"<ol class='gc-claims' start='{pages[1][0] + 1}'>" in detail_html(entry, qid, 1)


def test_the_landing_figure_is_sketched_until_plotly_draws_it(published) -> None:  # type: ignore[no-untyped-def]
    """The sketch draws each entry's line in its colour and names it in the legend, escaped;
    a figure it cannot draw whole (a forest, intervals) gets no sketch."""
    from benchmark.space.figures import family_plots, sketch
    from benchmark.space.table import Filters

    beta = family_plots(published, "icat", None, Filters())["beta sweep"]
    svg = sketch(beta)
    assert svg is not None and svg.startswith("<svg")
    drawn = [t for t in beta.data if t.x and t.x[0] is not None]
    assert svg.count("<polyline") == len(drawn)
    assert all(t.line.color in svg for t in drawn)
    assert "β (&lt;1 favours factuality, &gt;1 coverage)" in svg  # a title that reads like a tag
    odd = beta.data[0].name
    beta.data[0].name = figures.text("<b>org</b>/<a href='x'>x</a>")
    assert "&lt;a href=&#x27;x&#x27;&gt;" in (sketch(beta) or "") and "<a href" not in (sketch(beta) or "")
    beta.data[0].name = odd
    assert sketch(family_plots(published, "exam", None, Filters())["EXAM and n-EXAM"]) is None
    assert sketch(family_plots(published, "icat", None, Filters())["factuality vs coverage"]) is None
