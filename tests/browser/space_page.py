"""Reading the Space as a person does, for the browser tests: open it at a screen size,
choose from its dropdowns, read its tables as shown, measure where things are drawn."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from tests.helpers.results_fixture import EXPECTED_RANKS

LAPTOP = {"width": 1366, "height": 768}
DESKTOP = {"width": 1920, "height": 1080}
# A busy 2-core CI machine can take seconds to answer a filter change; waits poll, never sleep.
expect.set_options(timeout=30_000)
MODELS = sorted(EXPECTED_RANKS, key=lambda m: (EXPECTED_RANKS[m], m))  # as the table orders them
SHORT_NAMES = {m.split(" (")[0] for m in MODELS}


def open_page(chromium: Browser, url: str, viewport: dict[str, int] | None = None) -> Page:
    """A laptop's screen by default: 1366 × 768, the width the boards must be read at."""
    pg = chromium.new_page(viewport=viewport or LAPTOP)
    # the published boards take a busy 2-core machine well over Playwright's default 30 s
    # to build on first load: wait for the table itself, with a deadline, never a sleep
    pg.goto(url, timeout=180_000)
    pg.wait_for_selector("#gc-table-icat", timeout=180_000)
    return pg


def choose(page: Page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    # the option list is the dropdown's own: another dropdown's list may still be closing
    page.locator(f"#{elem_id}").get_by_role("option", name=option, exact=True).click()
    expect(page.locator(f"#{elem_id}").get_by_role("option")).to_have_count(0)


def choose_query(page: Page, query_id: str) -> None:
    """A query from the drill-down's list, where each reads "id — the start of its text"."""
    page.locator("#gc-query input").click()
    page.locator("#gc-query").get_by_role(
        "option", name=re.compile(rf"(^|\s){re.escape(query_id)} — ")
    ).click()
    expect(page.locator("#gc-query").get_by_role("option")).to_have_count(0)


def sort_column(page: Page, elem_id: str, column: str, action: str) -> None:
    """Use the Dataframe's own column menu (⋮, shown on hover) to sort or clear."""
    header = page.locator(f"#{elem_id} thead th[data-gc-col='{column}']")
    header.hover()
    header.get_by_role("button", name="Open cell menu").click()
    page.get_by_role("menuitem", name=action, exact=True).click()
    expect(page.get_by_role("menuitem")).to_have_count(0)


def rows(table: Locator) -> list[dict[str, str]]:
    """The table's rows as shown, each a mapping from column header to cell text (Gradio
    draws the body as rows of cells under a header table).  A setting written short ("RAG
    bm25 k5") reads as its whole wording (its tooltip), and so does a pair's name (A, B)."""
    return table.evaluate(
        """el => {
            const heads = [...el.querySelectorAll('thead th')].map(th => th.dataset.gcCol || th.getAttribute('title'));
            return [...el.querySelectorAll('.virtual-row')].map(tr => {
                const cells = [...tr.querySelectorAll('.body-cell')].map((td, i) => {
                    const whole = heads[i] === 'setting' ? td.querySelector('.gc-setting')
                        : (heads[i] === 'A' || heads[i] === 'B') ? td.querySelector('.gc-name') : null;
                    return whole ? whole.title : td.innerText.trim();
                });
                return Object.fromEntries(heads.map((h, i) => [h, cells[i] ?? '']));
            });
        }"""
    )


def entry(row: dict[str, str]) -> str:
    """An entry's full name: the short model name, with its setting when it is not closed-book
    (the leaderboard's label, which the fixture's names use)."""
    setting = row.get("setting", "closed-book")
    return row["model"] if setting in ("closed-book", "") else f"{row['model']} ({setting})"


def entries(table: Locator) -> list[str]:
    return [entry(r) for r in rows(table) if r.get("model") in SHORT_NAMES]


def expect_order(table: Locator, expected: list[str], timeout_s: float = 30) -> None:
    """Poll until the entries shown in ``table`` are exactly ``expected``, in that order
    (Python Playwright has no ``expect.poll``)."""
    deadline = time.time() + timeout_s
    while (got := entries(table)) != expected:
        assert time.time() < deadline, f"order {got}, expected {expected}"
        time.sleep(0.25)


#: every box that scrolls sideways between the header and the page put back to its start, and
#: the page scrolled down (never sideways) until the header is on screen
UNSCROLL_JS = """(th) => {
    for (let e = th.parentElement; e; e = e.parentElement) if (e.scrollLeft) e.scrollLeft = 0;
    window.scrollTo(0, th.getBoundingClientRect().top + window.scrollY - window.innerHeight / 3);
}"""


def expect_in_view(page: Page, elem_id: str, column: str) -> None:
    """The column's header lies wholly inside the screen with nothing scrolled sideways (the
    page may be scrolled down to the table, never sideways: a header the table's own box must
    be scrolled to is not in view)."""
    header = page.locator(f"#{elem_id} thead th[data-gc-col='{column}']")
    expect(header).to_be_attached()
    header.evaluate(UNSCROLL_JS)
    box = header.bounding_box()
    size = page.viewport_size or LAPTOP
    assert box is not None, column
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (column, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (column, box)
    assert page.evaluate("window.scrollX") == 0


def open_longest_trace(page: Page) -> str:
    """Model details of the longest published ICAT trace (the extractive baseline's, ~150k
    characters), opened on its first page; its query id."""
    import json

    root = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
    path = next(root.glob("groundcover__bm25-extractive-top3/**/*.icat.traces.jsonl"))
    qid = str(json.loads(max(path.read_text(encoding="utf-8").split("\n"), key=len))["query_id"])
    page.get_by_role("tab", name="Model details").click()
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="ICAT: groundcover/bm25-extractive-top3").first.click()
    choose_query(page, qid)
    expect(page.locator("#gc-detail")).to_contain_text("Page 1 of")
    return qid


def published_results(fid: str) -> list:  # type: ignore[type-arg]
    from benchmark.core.results import iter_results

    root = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
    # those on the boards: a result the failure policy holds back (incomplete) is on none
    return [r for _, r in iter_results(root) if r.metric_family == fid and not r.incomplete]


def published_families() -> list[tuple[str, object]]:
    """The registered families with published results (a plug-in installed for the tests,
    such as the toy family, has none: its tab is checked on its own results below)."""
    from benchmark.families import REGISTRY

    return [(fid, fam) for fid, fam in REGISTRY.items() if published_results(fid)]


CONTRAST_JS = """(selectors) => {
    const parse = c => {
        const m = c && c.match(/rgba?\\(([^)]+)\\)/);
        if (!m) return null;
        const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    };
    const blend = (top, under) => under.map((v, i) => top[i] * top[3] + v * (1 - top[3]));
    const background = el => {
        const layers = [];
        for (let e = el; e; e = e.parentElement) {
            const c = parse(getComputedStyle(e).backgroundColor);
            if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
        }
        let base = [255, 255, 255];
        for (const c of layers.reverse()) base = blend(c, base);
        return base;
    };
    const lum = rgb => {
        const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
    };
    const out = [];
    for (const sel of selectors) {
        for (const root of document.querySelectorAll(sel)) {
            for (const el of [root, ...root.querySelectorAll('*')]) {
                const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
                const box = el.getBoundingClientRect();
                if (!own || box.width === 0 || box.height === 0) continue;
                const style = getComputedStyle(el);
                if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
                const bg = background(el);
                const raw = parse(style.color);
                if (!raw) { out.push({sel, text: el.textContent.trim().slice(0, 40), ratio: 0, color: style.color}); continue; }
                const fg = raw[3] < 1 ? blend(raw, bg) : raw.slice(0, 3);
                const [a, b] = [lum(fg), lum(bg)];
                out.push({sel, text: el.textContent.trim().slice(0, 40),
                          ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), color: style.color});
            }
        }
    }
    return out;
}"""

#: header words that the layout broke across lines (each word's text range has one line box)
BROKEN_WORDS_JS = """(sel) => {
    const broken = [];
    for (const root of document.querySelectorAll(sel)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const text = n.textContent;
            const re = /\\S+/g;
            let m;
            while ((m = re.exec(text))) {
                const r = document.createRange();
                r.setStart(n, m.index);
                r.setEnd(n, m.index + m[0].length);
                const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
                if (tops.size > 1) broken.push(m[0]);
            }
        }
    }
    return broken;
}"""


def low_contrast(page: Page, selectors: list[str], minimum: float = 4.5) -> list[dict[str, object]]:
    measured = page.evaluate(CONTRAST_JS, selectors)
    assert measured, selectors  # something was measured
    return [m for m in measured if float(m["ratio"]) < minimum]  # type: ignore[arg-type]


#: every entry trace of a tab's Plotly figures: [figure id, entry, colour in its meta, the colour
#: drawn (marker, its outline, or line), x values, y values, undefined-why or null]
FIGURE_TRACES_JS = """(fid) => {
    const out = [];
    for (const plot of document.querySelectorAll('#gc-tab-' + fid + ' .gc-figure .js-plotly-plot')) {
        const id = plot.closest('.gc-figure').id;
        for (const d of plot.data || []) {
            if (!d.meta || !d.meta.entry) continue;
            const m = d.marker || {};
            const drawn = [m.color, m.line && m.line.color, d.line && d.line.color];
            out.push([id, d.meta.entry, d.meta.colour, drawn, d.x || d.r || [], d.y || d.theta || [],
                      d.meta.undefined || null]);
        }
    }
    return out;
}"""


def figure_traces(page: Page, fid: str) -> list[list[object]]:
    return page.evaluate(FIGURE_TRACES_JS, fid)


def entry_colours(traces: list[list[object]]) -> dict[str, str]:
    """Entry -> its colour over every trace given; fails where an entry has two colours, or a
    trace draws another colour than its entry's."""
    out: dict[str, str] = {}
    for fig, label, colour, drawn, *_ in traces:
        assert colour in drawn, (fig, label, colour, drawn)  # type: ignore[operator]
        assert out.setdefault(str(label), str(colour)) == colour, (fig, label, out[str(label)], colour)
    return out


def figure_order(traces: list[list[object]], figure: str) -> list[str]:
    """The entries of one figure in the order it draws (and its legend lists) them."""
    return list(dict.fromkeys(str(t[1]) for t in traces if t[0] == figure))


def expect_figures_drawn(page: Page, fid: str) -> None:
    """Wait until every Plotly figure of the tab has drawn (its SVG is there)."""
    plots = page.locator(f"#gc-tab-{fid} .gc-figure")
    for i in range(plots.count()):
        expect(plots.nth(i).locator(".js-plotly-plot .main-svg").first).to_be_attached()


def expect_figure_entries(
    page: Page, fid: str, expected: set[str], timeout_s: float = 30
) -> list[list[object]]:
    """Poll until the tab's figures draw exactly ``expected`` entries; their traces."""
    deadline = time.time() + timeout_s
    while True:
        traces = figure_traces(page, fid)
        drawn = {str(t[1]) for t in traces}
        if drawn == expected:
            return traces
        assert time.time() < deadline, (drawn, expected)
        time.sleep(0.25)


def check_headers_explained(page: Page, elem_id: str) -> None:
    """Every header says what its column means where it stands: a tooltip (title) "name — what
    it means", beside the collapsed list under the table."""
    heads = page.locator(f"#{elem_id} thead th")
    expect(heads.first).to_have_attribute("data-gc-col", re.compile(r"."))
    for name, title in page.evaluate(
        "id => [...document.querySelectorAll('#' + id + ' thead th')].map(th => [th.dataset.gcCol, th.title])",
        elem_id,
    ):
        assert name and title.startswith(f"{name} — ") and len(title) > len(name) + 12, (elem_id, name, title)


#: each setting cell's box, its text's widths, and its text: read whole, not cut
SETTING_JS = """(id) => {
    const t = document.getElementById(id);
    const heads = [...t.querySelectorAll('thead th')].map(th => th.dataset.gcCol || th.title);
    const i = heads.indexOf('setting');
    if (i < 0) return null;
    return [...t.querySelectorAll('.virtual-row')].map(r => {
        const cell = r.querySelectorAll('.body-cell')[i];
        const inner = cell.querySelector('span') || cell;
        const box = cell.getBoundingClientRect();
        return [cell.innerText.trim(), box.left, box.right, inner.scrollWidth, inner.clientWidth, i];
    });
}"""


def check_setting_readable(page: Page, elem_id: str) -> None:
    """The setting cell is read whole at this width: inside the screen, nothing cut off, wrapped
    between words only (never "sub-" / "questions")."""
    header = page.locator(f"#{elem_id} thead th[data-gc-col='setting']")
    if header.count() == 0:  # a board of methods, not models: no setting column
        return
    header.evaluate(UNSCROLL_JS)
    cells = page.evaluate(SETTING_JS, elem_id)
    assert cells, elem_id
    width = (page.viewport_size or LAPTOP)["width"]
    assert page.evaluate("window.scrollX") == 0, elem_id
    for text, left, right, scroll, client, _ in cells:
        assert text and left >= 0 and right <= width, (elem_id, text, left, right)
        assert scroll <= client + 1, (elem_id, text, scroll, client)
        if text.startswith(("RAG ", "closed-book")):  # a model's setting: one line (it took 2-3)
            assert "\n" not in text, (elem_id, text)
    column = cells[0][5] + 1
    broken = page.evaluate(BROKEN_WORDS_JS, f"#{elem_id} .virtual-row > .body-cell:nth-child({column})")
    assert broken == [], (elem_id, broken)


def check_model_links(page: Page, elem_id: str) -> None:
    """A model's name links to its model page (the card's Hub link), a reference without links
    to its submission folder; an entry without a card has none; links open apart."""
    for row in page.locator(f"#{elem_id} .virtual-row").all():
        cell = row.locator(".body-cell").nth(1)
        text = cell.inner_text()
        links = cell.locator("a[href]")
        if "SmolLM2-135M-Instruct" in text:
            expect(links).to_have_attribute(
                "href", "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct"
            )
        elif "bm25-extractive-top3" in text:
            expect(links).to_have_attribute(
                "href", re.compile(r"^https://github\.com/.+/submissions/groundcover__bm25-extractive-top3$")
            )
        else:
            expect(links).to_have_count(0)  # no card, no Hub model: no guessed link
            continue
        expect(links).to_have_attribute("rel", "nofollow noopener")
        expect(links).to_have_attribute("target", "_blank")
        assert links.inner_text() == text.split(" [")[0], text


def check_figures(page: Page, fid: str, colours: dict[str, str]) -> dict[str, str]:
    """The tab's figures are Plotly; every entry has the colour it has on every other tab;
    each figure draws its entries in the board's order (the caption's, the table's); an
    undefined value is a named legend item, never a point."""
    expect_figures_drawn(page, fid)
    traces = figure_traces(page, fid)
    assert traces, fid
    mine = entry_colours(traces)
    for label, colour in mine.items():
        assert colours.setdefault(label, colour) == colour, (fid, label, colours[label], colour)
    caption = [
        li.get_attribute("data-entry") for li in page.locator(f"#gc-figcaption-{fid} li[data-entry]").all()
    ]
    table = [r["model"].split(" [")[0] for r in rows(page.locator(f"#gc-table-{fid}"))]
    # the caption is in the table's order (an entry's label starts with its model id)
    assert len(caption) == len(table) and all(
        str(c).startswith(m) or str(c).startswith(f"decomposer/{m}")
        for c, m in zip(caption, table, strict=True)
    ), (fid, caption, table)
    for figure in dict.fromkeys(str(t[0]) for t in traces):
        order = figure_order(traces, figure)
        assert order == [c for c in caption if c in order], (fid, figure, order, caption)
    for fig, label, _, _, xs, ys, why in traces:
        if why is not None:
            assert all(v is None for v in [*xs, *ys]), (fid, fig, label, xs, ys)  # type: ignore[misc]
    swatches = page.evaluate(
        "fid => [...document.querySelectorAll('#gc-figcaption-' + fid + ' li[data-entry]')].map("
        "li => [li.dataset.entry, getComputedStyle(li.querySelector('.gc-swatch')).backgroundColor])",
        fid,
    )
    for label, rgb in swatches:
        if label in mine:
            hexed = "#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", rgb)[:3])
            assert hexed == mine[label], (fid, label, rgb, mine[label])
    if fid == "attribution":  # entries that cite nothing (none on the v5 board): precision
        # undefined, named, not drawn (tests/unit/test_space_figures.py builds such an entry)
        undefined = [t for t in traces if t[6] is not None]
        assert all("precision undefined" in str(t[6]) for t in undefined), traces
    return colours
