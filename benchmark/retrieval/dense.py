"""Dense retrieval: sentence embeddings in faiss (exact inner product, or IVF with an HNSW quantizer)."""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmark.core.errors import InputError
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import IVF_RECALL_TARGET, EmbedderSpec, RetrieverSpec
from benchmark.retrieval.chunking import Passage, corpus_fingerprint
from benchmark.retrieval.index import (
    Allowed,
    Hit,
    building,
    check_allowed,
    index_complete,
    index_home,
    index_key,
)

log = logging.getLogger(__name__)


def ivf_nlist(n: int) -> int:
    """IVF list count: ~4·√n (faiss guideline), at most n/39 so k-means has ≥39 points
    per centroid (below that faiss warns and the clusters are noise)."""
    return max(1, min(int(4 * math.sqrt(n)), n // 39))


def default_nprobe(nlist: int) -> int:
    """Lists searched per query when none was tuned: 1/16 of them, but at least 32 (1/16 alone
    misses too many neighbours on mid-sized corpora: recall@10 ≈ 0.8 at 10k passages in
    ``benchmarks/retrieval_throughput.py``)."""
    return min(nlist, max(32, nlist // 16))


#: rows of corpus vectors read, added or scanned at a time (64k × 384 float32 = 96 MB): the
#: build's memory is the index plus one chunk and the k-means sample, never a second corpus
CHUNK_ROWS = 65_536

#: held-out queries an IVF index is tuned on (a seeded sample of the pool): enough for a
#: recall estimate within about ±0.01, few enough to encode in seconds on a CPU
TUNING_QUERIES = 512


class VectorFile:
    """Float32 corpus vectors stored row after row in a file, read one chunk at a time: not
    memory-mapped, as every mapped page a pass touches counts in the peak resident set.  A flat
    faiss index ends with its vectors (:meth:`of_flat_index`), so IVF is built from it in place."""

    def __init__(self, path: Path, n: int, d: int, offset: int) -> None:
        self.path, self.shape, self.offset = Path(path), (n, d), offset

    @classmethod
    def of_flat_index(cls, path: Path) -> VectorFile:
        """The vectors inside a flat faiss index file, checked against faiss's own reading."""
        import faiss

        head = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC)  # maps the codes, reads none
        n, d = head.ntotal, head.d
        out = cls(path, n, d, path.stat().st_size - n * d * 4)
        for row in {0, n - 1}:
            if out.offset < 0 or not np.array_equal(out.read(row, row + 1)[0], head.reconstruct(row)):
                raise RuntimeError(f"{path}: not a flat index whose vectors end the file; delete it")
        return out

    def read(self, start: int, stop: int) -> np.ndarray:
        d = self.shape[1]
        with open(self.path, "rb") as f:
            f.seek(self.offset + start * d * 4)
            block = np.fromfile(f, dtype=np.float32, count=(stop - start) * d)
        return block.reshape(-1, d)


#: corpus vectors as an array in memory or a file read in chunks
Vectors = np.ndarray | VectorFile


def _shape(vectors: Vectors) -> tuple[int, int]:
    return vectors.shape if isinstance(vectors, VectorFile) else (len(vectors), vectors.shape[1])


def vector_chunks(vectors: Vectors, rows: int = CHUNK_ROWS) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, block)`` pairs covering ``vectors`` in order; an array's blocks are views."""
    n, _ = _shape(vectors)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        if isinstance(vectors, VectorFile):
            yield start, vectors.read(start, stop)
        else:
            yield start, np.ascontiguousarray(vectors[start:stop], dtype=np.float32)


def _take(vectors: Vectors, rows: np.ndarray, chunk: int) -> np.ndarray:
    """The given (sorted) rows, gathered chunk by chunk from a file."""
    if not isinstance(vectors, VectorFile):
        return np.ascontiguousarray(vectors[rows], dtype=np.float32)
    out = np.empty((len(rows), vectors.shape[1]), dtype=np.float32)
    done = 0
    for start, block in vector_chunks(vectors, chunk):
        mine = rows[(rows >= start) & (rows < start + len(block))]
        out[done : done + len(mine)] = block[mine - start]
        done += len(mine)
    return out


def exact_neighbours(vectors: Vectors, queries: np.ndarray, k: int, chunk: int = CHUNK_ROWS) -> np.ndarray:
    """Each query's top-``k`` rows by inner product, by brute force one chunk at a time (no
    second index, no second copy of the corpus)."""
    import faiss

    queries = np.ascontiguousarray(queries, dtype=np.float32)
    best_s = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_i = np.zeros((len(queries), 0), dtype=np.int64)
    for start, block in vector_chunks(vectors, chunk):
        s, i = faiss.knn(queries, block, min(k, len(block)), metric=faiss.METRIC_INNER_PRODUCT)
        best_s, best_i = np.hstack([best_s, s]), np.hstack([best_i, i + start])
        keep = np.argsort(-best_s, axis=1, kind="stable")[:, :k]
        best_s, best_i = np.take_along_axis(best_s, keep, 1), np.take_along_axis(best_i, keep, 1)
    return best_i


def recall_curve(
    index: Any, queries: np.ndarray, truth: np.ndarray, *, stop: float = 1.0
) -> list[tuple[int, float]]:
    """Recall@k against ``truth`` (exact neighbours) at nprobe 1, 2, 4, … until it reaches
    ``stop`` or every list is probed.  Recorded whole beside an index (``stop`` 1.0), it
    answers any recall target a profile sets without searching again."""
    import faiss

    queries = np.ascontiguousarray(queries, dtype=np.float32)
    nlist = faiss.extract_index_ivf(index).nlist
    k = truth.shape[1]
    curve: list[tuple[int, float]] = []
    nprobe = 1
    while True:
        set_nprobe(index, nprobe)
        _, got = index.search(queries, k)
        recall = float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(got, truth, strict=True)]))
        curve.append((nprobe, recall))
        if recall >= stop or nprobe >= nlist:
            return curve
        nprobe = min(nlist, nprobe * 2)


