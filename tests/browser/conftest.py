"""The Space served for the browser tests, once for this package: over the fixture results (names
chosen to break things), the published boards, and a hostile copy (spoofed and oversized
names, 13 entries); and one headless Debian Chromium that drives them all."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.results_fixture import write_fixture, write_hostile_fixture

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "space"
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_space(results: Path, submissions: Path) -> Iterator[str]:
    """``benchmark space serve`` on a free port; the URL once it answers."""
    port = _free_port()
    argv = ["-m", "benchmark", "space", "serve", "--results-dir", str(results)]
    yield from serve([*argv, "--submissions-dir", str(submissions), "--port", str(port)], port)


def serve(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """``python ARGV`` (a Space) started with ``env`` over this environment; its URL once
    ``port`` answers (the process's exit, or 120 s without an answer, fails the test)."""
    proc = subprocess.Popen(
        [sys.executable, *argv],
        env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", **(env or {})},
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


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_space(*write_fixture(tmp_path_factory.mktemp("space")))


@pytest.fixture(scope="package")
def published_server() -> Iterator[str]:
    """The published boards (``leaderboard/results``)."""
    yield from serve_space(ROOT / "leaderboard" / "results", ROOT / "submissions")


@pytest.fixture(scope="package")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of results made to spoof and break the layout (issue 52, item 6)."""
    yield from serve_space(*write_hostile_fixture(tmp_path_factory.mktemp("hostile")))


@pytest.fixture(scope="package")
def chromium() -> Iterator[Any]:
    """One headless Debian Chromium for the browser tests (Playwright's sync API runs one at a
    time). Package-scoped: while open, the sync API keeps an event loop running in the main
    thread, which the tests after this package must not inherit."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium not installed (scripts/setup.sh --dev)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def published_page(chromium: Any, published_server: str) -> Iterator[Any]:
    """The published boards, as a visitor to the Space sees them (one page per test module)."""
    from tests.browser.space_page import open_page

    page = open_page(chromium, published_server)
    yield page
    page.close()
