"""The Space pinned to a release with a canary's candidate beside it, in headless Chromium.

The results dataset is a folder laid out as huggingface_hub's cache leaves a download, read
offline by the Space's own ``hf_space/app.py`` through its pin (``GROUNDCOVER_RESULTS_PIN``):
the page names the release and its judge of record, and its *Canary* tab shows the
candidate's comparison (Kendall τ, places before and after).  Screenshot:
``tests/artifacts/space/canary.png``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.board.results_dataset import Pin, write_pin
from tests.browser.conftest import ARTIFACTS, CHROMIUM, _free_port, serve
from tests.browser.space_page import open_page
from tests.helpers.release_fixture import canary_dataset

playwright = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian chromium not installed (scripts/setup.sh --dev)"
    ),
]
ROOT = Path(__file__).resolve().parents[2]
REVISION = "d" * 40


@pytest.fixture(scope="module")
def pinned_space(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("pinned")
    dataset = canary_dataset(root)
    cache = root / "hub-cache"
    shutil.copytree(dataset, cache / "datasets--org--results" / "snapshots" / REVISION)
    pin = root / "results.yaml"
    write_pin(pin, Pin(repo="org/results", revision=REVISION, release=1, candidate=2))
    port = _free_port()
    env = {
        "GRADIO_SERVER_PORT": str(port),
        "GROUNDCOVER_RESULTS_PIN": str(pin),
        "HF_HUB_CACHE": str(cache),
        "HF_HUB_OFFLINE": "1",
        "GROUNDCOVER_RESULTS": "",  # the pin, never a local folder
    }
    yield from serve([str(ROOT / "hf_space" / "app.py")], port, env)


def test_the_space_names_its_release_and_shows_the_canary_beside_it(
    request: pytest.FixtureRequest, pinned_space: str
) -> None:
    browser: Browser = request.getfixturevalue("chromium")  # the session's, shared
    page = open_page(browser, pinned_space)
    expect(page.locator("#gc-source")).to_contain_text(
        "release 1 (candidate 2 beside it) of hf://datasets/org/results@ddddddd, judge of record record-x@1"
    )
    page.get_by_role("tab", name="Canary").click()
    head = page.locator("#gc-canary-head")
    expect(head).to_contain_text("Candidate release 2 (judge canary-x@1) beside release 1")
    canary = page.locator("#gc-tab-canary")
    expect(canary).to_contain_text("Kendall τ between the two boards -1.000; 4 of 4 entries moved")
    expect(canary.locator("table").first).to_contain_text("acme/strong")
    page.screenshot(path=str(ARTIFACTS / "canary.png"), full_page=True)
    page.close()
