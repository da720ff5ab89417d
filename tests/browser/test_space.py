"""The Space as a person uses it: served by ``benchmark space serve``, driven in headless
Debian Chromium through Playwright.  Screenshots go to ``tests/artifacts/space/``."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.results_fixture import (
    EVIL,
    EXPECTED_RANKS,
    RAG_LABEL,
    REFERENCE,
    REFERENCE_SETTING,
)

playwright = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page, expect  # noqa: E402

from tests.browser.conftest import ARTIFACTS, serve_space  # noqa: E402
from tests.browser.space_page import (  # noqa: E402
    BROKEN_WORDS_JS,
    DESKTOP,
    LAPTOP,
    MODELS,
    check_figures,
    check_headers_explained,
    check_model_links,
    check_setting_readable,
    choose,
    choose_query,
    entries,
    entry,
    entry_colours,
    expect_figure_entries,
    expect_figures_drawn,
    expect_in_view,
    expect_order,
    figure_order,
    low_contrast,
    open_longest_trace,
    open_page,
    published_families,
    published_results,
    rows,
    sort_column,
)

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def page(chromium: Browser, server: str) -> Iterator[Page]:
    pg = open_page(chromium, server)
    yield pg
    pg.close()


def test_ranked_table_first_with_paired_ranks_and_escaped_names(page: Page) -> None:
    table = page.locator("#gc-table-icat")
    expect(table).to_contain_text(EVIL)  # shown literally, as text
    shown = {entry(r): r for r in rows(table)}
    assert entries(table) == MODELS
    # the default board is one judge profile: the other profile's entry is not here
    assert "paper-deberta-llama" not in table.inner_text()
    # paired-test ranks: close, its RAG entry and mid are not significantly different
    assert [shown[m]["rank"] for m in MODELS] == ["1", "2", "2", "2", "5", "6"], shown
    # a short model name; the setting in its own column
    assert shown[RAG_LABEL]["model"] == "acme/close" and shown[RAG_LABEL]["setting"] == "RAG bm25 k=5"
    # the table comes before every control; at laptop width the main score is in view,
    # right after the model, and every score has three decimals
    table_top = table.bounding_box()["y"]  # type: ignore[index]
    assert table_top < page.locator("#gc-search-icat").bounding_box()["y"]  # type: ignore[index]
    expect_in_view(page, "gc-table-icat", "ICAT-M")
    assert list(shown["acme/strong"])[:4] == ["rank", "model", "ICAT-M", "ICAT-M CI"]
    for r in shown.values():
        for col in ("ICAT-M", "S_fact"):
            assert re.fullmatch(r"\d\.\d{3}", r[col]), (col, r[col])
    # a size that does not apply (a copy baseline has no parameters) is blank, not 0
    assert shown["groundcover/copy-baseline"]["params (B)"] == ""
    assert shown["beta-lab/mid"]["params (B)"] == "0.5"
    assert page.evaluate("window.__pwned") is None
    # no injected element: the payload would be a <script> whose whole text is the assignment
    assert (
        page.evaluate("Array.from(document.scripts).some(s => s.textContent.trim() === 'window.__pwned=1')")
        is False
    )
    assert "<script>window.__pwned" not in page.content()
    page.screenshot(path=str(ARTIFACTS / "01-icat.png"), full_page=True)


def test_search_filter_sort_columns(page: Page) -> None:
    table = page.locator("#gc-table-icat")
    search = page.locator("#gc-search-icat textarea, #gc-search-icat input").first
    search.fill("beta")
    expect(table).not_to_contain_text("acme/strong")
    expect(table).to_contain_text("beta-lab/mid")
    page.screenshot(path=str(ARTIFACTS / "02-search.png"), full_page=True)
    search.fill("")
    expect(table).to_contain_text("acme/strong")

    choose(page, "gc-weights-icat", "open")
    expect(table).not_to_contain_text("acme/strong")
    expect(table).not_to_contain_text(EVIL)  # no card, so not known to be open
    expect_order(table, ["acme/close", RAG_LABEL, "beta-lab/mid", "groundcover/copy-baseline"])
    choose(page, "gc-size-icat", "≤ 1B")
    expect(table).not_to_contain_text("acme/close")
    expect(table).not_to_contain_text("copy-baseline")  # no size: not known to be ≤ 1B
    expect(table).to_contain_text("beta-lab/mid")
    choose(page, "gc-size-icat", "any")
    choose(page, "gc-weights-icat", "any")
    expect(table).to_contain_text("acme/strong")

    # sorting is the table's own column menu, on numbers: 0.5 < 8 < 70 (as text, "70" < "8")
    sort_column(page, "gc-table-icat", "params (B)", "Sort descending")
    expect_order(
        table, ["acme/strong", "acme/close", RAG_LABEL, "beta-lab/mid", "groundcover/copy-baseline", EVIL]
    )
    sort_column(page, "gc-table-icat", "params (B)", "Clear sort")  # else it stays the first key
    sort_column(page, "gc-table-icat", "ICAT-M", "Sort ascending")
    expect_order(
        table, [EVIL, "groundcover/copy-baseline", "acme/close", RAG_LABEL, "beta-lab/mid", "acme/strong"]
    )
    page.screenshot(path=str(ARTIFACTS / "03-sorted.png"), full_page=True)
    sort_column(page, "gc-table-icat", "ICAT-M", "Clear sort")
    expect_order(table, MODELS)

    header = page.locator("#gc-table-icat thead")
    expect(header).to_contain_text("S_fact")
    page.locator("#gc-columns-acc-icat").get_by_role("button").first.click()  # open the accordion
    page.locator("#gc-columns-icat").get_by_label("S_fact", exact=True).uncheck()
    expect(header).not_to_contain_text("S_fact")
    expect(header).to_contain_text("ICAT-M")
    page.locator("#gc-columns-icat").get_by_label("S_fact", exact=True).check()
    expect(header).to_contain_text("S_fact")

    choose(page, "gc-profile-icat", "paper-deberta-llama@2")
    expect(table).not_to_contain_text("beta-lab/mid")
    expect(table).to_contain_text("0.3")
    choose(page, "gc-profile-icat", "offline-smollm2-minilm-sim@3")
    expect(table).to_contain_text("beta-lab/mid")


def test_csv_download_is_the_shown_table(page: Page) -> None:
    table = page.locator("#gc-table-icat")
    search = page.locator("#gc-search-icat textarea, #gc-search-icat input").first
    search.fill("acme")
    expect(table).not_to_contain_text("beta-lab/mid")
    expect(page.locator("#gc-download-icat")).to_be_enabled()
    deadline = time.time() + 30
    while True:  # the button's file follows the table: poll until it holds the filtered rows
        with page.expect_download() as info:
            page.locator("#gc-download-icat").click()
        text = Path(info.value.path()).read_text(encoding="utf-8")
        if "beta-lab" not in text or time.time() > deadline:
            break
        time.sleep(0.25)
    assert text.splitlines()[0].startswith("rank,model,")
    assert "acme/strong" in text and "beta-lab/mid" not in text and EVIL not in text
    search.fill("")
    expect(table).to_contain_text("beta-lab/mid")


def test_about_how_to_submit_and_citation(page: Page) -> None:
    page.get_by_role("tab", name="About").click()
    about = page.locator("#gc-tab-about")
    expect(about).to_contain_text("paired permutation test")
    expect(about).to_contain_text("Closed-book and retrieval-augmented runs")
    page.get_by_role("tab", name="How to submit").click()
    expect(page.locator("#gc-tab-submit")).to_contain_text("benchmark submit --outputs")
    page.get_by_role("tab", name="Citation").click()
    expect(page.locator("#gc-tab-citation")).to_contain_text("samarinas2025icat")
    page.screenshot(path=str(ARTIFACTS / "05-citation.png"), full_page=True)
    page.get_by_role("tab", name="ICAT").click()


def test_drill_down_to_claims_and_evidence(page: Page) -> None:
    page.get_by_role("tab", name="Model details").click()
    # until a result is chosen: a hint, and no empty tables (their headers read "1 2 3")
    expect(page.locator("#gc-details-hint")).to_contain_text("Choose a result above")
    expect(page.locator("#gc-summary")).to_be_hidden()
    expect(page.locator("#gc-queries")).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / "04-details-empty.png"))
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="acme/strong · webtrack-2009-2012 · offline").click()
    expect(page.locator("#gc-queries")).to_contain_text("What are the effects of <b>acid</b> rain?")
    expect(page.locator("#gc-details-hint")).to_be_hidden()
    choose_query(page, "100")
    detail = page.locator("#gc-detail")
    expect(detail).to_contain_text("Acid rain damages forest soils. — grounded")
    expect(detail).to_contain_text("Acid rain is caused by volcanoes only. — not grounded")
    expect(detail).to_contain_text("1 (effects on forests)")
    expect(detail).to_contain_text("Acid deposition leaches calcium from forest soils.")
    # markup from the answer and query is text, not elements
    assert detail.locator("img").count() == 0
    assert detail.locator("b:text-is('acid')").count() == 0
    page.locator("#gc-detail .gc-passages summary").first.click()  # the evidence is collapsed
    expect(detail).to_contain_text("<img src=x onerror=alert(1)>")
    page.screenshot(path=str(ARTIFACTS / "04-drilldown.png"), full_page=True)

    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="evil/model · webtrack-2009-2012").click()
    expect(page.locator("#gc-card")).to_contain_text(EVIL)
    assert page.evaluate("window.__pwned") is None


def test_argument_quality_tab_radar_and_drill_down(page: Page) -> None:
    from tests.helpers.results_fixture import ARG_MODELS

    page.get_by_role("tab", name="Argument quality").click()
    table = page.locator("#gc-table-arguments")
    expect(table).to_contain_text("acme/strong")
    assert [r["model"] for r in rows(table)] == list(ARG_MODELS) == ["acme/strong", EVIL]
    expect(table.locator("thead")).to_contain_text("overall quality")
    expect_in_view(page, "gc-table-arguments", "overall quality")
    header = table.locator("thead").bounding_box()
    assert header is not None and header["height"] < 100, header  # it was ~250 px
    # the four top-level scores first, then the 15-axis radar; both drawn
    tab = page.locator("#gc-tab-arguments")
    expect(tab).to_contain_text("Overall quality and its three aspects")
    expect(tab).to_contain_text("All 15 dimensions")
    text = tab.inner_text()
    assert text.index("Overall quality and its three aspects") < text.index("All 15 dimensions")
    plots = tab.locator(".gc-figure .js-plotly-plot")
    expect(plots).to_have_count(2)
    for i in range(2):
        expect(plots.nth(i)).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "05-arguments.png"), full_page=True)

    page.get_by_role("tab", name="Model details").click()
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="acme/strong · arguana-debates").click()
    choose_query(page, "environment-aeghhgwpe:pro")
    detail = page.locator("#gc-detail")
    expect(detail).to_contain_text("Should people become vegetarian?")
    expect(detail).to_contain_text("test-environment-aeghhgwpe-pro02a · cited")
    expect(detail).to_contain_text("argument-quality-listwise@1")
    assert detail.locator("img").count() == 0 and detail.locator("b:text-is('Meat')").count() == 0
    assert detail.locator("i:text-is('fine')").count() == 0
    detail.get_by_text("listwise", exact=False).first.click()
    expect(detail).to_contain_text("<b>Meat</b> is nutritious.")
    page.screenshot(path=str(ARTIFACTS / "06-argument-drilldown.png"), full_page=True)
    assert page.evaluate("window.__pwned") is None


def test_every_published_board_at_laptop_width(published_page: Page) -> None:
    """Each family's tab at 1366 × 768: its headline score in view, every figure drawn at a
    size that fits its column; a screenshot of each tab and each figure for a person to look
    at (``tests/artifacts/space/board-*.png``, ``figure-*.png``)."""
    from benchmark.space.table import headline

    page = published_page
    for n, (fid, fam) in enumerate(published_families(), start=1):
        page.get_by_role("tab", name=fam.title, exact=True).click()
        table = page.locator(f"#gc-table-{fid}")
        expect(table.locator(".virtual-row").first).to_be_visible()
        assert "no results match" not in table.inner_text(), fid
        expect_in_view(page, f"gc-table-{fid}", headline(fam).label)
        # the judge card's line for the main score's judge; a banner where it fails (ICAT's
        # entailment stand-in is below a baseline on RTE)
        trust = page.locator(f"#gc-trust-{fid}")
        published = {r.profile_id for r in published_results(fid)}  # each tab opens on its newest
        expect(trust).to_contain_text(f"Judge card ({max(published, key=lambda p: int(p.split('@')[1]))}")
        if fid == "icat":
            expect(trust.locator(".gc-banner")).to_contain_text("relies on its entailment judge")
        plots = page.locator(f"#gc-tab-{fid} .gc-figure .js-plotly-plot")
        expect(plots.first).to_be_visible()
        for i in range(plots.count()):
            plot = plots.nth(i)
            expect(plot.locator(".main-svg").first).to_be_visible()
            size = plot.evaluate("el => [el.clientWidth, el.closest('.gc-figure').clientWidth]")
            assert 0 < size[0] <= size[1] + 1, (fid, i, size)
            plot.screenshot(path=str(ARTIFACTS / f"figure-{n}-{fid}-{i + 1}.png"))
        page.screenshot(path=str(ARTIFACTS / f"board-{n}-{fid}.png"), full_page=True)


# ---------------------------------------------------------------------------------
# Reference entries, rows that open their evidence, filters, figures in agreement
# ---------------------------------------------------------------------------------

#: the contrast of every text-bearing element under the selectors, from computed styles: the
#: text colour over the background its ancestors paint (alpha layers blended), WCAG's formula


def test_reference_entry_is_marked_after_the_models_and_never_ranked(page: Page) -> None:
    """The ceiling check beats every model on every query, yet a model holds rank 1; the
    reference reads "ref", carries its kind and its card's setting, under a rule, last."""
    page.get_by_role("tab", name="ICAT", exact=True).click()
    table = page.locator("#gc-table-icat")
    expect(table).to_contain_text("[ceiling check]")
    shown = rows(table)
    assert shown[0]["rank"] == "1" and shown[0]["model"] == "acme/strong", shown[0]
    last = shown[-1]
    assert last["model"] == f"{REFERENCE} [ceiling check]" and last["rank"] == "ref", last
    assert last["setting"] == REFERENCE_SETTING
    assert all(r["rank"] != "ref" for r in shown[:-1])
    style = (
        table.locator(".virtual-row")
        .last.locator(".body-cell")
        .first.evaluate(
            "el => { const s = getComputedStyle(el); return [s.fontStyle, s.borderTopStyle, s.borderTopWidth]; }"
        )
    )
    assert style[0] == "italic" and style[1] == "double", style
    expect(page.locator("#gc-count-icat")).to_contain_text("1 of them reference entry (not ranked)")
    # the figures list it as a reference, after the models
    caption = page.locator("#gc-figcaption-icat li")
    expect(caption.last).to_have_attribute("data-entry", REFERENCE)
    expect(caption.last).to_contain_text("[reference]")


