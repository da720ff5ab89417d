"""The Space as a person uses it: served by ``benchmark space serve``, driven in headless
Debian Chromium through Playwright.  Screenshots go to ``tests/artifacts/space/``."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.results_fixture import EVIL, EXPECTED_RANKS, RAG_LABEL, write_fixture

playwright = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Locator, Page, expect, sync_playwright  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# A busy 2-core CI machine can take seconds to answer a filter change; waits poll, never sleep.
expect.set_options(timeout=30_000)
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "space"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian chromium not installed (scripts/setup.sh --dev)"
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    results, submissions = write_fixture(tmp_path_factory.mktemp("space"))
    port = _free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmark",
            "space",
            "serve",
            "--results-dir",
            str(results),
            "--submissions-dir",
            str(submissions),
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"space exited early:\n{proc.stdout.read() if proc.stdout else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("space did not start within 120 s")
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Page]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.goto(server)
        pg.wait_for_selector("#gc-table-icat")
        yield pg
        browser.close()


def choose(page: Page, elem_id: str, option: str) -> None:
    page.locator(f"#{elem_id} input").click()
    # the option list is the dropdown's own: another dropdown's list may still be closing
    page.locator(f"#{elem_id}").get_by_role("option", name=option, exact=True).click()
    expect(page.locator(f"#{elem_id}").get_by_role("option")).to_have_count(0)


def sort_column(page: Page, elem_id: str, column: str, action: str) -> None:
    """Use the Dataframe's own column menu (⋮, shown on hover) to sort or clear."""
    header = page.locator(f"#{elem_id} thead th[title='{column}']")
    header.hover()
    header.get_by_role("button", name="Open cell menu").click()
    page.get_by_role("menuitem", name=action, exact=True).click()
    expect(page.get_by_role("menuitem")).to_have_count(0)


def order(text: str, names: list[str]) -> list[str]:
    """``names`` in the order they appear in ``text`` (absent ones dropped)."""
    return sorted((n for n in names if n in text), key=text.index)


def expect_order(table: Locator, expected: list[str], timeout_s: float = 30) -> None:
    """Poll until the models shown in ``table`` are exactly ``expected``, in that order
    (Python Playwright has no ``expect.poll``)."""
    deadline = time.time() + timeout_s
    while (got := order(table.inner_text(), MODELS)) != expected:
        assert time.time() < deadline, f"order {got}, expected {expected}"
        time.sleep(0.25)


MODELS = sorted(EXPECTED_RANKS, key=lambda m: (EXPECTED_RANKS[m], m))  # as the table orders them


def test_ranked_table_first_with_paired_ranks_and_escaped_names(page: Page) -> None:
    table = page.locator("#gc-table-icat")
    expect(table).to_contain_text(EVIL)  # shown literally, as text
    text = table.inner_text()
    assert order(text, MODELS) == MODELS
    # the default board is one judge profile: the other profile's entry is not here
    assert "paper-deberta-llama" not in text
    # paired-test ranks: close, its RAG entry and mid are not significantly different
    ranks = [re.search(r"(\d+)\s*\n\s*" + re.escape(m) + r"\s", text) for m in MODELS]
    assert [r.group(1) if r else None for r in ranks] == ["1", "2", "2", "2", "5", "6"], text[:800]
    # the table comes before every control, and fits 1400 px without scrolling sideways
    table_top = table.bounding_box()["y"]  # type: ignore[index]
    assert table_top < page.locator("#gc-search-icat").bounding_box()["y"]  # type: ignore[index]
    overflow = page.evaluate(
        "() => { const el = document.querySelector('#gc-table-icat .table-wrap') "
        "|| document.querySelector('#gc-table-icat'); return el.scrollWidth - el.clientWidth; }"
    )
    assert overflow <= 2, overflow
    # a size that does not apply (a copy baseline has no parameters) is blank, not 0
    assert re.search(r"groundcover/copy-baseline\s+closed-book\s+0\.", text), text[:800]
    assert re.search(r"beta-lab/mid\s+closed-book\s+0\.5\s", text), text[:800]
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
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="acme/strong · webtrack-2009-2012 · offline").click()
    expect(page.locator("#gc-queries")).to_contain_text("What are the effects of <b>acid</b> rain?")
    choose(page, "gc-query", "100")
    detail = page.locator("#gc-detail")
    expect(detail).to_contain_text("Acid rain damages forest soils. — grounded")
    expect(detail).to_contain_text("Acid rain is caused by volcanoes only. — not grounded")
    expect(detail).to_contain_text("1 (effects on forests)")
    expect(detail).to_contain_text("Acid deposition leaches calcium from forest soils.")
    # markup from the answer and query is text, not elements
    assert detail.locator("img").count() == 0
    assert detail.locator("b:text-is('acid')").count() == 0
    page.locator("#gc-detail summary").click()
    expect(detail).to_contain_text("<img src=x onerror=alert(1)>")
    page.screenshot(path=str(ARTIFACTS / "04-drilldown.png"), full_page=True)

    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="evil/model · webtrack-2009-2012").click()
    expect(page.locator("#gc-summary")).to_contain_text(EVIL)
    assert page.evaluate("window.__pwned") is None


def test_argument_quality_tab_radar_and_drill_down(page: Page) -> None:
    from tests.helpers.results_fixture import ARG_MODELS

    page.get_by_role("tab", name="Argument quality").click()
    table = page.locator("#gc-table-arguments")
    expect(table).to_contain_text("acme/strong")
    assert order(table.inner_text(), list(ARG_MODELS)) == ["acme/strong", EVIL]
    expect(table.locator("thead")).to_contain_text("overall quality")
    tab = page.locator("#gc-tab-arguments")
    expect(tab).to_contain_text("Argument quality by dimension")
    expect(tab.locator("[data-testid='matplotlib'] img").first).to_be_visible()  # the radar, drawn
    page.screenshot(path=str(ARTIFACTS / "05-arguments.png"), full_page=True)

    page.get_by_role("tab", name="Model details").click()
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="acme/strong · arguana-debates").click()
    choose(page, "gc-query", "environment-aeghhgwpe:pro")
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
