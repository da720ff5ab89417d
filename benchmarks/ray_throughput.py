"""Sharded scoring on Ray: queries/s with 1 and 2 local workers against one process; prints a table.

Each configuration runs ``benchmark score`` on the same answers (sentences of the starter
corpus's documents, as ``icat_throughput.py`` writes them) with the offline profile, each
with a cold model-call cache of its own; the indexes are built once beforehand, so no
configuration pays for them.  Per configuration the table gives the result file's own
timings (``run.durations_s``: prepare, score, aggregate — the driver's checkpoint merge
and aggregation —, total), the wall time of the command, and queries/s over the total.
Ray's columns include starting the local instance and each worker loading its models.

Usage::

    python benchmarks/ray_throughput.py                   # ICAT-M, 12 answers
    python benchmarks/ray_throughput.py --variants m,s,a  # with the LLM stages (much slower)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from icat_throughput import _write_reference_answers  # noqa: E402

from benchmark.core.results import read_result  # noqa: E402


def run(
    tmp: Path, label: str, answers: Path, variants: str, batch: int, extra: list[str]
) -> dict[str, float]:
    env = dict(
        os.environ,
        GROUNDCOVER_HOME=str(tmp / "home"),
        GROUNDCOVER_CACHE=str(tmp / f"{label}.sqlite"),
        HF_HUB_OFFLINE="1",
        RAY_AUTH_MODE="disabled",
    )
    results = tmp / f"results-{label}"
    cmd = [
        sys.executable, "-m", "benchmark", "score", "--outputs", str(answers), "--tasks", "webtrack-2009-2012",
        "--metrics", "icat", "--variants", variants, "--results-dir", str(results), "--query-batch", str(batch),
        "--no-progress", "--model-name", "reference-answers", *extra,
    ]  # fmt: skip
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=REPO)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{label} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    result = read_result(next(results.rglob("webtrack-2009-2012.icat.json")))
    return {**result.run.durations_s, "wall": wall, "n": float(result.task.queries.n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=12)
    ap.add_argument("--variants", default="m")
    ap.add_argument("--query-batch", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        answers = tmp / "answers.jsonl"
        _write_reference_answers(answers, args.answers)
        run(tmp, "warm-up", answers, args.variants, args.query_batch, [])  # builds the indexes
        configs = {
            "one process": [],
            "ray, 1 worker": ["--ray", "--ray-workers", "1"],
            "ray, 2 workers": ["--ray", "--ray-workers", "2"],
        }
        rows = {label: run(tmp, label.replace(" ", "-").replace(",", ""), answers, args.variants,
                           args.query_batch, extra) for label, extra in configs.items()}  # fmt: skip
    print(
        f"ICAT ({args.variants}) on webtrack-2009-2012, offline profile, {args.answers} answers, "
        f"--query-batch {args.query_batch}, cold model-call caches, {os.cpu_count()} CPUs"
    )
    head = f"{'configuration':<16} {'prepare s':>10} {'score s':>9} {'aggregate s':>12} {'total s':>8} {'wall s':>7} {'queries/s':>10}"
    print(head)
    print("-" * len(head))
    for label, r in rows.items():
        print(
            f"{label:<16} {r['prepare']:>10.1f} {r['score']:>9.1f} {r['aggregate']:>12.2f} {r['total']:>8.1f} "
            f"{r['wall']:>7.1f} {r['n'] / r['total']:>10.2f}"
        )


if __name__ == "__main__":
    main()