def test_a_row_click_opens_its_details(page: Page) -> None:
    page.get_by_role("tab", name="ICAT", exact=True).click()
    table = page.locator("#gc-table-icat")
    table.locator(".virtual-row").filter(has_text=REFERENCE).locator(".body-cell").nth(1).click()
    card = page.locator("#gc-card")
    expect(card).to_contain_text("Reference entry: ceiling check")
    expect(card).to_contain_text(REFERENCE_SETTING)
    link = card.locator("a[href='https://example.org/extractive-ceiling']")
    expect(link).to_have_attribute("rel", "nofollow noopener")
    expect(page.locator("#gc-summary")).to_contain_text("ref")
    expect(page.locator("#gc-queries")).to_contain_text("What are the effects of <b>acid</b> rain?")
    # per-query scores are numbers: the column menu sorts them as numbers
    sort_column(page, "gc-queries", "ICAT-M", "Sort descending")
    shown = [r["ICAT-M"] for r in rows(page.locator("#gc-queries"))]
    values = [float(v) for v in shown]
    assert values == sorted(values, reverse=True), values
    # every score with three decimals: a perfect one reads "1.000", never "1"
    assert shown and all(re.fullmatch(r"\d\.\d{3}", v) for v in shown), shown
    sort_column(page, "gc-queries", "ICAT-M", "Clear sort")
    # a per-query row opens its trace; the answer keeps its line breaks
    page.locator("#gc-queries .virtual-row").first.locator(".body-cell").first.click()
    expect(page.locator("#gc-detail")).to_contain_text("Acid rain damages forest soils.")
    assert (
        page.locator("#gc-detail .gc-answer").evaluate("el => getComputedStyle(el).whiteSpace") == "pre-wrap"
    )
    # headers of the details' tables are never broken inside a word, and its scores read down
    # the page, not 3,781 px across it
    assert page.evaluate(BROKEN_WORDS_JS, "#gc-summary thead, #gc-queries thead") == []
    width = page.locator("#gc-summary table").first.evaluate("el => el.scrollWidth")
    assert width <= LAPTOP["width"], width
    page.screenshot(path=str(ARTIFACTS / "07-row-click-details.png"), full_page=True)

    page.get_by_role("tab", name="ICAT", exact=True).click()
    table.locator(".virtual-row").filter(has_text="beta-lab/mid").locator(".body-cell").nth(1).click()
    expect(card).to_contain_text("beta-lab/mid")
    expect(card).not_to_contain_text("Reference entry")
    assert page.evaluate("window.__pwned") is None
    page.get_by_role("tab", name="ICAT", exact=True).click()