def nprobe_for(curve: Sequence[Sequence[float]], target: float) -> tuple[int, float]:
    """The fewest lists on a recall curve that reach ``target``, and the recall there (the
    curve's widest point when none does: every list probed)."""
    for nprobe, recall in curve:
        if recall >= target:
            return int(nprobe), float(recall)
    return int(curve[-1][0]), float(curve[-1][1])


def tune_nprobe(
    index: Any,
    vectors: Vectors,
    *,
    queries: np.ndarray,
    target: float = IVF_RECALL_TARGET,
    k: int = 10,
) -> tuple[int, float]:
    """The fewest lists (doubling from 1) an IVF index must probe for recall@``k`` ≥ ``target``
    against exact search on ``queries``, and the recall reached.  ``queries`` must be real
    query vectors held out from the benchmark's own: midpoints of corpus vectors sit closer
    to the corpus and choose too few lists (docs/measurements.md)."""
    truth = exact_neighbours(vectors, queries, min(k, _shape(vectors)[0]))
    return nprobe_for(recall_curve(index, queries, truth, stop=target), target)


def held_out_queries(
    exclude: Sequence[str] = (), *, limit: int = TUNING_QUERIES, seed: int = 0, root: Path | None = None
) -> dict[str, Any]:
    """Real query texts to tune an IVF index on: a seeded sample of at most ``limit`` of the
    shipped tasks' local query tables, less the tasks in ``exclude`` (read from the folders:
    validating a card needs the family registry, a layer above retrieval).  Returns
    ``{"texts": [...], "source": {task id: queries drawn}, "held_out": [...]}``."""
    import pandas as pd
    import yaml

    from benchmark.core import paths

    pool: list[tuple[str, str]] = []
    for card in sorted((root or paths.tasks_dir()).glob("*/task.yaml")):
        raw = yaml.safe_load(card.read_text(encoding="utf-8")) or {}
        data = raw.get("data") or {}
        task_id = str(raw.get("id", card.parent.name))
        table = (data.get("tables") or {}).get("queries")
        if task_id in exclude or data.get("kind") != "local" or not table:
            continue
        path = card.parent / data.get("path", ".") / table
        if path.exists():
            texts = pd.read_parquet(path, columns=["text"])["text"].dropna().astype(str)
            pool += [(task_id, t) for t in dict.fromkeys(texts) if t.strip()]
    if not pool:
        raise InputError.at("tasks", "no task queries to tune the IVF index's nprobe on", field="queries")
    rng = np.random.default_rng(seed)
    picked = sorted(rng.choice(len(pool), size=min(limit, len(pool)), replace=False))
    source = dict(Counter(pool[i][0] for i in picked))
    return {"texts": [pool[i][1] for i in picked], "source": source, "held_out": sorted(exclude)}


