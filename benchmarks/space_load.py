"""The Space's page weight and first paint, before and after a change, in one run; prints a table.

Serves the published boards (this checkout's ``leaderboard/results`` and ``submissions``) with
two versions of the app side by side: ``--before`` (a git revision, checked out into a
temporary worktree and put first on ``PYTHONPATH``) and this working tree.  Each is opened in
the browser tests' conditions — Debian's headless Chromium, a fresh page at 1366 × 768, on
this machine with whatever else runs on it — alternately, ``--runs`` times each, so that
both see the same load.  Per open it measures, from the page's own clock
(``performance.now()``, 0 = navigation start):

* **weight**: bytes received (encoded, headers included, as Chrome's DevTools count them)
  by the time the first tab's figures are all drawn;
* **table**: when the first board's first row is on screen;
* **first figure**: when the first figure's SVG is drawn (its sketch, where the page has one,
  or Plotly's figure);
* **Plotly**: when Plotly has drawn its first figure (the figure a visitor can hover and zoom);
* **row → details**: a click on the DecompScore board's first row until its model card is
  shown (the slowest board to open, in issue 52).

Usage (after ``bash scripts/setup.sh --dev``)::

    python benchmarks/space_load.py --before main          # main against the working tree
    python benchmarks/space_load.py --before HEAD~3 --runs 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAPTOP = {"width": 1366, "height": 768}

#: records, on the page's clock, when the first board row and the first drawn figure appear
#: and when the model card fills (the observer watches the whole document, so nothing polls)
MARKS_JS = """(() => {
    window.__gc = {};
    const seen = (key, sel, test) => {
        const el = document.querySelector(sel);
        if (window.__gc[key] === undefined && el && (!test || test(el))) window.__gc[key] = performance.now();
    };
    new MutationObserver(() => {
        seen('table', '.gc-board .virtual-row');
        seen('figure', '.gc-figure .js-plotly-plot .main-svg, .gc-sketch svg');
        seen('plotly', '.gc-figure .js-plotly-plot .main-svg');
        if (window.__gc.clicked !== undefined)
            seen('details', '#gc-card', el => el.innerText.trim().length > 0);
    }).observe(document, {subtree: true, childList: true, characterData: true});
})();"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(code: Path, home: Path) -> Iterator[str]:
    """``benchmark space serve`` of the package in ``code`` over the published results, with
    ``home`` as groundcover's home; what the app prepares once for every later start (Plotly's
    bundle precompressed, where the version has that) is made before the clock starts, so
    that the opens measure a Space that has been up a while, as a visitor finds it."""
    port = _free_port()
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONPATH": str(code),
        "GROUNDCOVER_HOME": str(home),
    }
    prepare = "import importlib.util as u\nif u.find_spec('benchmark.space.serving'):\n    from benchmark.space.serving import precompress; precompress()"
    subprocess.run([sys.executable, "-c", prepare], cwd=code, env=env, check=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmark", "space", "serve", "--port", str(port),
         "--results-dir", str(REPO / "leaderboard" / "results"),
         "--submissions-dir", str(REPO / "submissions")],
        cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.time() + 300
        while True:  # the port opens once the app is built
            if proc.poll() is not None:
                raise RuntimeError(f"the space in {code} exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError(f"the space in {code} did not start in 300 s") from None
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def open_once(browser: object, url: str) -> dict[str, float]:
    """One fresh page: weight until the first tab's figures are drawn, and the marks."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    finished: dict[str, float] = {}
    streamed: dict[str, float] = {}
    cdp.on("Network.loadingFinished", lambda e: finished.__setitem__(e["requestId"], e["encodedDataLength"]))
    cdp.on(
        "Network.dataReceived",
        lambda e: streamed.__setitem__(
            e["requestId"], streamed.get(e["requestId"], 0) + e["encodedDataLength"]
        ),
    )
    page.add_init_script(MARKS_JS)
    page.goto(url, timeout=300_000)
    figures = page.locator(".gc-figure:visible")
    expect(figures.first.locator(".js-plotly-plot .main-svg").first).to_be_attached(timeout=300_000)
    for i in range(figures.count()):
        expect(figures.nth(i).locator(".js-plotly-plot .main-svg").first).to_be_attached(timeout=300_000)
    page.wait_for_function("document.readyState === 'complete'")
    weight = sum(finished.values()) + sum(v for k, v in streamed.items() if k not in finished)
    marks = page.evaluate("window.__gc")
    page.get_by_role("tab", name="DecompScore", exact=True).click()
    row = page.locator("#gc-table-decompscore .virtual-row").first
    expect(row).to_be_visible(timeout=300_000)
    page.evaluate("window.__gc.clicked = performance.now()")
    row.locator(".body-cell").nth(1).click()
    expect(page.locator("#gc-card")).not_to_be_empty(timeout=300_000)
    page.wait_for_function("window.__gc.details !== undefined")
    after = page.evaluate("window.__gc")
    page.close()
    return {
        "weight": weight / 1e6,
        "table": marks["table"] / 1000,
        "figure": marks["figure"] / 1000,
        "plotly": marks["plotly"] / 1000,
        "details": (after["details"] - after["clicked"]) / 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", default="main", help="git revision to compare with (default: main)")
    ap.add_argument("--runs", type=int, default=3, help="opens per version (default: 3)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="space-before-") as tmp:
        old = Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(old), args.before], check=True
        )
        try:
            with (
                serve(old, Path(tmp) / "home-before") as before_url,
                serve(REPO, Path(tmp) / "home-after") as after_url,
                sync_playwright() as p,
            ):
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                got: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
                for _ in range(args.runs):
                    for name, url in (("before", before_url), ("after", after_url)):
                        got[name].append(open_once(browser, url))
                browser.close()
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
    load = os.getloadavg()
    print(f"Space, published boards, Chromium {LAPTOP['width']}x{LAPTOP['height']}, {args.runs} opens each, "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")  # fmt: skip
    print(f"before = {args.before}, after = working tree; median [min–max]")
    keys = ("weight", "table", "figure", "plotly", "details")
    heads = ("weight MB", "table s", "first figure s", "Plotly s", "row → details s")
    print(f"{'':<8}" + "".join(f" {h:>18}" for h in heads))
    for name, runs in got.items():
        cells = []
        for key in keys:
            xs = [r[key] for r in runs]
            cells.append(f"{statistics.median(xs):.2f} [{min(xs):.2f}–{max(xs):.2f}]")
        print(f"{name:<8}" + "".join(f" {c:>18}" for c in cells))
    print("targets (issue 52): weight ≤ 1.5 MB, first figure ≤ 2 s")


if __name__ == "__main__":
    main()