def test_pairwise_tests_say_why_ranks_are_shared(page: Page) -> None:
    page.get_by_role("tab", name="ICAT", exact=True).click()
    page.locator("#gc-pairs-acc-icat").get_by_role("button").first.click()
    pairs = page.locator("#gc-pairs-icat")
    expect(pairs).to_contain_text("strong")  # named as the figures name it
    got = {(r["A"], r["B"]): r for r in rows(pairs)}  # whole names (their tooltips)
    assert got[("acme/strong", "acme/close")]["significant"] == "yes"
    assert got[("acme/close", "beta-lab/mid")]["significant"] == "no"
    assert float(got[("acme/close", "beta-lab/mid")]["Holm p"]) >= 0.05
    for r in got.values():  # three decimals for differences and p-values, counts as integers
        assert re.fullmatch(r"-?\d\.\d{3}", r["mean A − B"]), r
        assert re.fullmatch(r"(\d\.\d{3}|< 0\.001)", r["p"]) and re.fullmatch(r"\d+", r["shared queries"]), r
    assert all(REFERENCE not in a and REFERENCE not in b for a, b in got)  # references are not ranked
    page.screenshot(path=str(ARTIFACTS / "08-pairwise.png"), full_page=True)
    page.locator("#gc-pairs-acc-icat").get_by_role("button").first.click()


