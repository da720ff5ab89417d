"""ICAT throughput and memory on this machine; prints a table.

What it measures (each row says what it used):

* entailment claims/s, batched: every claim is checked against k=10 passages, so one
  claim costs 10 (passage, claim) pairs; cold = cache disabled.
* retrieval queries/s for BM25 and dense at 10k and 100k passages, and index build time
  (delegated to ``benchmarks/retrieval_throughput.py`` so both scripts agree).
* end-to-end seconds per answer of the ICAT pipeline on the starter corpus with the
  offline judge profile, with a cold cache (fresh GROUNDCOVER_HOME) and a warm one (same
  home, result files removed, so every model call is a cache hit).
* peak resident memory of this process.

Usage::

    python benchmarks/icat_throughput.py                 # everything (tens of minutes on 2 cores)
    python benchmarks/icat_throughput.py --quick         # smaller sizes, 3 answers
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def entailment_rate(n_claims: int, k: int = 10) -> list[tuple[str, str, str]]:
    from benchmark.models.cache import ModelCallCache
    from benchmark.models.entailment import load_entailment
    from benchmark.models.profiles import load_profile

    prof = load_profile()
    pairs_src = [
        json.loads(line)
        for line in (REPO / "tests/fixtures/entailment_pairs.jsonl").read_text().splitlines()
        if line.strip()
    ]
    pairs = [
        (p["premise"], p["hypothesis"] + f" ({i})")
        for i, p in enumerate(pairs_src * (n_claims * k // len(pairs_src) + 1))
    ][: n_claims * k]
    rows = []
    model = load_entailment(
        prof.entailment, embedder_model=prof.embedder.model, cache=ModelCallCache(enabled=False)
    )
    model.support_scores(pairs[:32])  # warm up weights
    t = time.perf_counter()
    model.support_scores(pairs)
    dt = time.perf_counter() - t
    rows.append(
        (
            f"entailment ({prof.entailment.kind}, batch {prof.entailment.batch_size}), cold",
            f"{n_claims / dt:.1f} claims/s",
            f"{len(pairs)} pairs in {dt:.1f}s, k={k}",
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        cache = ModelCallCache(Path(tmp) / "c.sqlite")
        model = load_entailment(prof.entailment, embedder_model=prof.embedder.model, cache=cache)
        model.support_scores(pairs)
        t = time.perf_counter()
        model.support_scores(pairs)
        dt = time.perf_counter() - t
        rows.append(
            ("entailment, warm cache", f"{n_claims / dt:.0f} claims/s", f"{cache.stats.hits} cache hits")
        )
    return rows


def end_to_end(n_answers: int) -> list[tuple[str, str, str]]:
    """Cold and warm runs of `benchmark score` in a fresh home; seconds per answer."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = dict(os.environ, GROUNDCOVER_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1")
        outputs = tmp_path / "answers.jsonl"
        _write_reference_answers(outputs, n_answers)
        cmd = [
            sys.executable,
            "-m",
            "benchmark",
            "score",
            "--outputs",
            str(outputs),
            "--tasks",
            "webtrack-2009-2012",
            "--results-dir",
            str(tmp_path / "results"),
            "--no-progress",
            "--model-name",
            "reference-answers",
        ]
        for label in ("cold cache", "warm cache"):
            shutil.rmtree(tmp_path / "results", ignore_errors=True)
            t = time.perf_counter()
            proc = subprocess.run(
                ["/usr/bin/time", "-v", *cmd], env=env, capture_output=True, text=True, check=False, cwd=REPO
            )
            dt = time.perf_counter() - t
            if proc.returncode != 0:
                rows.append((f"end-to-end, {label}", "FAILED", proc.stderr[-300:]))
                continue
            rss = next(
                (ln.split(":")[1].strip() for ln in proc.stderr.splitlines() if "Maximum resident" in ln), "?"
            )
            rows.append(
                (
                    f"end-to-end ICAT-M/S/A, {label}",
                    f"{dt / n_answers:.1f} s/answer",
                    f"{n_answers} answers, {dt:.0f}s total incl. model loading, peak RSS {int(rss) // 1024 if rss.isdigit() else rss} MB",
                )
            )
    return rows


def _write_reference_answers(path: Path, n: int) -> None:
    """Answers stitched from starter-corpus sentences, so some claims are groundable."""
    from benchmark.tasks import load_task

    task = load_task("webtrack-2009-2012")
    corpus = task.table("corpus")
    covered = task.card.corpus.covers_queries or []
    with open(path, "w", encoding="utf-8") as f:
        for qid in covered[:n]:
            docs = corpus[corpus["doc_id"].str.startswith(f"gc-starter-{qid}-")]["text"].tolist()
            answer = " ".join(" ".join(d.split(". ")[:2]) for d in docs[:3])
            f.write(
                json.dumps(
                    {"query_id": qid, "answer": answer, "model": "reference-answers", "revision": "none"}
                )
                + "\n"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--claims", type=int, default=200)
    ap.add_argument("--answers", type=int, default=5)
    ap.add_argument("--skip-retrieval", action="store_true")
    args = ap.parse_args()
    rows: list[tuple[str, str, str]] = []
    rows += entailment_rate(50 if args.quick else args.claims)
    rows += end_to_end(3 if args.quick else args.answers)
    if not args.skip_retrieval:
        sizes = "10000" if args.quick else "10000,100000"
        proc = subprocess.run(
            [sys.executable, str(REPO / "benchmarks/retrieval_throughput.py"), "--sizes", sizes],
            capture_output=True,
            text=True,
            check=False,
        )
        retrieval_table = (
            proc.stdout if proc.returncode == 0 else f"retrieval benchmark failed: {proc.stderr[-500:]}"
        )
    else:
        retrieval_table = "(skipped)"
    rows.append(("peak RSS of this process", f"{peak_rss_mb():.0f} MB", "entailment model + bookkeeping"))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'value':>18}  notes")
    print("-" * (width + 60))
    for name, value, note in rows:
        print(f"{name.ljust(width)}  {value:>18}  {note}")
    print("\nretrieval (benchmarks/retrieval_throughput.py):")
    print(retrieval_table)


if __name__ == "__main__":
    main()
