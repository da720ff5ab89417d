"""Peak memory of the dense retriever itself at 1M passages: building its IVF-HNSW index, then serving it.

``retrieval_throughput.py`` holds every index at once to compare them, so its peak is not
what a scoring run needs.  Here each phase is a fresh process running the real
``DenseRetriever`` over 1M synthetic passages (as in ``retrieval_throughput.py``):

* **build** — the retriever builds its IVF-HNSW index (k-means on a sample, adding the
  vectors a chunk at a time as it reads them from a flat index of the corpus on disk, the
  path it takes when one exists; then the recall curve on 512 real queries held out from
  the task's own, MiniLM-encoded, which picks nprobe for the recall target).  The vectors are synthetic (mixes of real MiniLM vectors
  of 1,000 passages, as in ``retrieval_throughput.py``): embedding 1M passages on a CPU
  takes most of a day, and the vectors' values do not change the memory;
* **serve** — a new process opens the built index (as every later run does) and answers
  1,000 real MiniLM-encoded queries (the benchmark's queries: 8-word windows of the
  passages, as in ``retrieval_throughput.py``); after its peak is read, their recall@10
  against exact search over the same vectors is measured (read from the flat index in
  chunks), so the q/s stands beside the recall it bought.

Each row gives the process's peak RSS from the moment the retriever is opened (``VmHWM``,
reset after the synthetic corpus is generated: generating it peaks far above what its texts
keep), and its RSS at that moment (Python, the imports and the 1M passage texts, which the
retriever keeps), and the 1-minute load average as the phase ended (the machine is shared:
read rates against it).

Usage::

    python benchmarks/retriever_memory.py                  # 1M passages
    python benchmarks/retriever_memory.py --passages 200000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from retrieval_throughput import (  # noqa: E402
    EMBEDDER,
    jittered,
    queries_from,
    synthetic_passages,
    vocabulary,
)


def status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field)) / 1024


def reset_peak() -> None:
    """Start the peak (VmHWM) afresh: generating the synthetic corpus peaks far above what
    its texts keep, and that is the benchmark's cost, not the retriever's (Linux only)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def specs() -> tuple[object, object]:
    from benchmark.models.profiles import EmbedderSpec, RetrieverSpec

    return RetrieverSpec(kind="dense", dense_index="ivf-hnsw"), EmbedderSpec(model=EMBEDDER, batch_size=64)


def prepare(n: int, sample: int) -> None:
    """The flat index of the corpus's (synthetic) vectors, where the retriever looks for it."""
    import faiss

    from benchmark.models.cache import ModelCallCache
    from benchmark.models.embeddings import Embedder
    from benchmark.retrieval.dense import DenseRetriever
    from benchmark.retrieval.index import building

    words, p = vocabulary()
    passages = synthetic_passages(n, words, p)
    spec, emb_spec = specs()
    embedder = Embedder(emb_spec, ModelCallCache(enabled=False))  # type: ignore[arg-type]
    parts, _, _, _ = DenseRetriever.layout(passages, spec, embedder.identity, None)  # type: ignore[arg-type]
    flat_spec = spec.model_copy(update={"dense_index": "flat"})  # type: ignore[attr-defined]
    _, _, _, folder = DenseRetriever.layout(passages, flat_spec, embedder.identity, None)
    real = embedder.encode([x.text for x in passages[:sample]], kind="passage")
    vecs = jittered(real, n)
    index = faiss.IndexFlatIP(vecs.shape[1])
    index.add(vecs)
    with building(folder, {**parts, "index": "flat", "nlist": None, "passages": n}) as tmp:
        faiss.write_index(index, str(tmp / "index.faiss"))