def test_quick_filter_changes_leave_table_and_figures_in_agreement(page: Page) -> None:
    page.get_by_role("tab", name="ICAT", exact=True).click()
    table = page.locator("#gc-table-icat")
    search = page.locator("#gc-search-icat textarea, #gc-search-icat input").first
    caption = page.locator("#gc-figcaption-icat")
    for _ in range(3):  # bursts of changes faster than the figures render
        search.press_sequentially("beta", delay=0)
        search.fill("")
        search.press_sequentially("acme", delay=0)
        search.fill("be")
        search.press_sequentially("ta-lab", delay=0)
    expect(table).not_to_contain_text("acme/strong")
    expect(caption.locator("li")).to_have_count(1)
    expect(caption.locator("li[data-entry='beta-lab/mid']")).to_have_count(1)
    search.fill("")
    search.press_sequentially("acme", delay=0)
    expect(table).not_to_contain_text("beta-lab/mid")
    expect(caption.locator("li")).to_have_count(3)
    drawn = [li.get_attribute("data-entry") for li in caption.locator("li").all()]
    assert drawn == [e for e in entries(table) if e.startswith("acme")], (drawn, entries(table))
    search.fill("")
    expect(caption.locator("li")).to_have_count(len(MODELS) + 1)


def test_figures_are_plotly_one_colour_per_entry_across_filters_and_tabs(page: Page) -> None:
    """Each entry keeps its colour when a filter leaves it alone in a figure and on another
    tab; figures list entries in rank order; names in figures are escaped; model names in the
    table link to their submission (a card without links), escaped."""
    page.get_by_role("tab", name="ICAT", exact=True).click()
    expect_figures_drawn(page, "icat")
    everyone = {m for m in EXPECTED_RANKS} | {REFERENCE}
    traces = expect_figure_entries(page, "icat", everyone)
    before = entry_colours(traces)
    assert len(set(before.values())) == len(before), before  # one colour each
    ranked = [str(li.get_attribute("data-entry")) for li in page.locator("#gc-figcaption-icat li").all()]
    for figure in dict.fromkeys(str(t[0]) for t in traces):
        assert figure_order(traces, figure) == ranked, figure  # rank order, the reference last
    assert ranked[0] == "acme/strong" and ranked[-1] == REFERENCE
    # a hostile name is text in the figure's hover, never markup
    hover = page.evaluate(
        "() => [...document.querySelectorAll('#gc-tab-icat .js-plotly-plot')].flatMap(p => p.data)"
        ".flatMap(d => d.hovertext || []).join(' ')"
    )
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;evil/model" in hover and "<script>" not in hover
    search = page.locator("#gc-search-icat textarea, #gc-search-icat input").first
    search.fill("beta")
    after = entry_colours(expect_figure_entries(page, "icat", {"beta-lab/mid"}))
    assert after["beta-lab/mid"] == before["beta-lab/mid"]
    search.fill("")
    expect_figure_entries(page, "icat", everyone)
    page.get_by_role("tab", name="Argument quality", exact=True).click()
    expect_figures_drawn(page, "arguments")
    other = entry_colours(expect_figure_entries(page, "arguments", {"acme/strong", EVIL}))
    assert other == {m: before[m] for m in ("acme/strong", EVIL)}, (other, before)
    assert page.evaluate("window.__pwned") is None
    page.get_by_role("tab", name="ICAT", exact=True).click()
    table = page.locator("#gc-table-icat")
    link = table.locator(".virtual-row").first.locator(".body-cell").nth(1).locator("a")
    expect(link).to_have_attribute("href", re.compile(r"/submissions/acme__strong$"))
    expect(link).to_have_text("acme/strong")
    hostile = table.locator(".virtual-row").filter(has_text=EVIL).locator(".body-cell").nth(1)
    expect(hostile.locator("a, script")).to_have_count(0)  # no card: no link; the name is text
    check_headers_explained(page, "gc-table-icat")


