"""Where README command 1's time goes: set-up, generation, then each family's scoring; prints tables.

Runs the quickstart's ``benchmark evaluate`` in a fresh folder with a fresh groundcover
home (every model call cold), in two steps so that each is timed apart: generation alone
(``--no-score``), then the same command, which finds the answers checkpointed and scores
them.  Each step's wall and CPU seconds and peak memory come from the operating system;
each (setting, family)'s seconds, and inside them each pipeline stage's seconds in model
calls, come from the result files (``run.durations_s``, ``run.cache.by_stage``), so the next
regression is seen at the stage it is in.  The machine's load is printed beside them.

Usage (after ``bash scripts/setup.sh``)::

    python benchmarks/quickstart_profile.py            # generation and scoring
    python benchmarks/quickstart_profile.py --setup    # and time scripts/setup.sh first (warm pip cache)
    python benchmarks/quickstart_profile.py --generation-batches 1,4,16   # generation alone, per batch size

``--generation-batches`` times the quickstart's generation alone (both settings, 24 answers, a
fresh home each: the one-time GGUF conversion is in every row) at each ``--batch-size``, and
checks that every batch size writes the same answers as the first (greedy decoding in float32
on the CPU; a batch pads prompts on the left, which must not change an answer).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "benchmark"
QUICKSTART = [
    "evaluate",
    "--model",
    "groundcover-offline",
    "--tasks",
    "webtrack-2009-2012",
    "--rag",
    "none,bm25",
]


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Wall and CPU seconds, and the peak RSS of the largest child so far (GB), of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_gb": after.ru_maxrss / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="store_true", help="time `bash scripts/setup.sh` first")
    ap.add_argument("--generation-batches", help="comma-separated batch sizes: time generation alone at each")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.generation_batches:
        generation_batches([int(b) for b in args.generation_batches.split(",")])
        return
    steps: list[tuple[str, dict[str, float]]] = []
    if args.setup:
        steps.append(
            ("set-up (scripts/setup.sh)", timed(["bash", "scripts/setup.sh"], REPO, dict(os.environ)))
        )
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        env = {**os.environ, "GROUNDCOVER_HOME": str(work / "home")}
        steps.append(
            ("generate 24 answers (--no-score)", timed([str(CLI), *QUICKSTART, "--no-score"], work, env))
        )
        steps.append(("score (5 families, 2 settings)", timed([str(CLI), *QUICKSTART], work, env)))
        print("\n| step | wall s | CPU s | peak RSS GB |\n|---|---|---|---|")
        for label, t in steps:
            print(f"| {label} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['peak_gb']:.2f} |")
        print(
            f"| **total** | {sum(t['wall'] for _, t in steps):.1f} | {sum(t['cpu'] for _, t in steps):.1f} | |"
        )

        results = [json.loads(p.read_text()) | {"_path": p} for p in (work / "results").rglob("*.json")]
        results.sort(key=lambda r: r["run"]["finished"])
        print("\n| setting | family | prepare s | score s | total s |\n|---|---|---|---|---|")
        for r in results:
            d = r["run"]["durations_s"]
            print(
                f"| {r['_path'].parts[-3]} | {r['metric_family']} | {d.get('prepare', 0):.1f} | "
                f"{d.get('score', 0):.1f} | {d.get('total', 0):.1f} |"
            )
        # the judge stack's counts run over the whole scoring process: the last result has them all
        by_stage = results[-1]["run"]["cache"].get("by_stage", {}) if results else {}
        print(
            "\n| stage (the whole scoring step) | calls | cached | seconds in model calls |\n|---|---|---|---|"
        )
        for stage, v in sorted(by_stage.items(), key=lambda kv: -kv[1]["seconds"])[:20]:
            print(f"| {stage} | {v['hits'] + v['misses']} | {v['hits']} | {v['seconds']:.1f} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _answers(folder: Path) -> dict[tuple[str, str], str]:
    out = {}
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[(path.parent.name, row["query_id"])] = row["answer"]
    return out


def generation_batches(sizes: list[int]) -> None:
    """Generation alone at each batch size, fresh home each; answers compared with the first's."""
    rows, first = [], None
    for size in sizes:
        with tempfile.TemporaryDirectory() as name:
            work = Path(name)
            env = {**os.environ, "GROUNDCOVER_HOME": str(work / "home")}
            argv = [str(CLI), *QUICKSTART, "--no-score", "--batch-size", str(size), "-o", str(work / "out")]
            t = timed(argv, work, env)
            answers = _answers(work / "out")
        first = first if first is not None else answers
        same = sum(answers.get(k) == v for k, v in first.items())
        rows.append((size, t, len(answers), same, len(first)))
        print(f"batch {size}: {t['wall']:.1f} s wall", flush=True)
    print("\n| batch size | answers | wall s | CPU s | peak RSS GB | answers equal to the first row's |")
    print("|---|---|---|---|---|---|")
    for size, t, n, same, total in rows:
        print(f"| {size} | {n} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['peak_gb']:.2f} | {same} of {total} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
