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

from tests.helpers.results_fixture import EVIL, write_fixture

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


MODELS = ["acme/strong", "acme/close", "beta-lab/mid", EVIL]


def test_ranked_table_escapes_hostile_model_name(page: Page) -> None:
    table = page.locator("#gc-table-icat")
    expect(table).to_contain_text(EVIL)  # shown literally, as text
    text = table.inner_text()
    assert order(text, MODELS) == MODELS
    # the default board is one judge profile: the other profile's 0.300 ICAT-S is not here
    assert "paper-deberta-llama" not in text
    # shared rank: acme/close and beta-lab/mid overlap, so both are 2; the next is 4
    ranks = [re.search(r"(\d+)\s*\n\s*" + re.escape(m), text) for m in MODELS]
    assert [r.group(1) if r else None for r in ranks] == ["1", "2", "2", "4"], text[:500]
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
    page.locator("#gc-search textarea, #gc-search input").first.fill("beta")
    expect(table).not_to_contain_text("acme/strong")
    expect(table).to_contain_text("beta-lab/mid")
    page.screenshot(path=str(ARTIFACTS / "02-search.png"), full_page=True)
    page.locator("#gc-search textarea, #gc-search input").first.fill("")
    expect(table).to_contain_text("acme/strong")

    choose(page, "gc-weights", "open")
    expect(table).not_to_contain_text("acme/strong")
    expect(table).not_to_contain_text(EVIL)  # no card, so not known to be open
    expect_order(table, ["acme/close", "beta-lab/mid"])
    choose(page, "gc-size", "≤ 1B")
    expect(table).not_to_contain_text("acme/close")
    expect(table).to_contain_text("beta-lab/mid")
    choose(page, "gc-size", "any")
    choose(page, "gc-weights", "any")
    expect(table).to_contain_text("acme/strong")

    choose(page, "gc-sort-icat", "size")  # ascending: 500M, 8B, 70B, missing last
    expect(table).to_contain_text(EVIL)
    expect_order(table, ["beta-lab/mid", "acme/close", "acme/strong", EVIL])
    page.locator("#gc-desc-icat input").check()
    expect_order(table, ["acme/strong", "acme/close", "beta-lab/mid", EVIL])  # missing size stays last
    page.screenshot(path=str(ARTIFACTS / "03-sorted.png"), full_page=True)

    header = page.locator("#gc-table-icat thead")
    expect(header).to_contain_text("S_fact")
    page.locator("#gc-columns-icat").get_by_label("S_fact", exact=True).uncheck()
    expect(header).not_to_contain_text("S_fact")
    expect(header).to_contain_text("ICAT-S")

    choose(page, "gc-profile", "paper-deberta-llama@1")
    expect(table).not_to_contain_text("beta-lab/mid")
    expect(table).to_contain_text("0.300 [0.25, 0.35]")
    choose(page, "gc-profile", "offline-smollm2-minilm-sim@1")
    expect(table).to_contain_text("beta-lab/mid")


def test_drill_down_to_claims_and_evidence(page: Page) -> None:
    page.get_by_role("tab", name="Model details").click()
    page.locator("#gc-run input").click()
    page.get_by_role("option").filter(has_text="acme/strong · webtrack-2009-2012 · offline").click()
    expect(page.locator("#gc-queries")).to_contain_text("What are the effects of <b>acid</b> rain?")
    choose(page, "gc-query", "175")
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
    page.get_by_role("option").filter(has_text="evil/model").click()
    expect(page.locator("#gc-summary")).to_contain_text(EVIL)
    assert page.evaluate("window.__pwned") is None