def test_only_filters_that_change_something_and_a_share_link(chromium: Browser, page: Page) -> None:
    page.get_by_role("tab", name="ICAT", exact=True).click()
    # one task on the tab: no task filter; open and closed entries: a weights filter
    expect(page.locator("#gc-task-icat")).to_be_hidden()
    expect(page.locator("#gc-weights-icat")).to_be_visible()
    search = page.locator("#gc-search-icat textarea, #gc-search-icat input").first
    search.fill("beta")
    expect(page.locator("#gc-table-icat")).not_to_contain_text("acme/strong")
    page.wait_for_url(re.compile(r"[?&]q=beta"))
    url = page.url
    assert "tab=icat" in url
    other = chromium.new_page(viewport=LAPTOP)
    other.goto(url, timeout=180_000)
    table = other.locator("#gc-table-icat")
    expect(other.locator("#gc-search-icat textarea, #gc-search-icat input").first).to_have_value("beta")
    expect(table).to_contain_text("beta-lab/mid")
    expect(table).not_to_contain_text("acme/strong")
    other.close()
    search.fill("")
    expect(page.locator("#gc-table-icat")).to_contain_text("acme/strong")


#: (title, key) of the tabs after the families'
OTHER_TABS = (
    ("Summary", "summary"),
    ("Compare two", "compare"),
    ("Model details", "model"),
    ("FAQ", "faq"),
    ("About", "about"),
    ("How to submit", "submit"),
    ("Citation", "citation"),
)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [LAPTOP, DESKTOP], ids=["1366", "1920"])
def test_published_boards_read_right_at_first_glance(
    chromium: Browser, published_server: str, viewport: dict[str, int], theme: str
) -> None:
    """Every published board at both widths in light and dark mode: the baseline that copies
    the judged corpus is marked and never rank 1; the headline, its interval, failed and
    copies are in view without scrolling sideways; headers are never broken inside a word;
    text contrast ≥ 4.5:1 from computed styles; a screenshot of each tab."""
    from benchmark.space.table import headline

    page = open_page(chromium, published_server + ("?__theme=dark" if theme == "dark" else ""), viewport)
    colours: dict[str, str] = {}
    try:
        if theme == "dark":
            expect(page.locator("body.dark, html.dark, .dark").first).to_be_attached()
        for n, (fid, fam) in enumerate(published_families(), start=1):
            page.get_by_role("tab", name=fam.title, exact=True).click()
            table = page.locator(f"#gc-table-{fid}")
            expect(table.locator(".virtual-row").first).to_be_visible()
            shown = rows(table)
            assert shown[0]["rank"] == "1", (fid, shown[0])
            for r in shown:
                if "bm25-extractive-top3" in r["model"]:
                    assert r["rank"] == "ref" and r["model"].endswith("[ceiling check]"), (fid, r)
                    assert r["setting"].startswith("extractive"), (fid, r)
                    assert r is shown[-1], fid  # after every model
            for col in (headline(fam).label, f"{headline(fam).label} CI", "failed", "copies"):
                expect_in_view(page, f"gc-table-{fid}", col)
            assert page.evaluate(BROKEN_WORDS_JS, f"#gc-table-{fid} thead") == [], fid
            check_headers_explained(page, f"gc-table-{fid}")
            check_setting_readable(page, f"gc-table-{fid}")
            check_model_links(page, f"gc-table-{fid}")
            colours = check_figures(page, fid, colours)
            selectors = [f"#gc-table-{fid} thead", f"#gc-table-{fid} .virtual-row", f"#gc-count-{fid}"]
            selectors += [f"#gc-trust-{fid}", f"#gc-help-{fid} summary"]
            assert low_contrast(page, selectors) == [], (fid, theme)
            page.screenshot(
                path=str(ARTIFACTS / f"board-{viewport['width']}-{theme}-{n}-{fid}.png"), full_page=True
            )
        for name, key in OTHER_TABS:  # and every tab that is not a family's
            page.get_by_role("tab", name=name, exact=True).click()
            expect(page.locator(f"#gc-tab-{key}")).to_be_visible()
            table = {"summary": "#gc-overall", "compare": "#gc-compare"}.get(key)
            if table:  # its table drawn
                expect(page.locator(f"{table} .virtual-row").first).to_be_visible()
            page.screenshot(
                path=str(ARTIFACTS / f"board-{viewport['width']}-{theme}-{key}.png"), full_page=True
            )
        expect(page.locator("#gc-tab-faq")).to_contain_text("What are reference entries?")
    finally:
        page.close()