def phase(name: str, n: int, queries: int) -> dict[str, float]:
    from benchmark.retrieval.dense import (
        DenseRetriever,
        VectorFile,
        exact_neighbours,
        nprobe_for,
        recall_curve,
    )

    words, p = vocabulary()
    passages = synthetic_passages(n, words, p)
    texts_mb = status_mb("VmRSS")
    reset_peak()
    spec, emb_spec = specs()
    t0 = time.perf_counter()
    retriever = DenseRetriever(passages, spec, emb_spec, progress=False)  # type: ignore[arg-type]
    opened = time.perf_counter() - t0
    out = {"open_s": opened, "texts_mb": texts_mb, "nprobe": float(retriever.nprobe or 0)}
    folder = Path(retriever.index_path)
    tuned = json.loads((folder / "nprobe.json").read_text())
    out["tuning_recall"] = tuned["recall_at_10"]
    out["tuning_queries"] = tuned["queries"]["count"]
    out["nlist"] = float(retriever.nlist or 0)
    if name == "serve":
        qs = queries_from(passages, queries)
        retriever.search(["load the query encoder"], 10)  # its model loads on first use: not timed
        t0 = time.perf_counter()
        retriever.search(qs, 10)  # encoding included, as a scoring run pays it
        out["qps"] = queries / (time.perf_counter() - t0)
        qvecs = retriever.embedder.encode(qs, kind="query")
        t0 = time.perf_counter()
        _, got = retriever.index.search(qvecs, 10)
        out["faiss_qps"] = queries / (time.perf_counter() - t0)
        out["peak_mb"] = status_mb("VmHWM")
        flat = next(p for p in folder.parent.iterdir() if p != folder and (p / "COMPLETE").exists())
        truth = exact_neighbours(VectorFile.of_flat_index(flat / "index.faiss"), qvecs, 10)
        out["recall"] = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(got, truth, strict=True)]))
        # what the curve would have chosen had the benchmark's own queries tuned it
        own = recall_curve(retriever.index, qvecs, truth, stop=spec.ivf_recall_target)  # type: ignore[attr-defined]
        out["own_nprobe"], out["own_recall"] = nprobe_for(own, spec.ivf_recall_target)  # type: ignore[attr-defined]
    out.setdefault("peak_mb", status_mb("VmHWM"))
    out["load1"] = os.getloadavg()[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passages", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--sample", type=int, default=1000, help="passages embedded for real")
    ap.add_argument("--phase", choices=["build", "serve"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:  # a child: one phase, its numbers as JSON on the last line
        print(json.dumps(phase(args.phase, args.passages, args.queries)))
        return
    home = tempfile.mkdtemp(prefix="gc-retriever-memory-")
    env = {**os.environ, "GROUNDCOVER_HOME": home, "TOKENIZERS_PARALLELISM": "false"}
    try:
        os.environ.update(env)
        prepare(args.passages, args.sample)
        rows = {}
        for name in ("build", "serve"):
            done = subprocess.run(
                [sys.executable, __file__, "--phase", name, "--passages", str(args.passages),
                 "--queries", str(args.queries)],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
            rows[name] = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"dense retriever, {args.passages:,} passages of 100 words, {os.cpu_count()} CPUs, "
        f"recall target 0.95, nlist {rows['build']['nlist']:.0f}"
    )
    print(f"{'phase':<7} {'open s':>8} {'peak RSS':>10} {'before it':>10} {'load':>5}  detail")
    for name, r in rows.items():
        if name == "build":
            detail = (
                f"nprobe {r['nprobe']:.0f} chosen on {r['tuning_queries']:.0f} held-out task queries, "
                f"recall@10 {r['tuning_recall']:.3f} on them"
            )
        else:
            detail = (
                f"nprobe {r['nprobe']:.0f}: recall@10 {r['recall']:.3f} on the benchmark's "
                f"{args.queries:,} queries at {r['qps']:,.0f} q/s end to end, {r['faiss_qps']:,.0f} q/s "
                f"faiss only; these queries alone would need nprobe {r['own_nprobe']:.0f} "
                f"(recall {r['own_recall']:.3f})"
            )
        print(
            f"{name:<7} {r['open_s']:>8.1f} {r['peak_mb']:>7,.0f} MB {r['texts_mb']:>7,.0f} MB "
            f"{r['load1']:>5.2f}  {detail}"
        )


if __name__ == "__main__":
    main()