def build_faiss_index(vectors: Vectors, index_type: str, *, seed: int = 0, chunk: int = CHUNK_ROWS) -> Any:
    """A faiss index over normalised ``vectors`` (inner product = cosine).

    ``flat`` is exact.  ``ivf-hnsw`` is ``IVF<nlist>_HNSW32,Flat`` (an HNSW coarse quantizer
    keeps assignment fast with many lists: the paper's choice for large corpora), its k-means
    trained on a seeded sample of at most 64 points per list.  Vectors are added ``chunk`` rows
    at a time, so beside the index only one chunk of a :class:`VectorFile` is in memory.
    """
    import faiss

    if not isinstance(vectors, VectorFile):
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = _shape(vectors)
    if index_type == "flat":
        index = faiss.IndexFlatIP(d)
    elif index_type == "ivf-hnsw":
        nlist = ivf_nlist(n)
        index = faiss.index_factory(d, f"IVF{nlist}_HNSW32,Flat", faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = _take(vectors, np.sort(rng.choice(n, size=min(n, nlist * 64), replace=False)), chunk)
        faiss.extract_index_ivf(index).cp.seed = seed
        index.train(sample)
        del sample
        _fill_lists(index, vectors, chunk)
        return index
    else:
        raise ValueError(f"unknown dense index type {index_type!r}")
    for _, block in vector_chunks(vectors, chunk):
        index.add(block)
    return index


def _fill_lists(index: Any, vectors: Vectors, chunk: int) -> None:
    """Add every vector to a trained IVF-Flat index with each list allocated once, at its size:
    ``index.add``'s doubling growth leaves lists up to twice their size (0.6 GB of slack at
    1M × 384).  A first pass assigns rows to lists as ``add`` does, a second writes them in
    order: the lists, ids and codes ``add`` would give."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    n, _ = _shape(vectors)
    assign = np.empty(n, dtype=np.int64)
    for start, block in vector_chunks(vectors, chunk):
        assign[start : start + len(block)] = ivf.quantizer.assign(block, 1).ravel()
    counts = np.bincount(assign, minlength=ivf.nlist)
    lists = ivf.invlists
    for lst in np.flatnonzero(counts):
        lists.resize(int(lst), int(counts[lst]))
    filled = np.zeros(ivf.nlist, dtype=np.int64)
    for start, block in vector_chunks(vectors, chunk):
        mine = assign[start : start + len(block)]
        order = np.argsort(mine, kind="stable")  # within a list, rows keep their order
        ids, first = np.unique(mine[order], return_index=True)
        for lst, lo, hi in zip(ids, first, [*first[1:], len(order)], strict=True):
            rows = order[lo:hi]
            codes = np.ascontiguousarray(block[rows]).view(np.uint8)
            labels = (rows + start).astype(np.int64)
            lists.update_entries(
                int(lst), int(filled[lst]), len(rows), faiss.swig_ptr(labels), faiss.swig_ptr(codes)
            )
            filled[lst] += len(rows)
    ivf.ntotal = index.ntotal = n


def set_nprobe(index: Any, nprobe: int) -> None:
    """Search ``nprobe`` lists, and let the HNSW quantizer look at least that wide."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    ivf.nprobe = nprobe
    quantizer = faiss.downcast_index(ivf.quantizer)
    if hasattr(quantizer, "hnsw"):
        quantizer.hnsw.efSearch = max(64, 2 * nprobe)


def tuned_nprobe(folder: Path, nlist: int, target: float = IVF_RECALL_TARGET) -> int:
    """The nprobe that reaches recall ``target`` on the recall curve ``folder/nprobe.json``
    records (an older index: its one nprobe if tuned for this target; else
    :func:`default_nprobe`)."""
    try:
        tuned = json.loads((folder / "nprobe.json").read_text())
    except (OSError, ValueError):
        return default_nprobe(nlist)
    if isinstance(tuned.get("curve"), list) and tuned["curve"]:
        return nprobe_for(tuned["curve"], target)[0]
    if "nprobe" in tuned and tuned.get("target") == target:
        return int(tuned["nprobe"])
    return default_nprobe(nlist)


class DenseRetriever:
    """Sentence embeddings (``embeddings.Embedder``) searched with faiss.

    ``spec.dense_index``: ``flat`` (exact), ``ivf-hnsw``, or ``auto`` — IVF-HNSW above
    ``spec.ivf_threshold`` passages.  An IVF index reuses the vectors of the corpus's flat
    index where it exists, records in ``nprobe.json`` its recall curve on real queries of the
    other tasks (``held_out``: the task being scored), and is searched at the fewest lists
    that reach ``spec.ivf_recall_target``.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        spec: RetrieverSpec,
        embedder_spec: EmbedderSpec,
        *,
        cache: ModelCallCache | None = None,
        progress: bool = True,
        nprobe: int | None = None,
        chunking: tuple[int, int] | None = None,
        held_out: Sequence[str] = (),
    ) -> None:
        import faiss

        from benchmark.models.embeddings import Embedder

        if not passages:
            raise InputError.at("corpus", "no passages to index")
        self.embedder = Embedder(embedder_spec, cache)
        self.passages = list(passages)
        self._rows_by_doc: dict[str, list[int]] = {}
        for row, p in enumerate(self.passages):
            self._rows_by_doc.setdefault(p.doc_id, []).append(row)
        n = len(self.passages)
        parts, index_type, self.nlist, final = self.layout(
            self.passages, spec, self.embedder.identity, chunking
        )
        self.index_type = index_type
        self.recall_target = spec.ivf_recall_target
        self.reused = index_complete(final)
        built: Any = None
        if self.reused:
            log.info("reusing dense index %s", final)
        else:
            meta = dict(parts, index=index_type, nlist=self.nlist, passages=n, model=self.embedder.model_id)
            with building(final, meta) as tmp:
                vectors = self._vectors(parts, progress, tmp)
                built = build_faiss_index(vectors, index_type)
                faiss.write_index(built, str(tmp / "index.faiss"))
                if self.nlist:
                    (tmp / "nprobe.json").write_text(
                        json.dumps(self._tune(built, vectors, held_out), indent=1)
                    )
                del vectors
                (tmp / "vectors.f32").unlink(missing_ok=True)
        # the index just built is the one written; a reused IVF index is memory-mapped, so a
        # search reads the lists it probes and the rest stays on disk (flat ones are read whole)
        if built is not None:
            self.index = built
        else:
            flags = faiss.IO_FLAG_MMAP if index_type != "flat" else 0
            self.index = faiss.read_index(str(final / "index.faiss"), flags)
        del built
        if self.index.ntotal != n:
            raise RuntimeError(
                f"dense index {final} holds {self.index.ntotal} vectors for {n} passages; delete it"
            )
        self.nprobe = (nprobe or tuned_nprobe(final, self.nlist, self.recall_target)) if self.nlist else None
        self.identity: dict[str, Any] = self.identity_of(parts, index_type, self.nlist, self.nprobe)
        if self.nprobe is not None:
            set_nprobe(self.index, self.nprobe)
        self.index_path = str(final)

    @staticmethod
    def identity_of(
        parts: dict[str, Any], index_type: str, nlist: int | None, nprobe: int | None
    ) -> dict[str, Any]:
        """What a dense retriever records: its index's :meth:`layout` parts and how it is searched."""
        return {**parts, "index": index_type, "nlist": nlist, "nprobe": nprobe}

    @staticmethod
    def layout(
        passages: Sequence[Passage],
        spec: RetrieverSpec,
        embedder_identity: str,
        chunking: tuple[int, int] | None,
    ) -> tuple[dict[str, Any], str, int | None, Path]:
        """What names a dense index — its identity's parts, index type, IVF lists, folder —
        computed from the passages alone, before anything is embedded (also by a dry run)."""
        index_type = spec.dense_index
        if index_type == "auto":
            index_type = "ivf-hnsw" if len(passages) > spec.ivf_threshold else "flat"
        chunk = list(chunking) if chunking else None
        parts = {
            "kind": "dense",
            "corpus": corpus_fingerprint(passages),
            "chunking": chunk,
            "embedder": embedder_identity,
        }
        nlist = ivf_nlist(len(passages)) if index_type == "ivf-hnsw" else None
        folder = index_home("dense", index_key(**parts, index=index_type, nlist=nlist))
        return parts, index_type, nlist, folder

    def _vectors(self, parts: dict[str, Any], progress: bool, tmp: Path) -> VectorFile:
        """The corpus's vectors as a file read in chunks, never loaded whole: an existing flat
        index of the corpus, or the passages encoded a chunk at a time into ``tmp/vectors.f32``."""
        flat = index_home("dense", index_key(**parts, index="flat", nlist=None))
        if self.index_type != "flat" and index_complete(flat):
            log.info("taking corpus embeddings from %s", flat)
            return VectorFile.of_flat_index(flat / "index.faiss")
        log.info(
            "embedding %d passages with %s for a %s faiss index",
            len(self.passages),
            self.embedder.model_id,
            self.index_type,
        )
        path, d = tmp / "vectors.f32", 0
        with open(path, "wb") as f:
            for start in range(0, len(self.passages), CHUNK_ROWS):
                texts = [p.text for p in self.passages[start : start + CHUNK_ROWS]]
                block = self.embedder.encode(texts, kind="passage", progress=progress)
                np.ascontiguousarray(block, dtype=np.float32).tofile(f)
                d = block.shape[1]
        return VectorFile(path, len(self.passages), d, 0)

    def _tune(self, index: Any, vectors: Vectors, held_out: Sequence[str]) -> dict[str, Any]:
        """What ``nprobe.json`` records: the recall curve on held-out queries, the nprobe the
        profile's recall target needs, and which queries measured it."""
        queries = held_out_queries(held_out)
        vecs = self.embedder.encode(queries["texts"], kind="query")
        truth = exact_neighbours(vectors, vecs, min(10, len(self.passages)))
        curve = recall_curve(index, vecs, truth)
        nprobe, recall = nprobe_for(curve, self.recall_target)
        log.info(
            "nprobe %d of %d lists: recall@10 %.3f against exact search on %d held-out queries",
            nprobe,
            self.nlist,
            recall,
            len(queries["texts"]),
        )
        return {
            "nprobe": nprobe,
            "recall_at_10": recall,
            "target": self.recall_target,
            "curve": curve,
            "queries": {
                "source": queries["source"],
                "count": len(queries["texts"]),
                "held_out_tasks": queries["held_out"],
                "encoder": self.embedder.identity,
            },
        }

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        """Top-``k`` passages per query by cosine similarity; with ``allowed``, through a faiss
        ``IDSelectorBatch`` of the allowed documents' passages (on IVF, in the probed lists only)."""
        if not queries:
            return []
        import faiss

        allow = check_allowed(queries, allowed)
        vecs = self.embedder.encode(queries, kind="query")
        out: list[list[Hit]] = [[] for _ in queries]
        free = [i for i, a in enumerate(allow) if a is None]
        if free:
            scores, ids = self.index.search(vecs[free], k)
            for qi, row_s, row_i in zip(free, scores, ids, strict=True):
                out[qi] = self._hits(row_s, row_i)
        for qi, ok in enumerate(allow):
            if ok is None:
                continue
            rows = np.asarray(sorted(r for d in ok for r in self._rows_by_doc.get(d, ())), dtype=np.int64)
            if rows.size == 0:
                continue
            sel = faiss.IDSelectorBatch(rows)
            params = (
                faiss.SearchParametersIVF(sel=sel, nprobe=self.nprobe)
                if self.nprobe is not None
                else faiss.SearchParameters(sel=sel)
            )
            scores, ids = self.index.search(vecs[qi : qi + 1], min(k, int(rows.size)), params=params)
            out[qi] = self._hits(scores[0], ids[0])
        return out

    def _hits(self, row_s: np.ndarray, row_i: np.ndarray) -> list[Hit]:
        hits: list[Hit] = []
        for s, i in zip(row_s, row_i, strict=True):
            if i < 0:  # fewer than k vectors reachable
                continue
            p = self.passages[int(i)]
            hits.append(Hit(p.passage_id, p.doc_id, p.text, float(s), len(hits) + 1))
        return hits