def test_a_long_published_trace_is_paged(published_page: Page) -> None:
    """The longest ICAT trace (the extractive baseline's, ~150k characters) opens paged, its
    passages collapsed, each page a readable height."""
    page = published_page
    open_longest_trace(page)
    pages = page.locator("#gc-trace-page")
    expect(pages).to_be_visible()
    detail = page.locator("#gc-detail")
    expect(detail).to_contain_text("Page 1 of")
    height = detail.evaluate("el => el.scrollHeight")
    assert height < 6000, height
    page.screenshot(path=str(ARTIFACTS / "09-long-trace-page-1.png"), full_page=True)
    first = detail.locator(".gc-claim").first.inner_text()
    expect(detail.locator("ol.gc-claims")).to_have_attribute("start", "1")
    on_first = detail.locator(".gc-claim").count()
    page.locator("#gc-trace-page input").click()
    page.locator("#gc-trace-page").get_by_role("option").nth(1).click()
    expect(detail).to_contain_text("Page 2 of")
    assert detail.locator(".gc-claim").first.inner_text() != first
    # claims are numbered on across pages: page 2 starts after page 1's last claim
    expect(detail.locator("ol.gc-claims")).to_have_attribute("start", str(on_first + 1))
    note = detail.locator(".gc-page-note").inner_text()
    assert re.search(rf"claims {on_first + 1}–\d+ of", note), note
    page.get_by_role("tab", name="ICAT", exact=True).click()


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Results of the toy family, a plug-in package found through its entry point
    (tests/toy_family), scored through ``benchmark.score`` for two models."""
    import pandas as pd

    import benchmark
    from benchmark.families import REGISTRY
    from tests.helpers.toy import toy_task

    assert "toy" in REGISTRY, "the toy plug-in family is installed by scripts/setup.sh --dev"
    root = tmp_path_factory.mktemp("toy-space")
    task = toy_task(root)
    for model, answers in {
        "acme/long": ["Tornadoes form when warm moist air meets cold dry air.", "Figs want sun and warmth."],
        "acme/short": ["Storms.", "Sun."],
    }.items():
        frame = pd.DataFrame({"query_id": ["1", "2"], "answer": answers, "model": model})
        benchmark.score(frame, task=task, results_dir=root / "results", progress=False)
    (root / "submissions").mkdir()
    yield from serve_space(root / "results", root / "submissions")


def test_a_plug_in_family_has_its_own_tab(chromium: Browser, toy_server: str) -> None:
    """A family added as an outside package, with no edit inside benchmark/, is a tab of its
    own with a ranked board of its results."""
    from benchmark.families import REGISTRY

    fam = REGISTRY["toy"]
    page = open_page(chromium, toy_server)
    try:
        page.get_by_role("tab", name=fam.title, exact=True).click()
        table = page.locator("#gc-table-toy")
        expect(table.locator(".virtual-row").first).to_be_visible()
        models = [r.get("model", "") for r in rows(table)]
        assert any("long" in m for m in models) and any("short" in m for m in models), models
        page.screenshot(path=str(ARTIFACTS / "plugin-toy.png"), full_page=True)
    finally:
        page.close()
