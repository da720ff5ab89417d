"""Dense retrieval: sentence embeddings in faiss (exact inner product, or IVF with an HNSW quantizer)."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmark.core.errors import InputError, Problem
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import EmbedderSpec, RetrieverSpec
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
    """Lists searched per query: 1/16 of them, but at least 32.

    The floor matters for mid-sized corpora, where 1/16 of the lists misses too many
    neighbours (recall@10 vs exact ≈ 0.8 at 10k passages with 16 of 256 lists in
    ``benchmarks/retrieval_throughput.py``); above ~250k passages 1/16 dominates.
    Pass ``nprobe=`` to :class:`DenseRetriever` to trade recall for speed.
    """
    return min(nlist, max(32, nlist // 16))


#: recall@10 against exact search that :func:`tune_nprobe` asks of an IVF index
RECALL_TARGET = 0.95


def tune_nprobe(
    index: Any,
    vectors: np.ndarray,
    *,
    target: float = RECALL_TARGET,
    k: int = 10,
    sample: int = 256,
    seed: int = 0,
    queries: np.ndarray | None = None,
) -> tuple[int, float]:
    """The fewest lists (doubling from 1) an IVF index must probe for recall@``k`` ≥ ``target``
    against exact search, and the recall reached.

    A constant share of the lists is too few on mid-sized corpora and wasteful on large
    ones; the recall a user gets is what should be fixed.  Without ``queries`` (at build
    time, when none are known) they are midpoints of two random corpus vectors (a corpus
    vector alone would find itself in its own list and flatter the index).  The exact
    neighbours are found by brute force over ``vectors`` without a second index, so
    tuning costs no memory beyond the index itself.
    """
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n = len(vectors)
    if queries is None:
        rng = np.random.default_rng(seed)
        m = min(sample, n)
        queries = vectors[rng.choice(n, size=m)] + vectors[rng.choice(n, size=m)]
        queries /= np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    _, truth = faiss.knn(queries, vectors, min(k, n), metric=faiss.METRIC_INNER_PRODUCT)
    nlist = faiss.extract_index_ivf(index).nlist
    nprobe, recall = 1, 0.0
    while True:
        set_nprobe(index, nprobe)
        _, got = index.search(queries, min(k, n))
        recall = float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(got, truth, strict=True)]))
        if recall >= target or nprobe >= nlist:
            return nprobe, recall
        nprobe = min(nlist, nprobe * 2)


def build_faiss_index(vectors: np.ndarray, index_type: str, *, seed: int = 0) -> Any:
    """A faiss index over normalised ``vectors`` (inner product = cosine).

    ``flat`` is exact.  ``ivf-hnsw`` is ``IVF<nlist>_HNSW32,Flat``: an inverted file
    whose coarse quantizer is itself an HNSW graph, so assigning a query to its lists
    stays fast with many lists — the paper's choice for large corpora.  k-means is
    trained on a seeded sample of at most 64 points per list.
    """
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = vectors.shape
    if index_type == "flat":
        index = faiss.IndexFlatIP(d)
    elif index_type == "ivf-hnsw":
        nlist = ivf_nlist(n)
        index = faiss.index_factory(d, f"IVF{nlist}_HNSW32,Flat", faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vectors[np.sort(rng.choice(n, size=min(n, nlist * 64), replace=False))]
        faiss.extract_index_ivf(index).cp.seed = seed
        index.train(sample)
    else:
        raise ValueError(f"unknown dense index type {index_type!r}")
    index.add(vectors)
    return index


def set_nprobe(index: Any, nprobe: int) -> None:
    """Search ``nprobe`` lists, and let the HNSW quantizer look at least that wide."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    ivf.nprobe = nprobe
    quantizer = faiss.downcast_index(ivf.quantizer)
    if hasattr(quantizer, "hnsw"):
        quantizer.hnsw.efSearch = max(64, 2 * nprobe)


def tuned_nprobe(folder: Path, nlist: int) -> int:
    """The nprobe chosen for the recall target when the index in ``folder`` was built (an
    index built before tuning existed, or not built yet: the old share of the lists)."""
    try:
        return int(json.loads((folder / "nprobe.json").read_text())["nprobe"])
    except (OSError, ValueError, KeyError):
        return default_nprobe(nlist)


class DenseRetriever:
    """Sentence embeddings (``embeddings.Embedder``) searched with faiss.

    ``spec.dense_index``: ``flat`` (exact), ``ivf-hnsw``, or ``auto`` — IVF-HNSW above
    ``spec.ivf_threshold`` passages.  Corpus embeddings live inside the faiss index
    (both index types store full vectors); an IVF index for a corpus whose flat index
    exists reuses those vectors instead of encoding the corpus again.
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
    ) -> None:
        import faiss

        from benchmark.models.embeddings import Embedder

        if not passages:
            raise InputError(Problem("corpus", "no passages to index"))
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
        self.reused = index_complete(final)
        built: Any = None
        if self.reused:
            log.info("reusing dense index %s", final)
        else:
            vecs, source = self._vectors(parts, progress)
            meta = {
                **parts,
                "index": index_type,
                "nlist": self.nlist,
                "passages": n,
                "model": self.embedder.model_id,
            }
            with building(final, meta) as tmp:
                built = build_faiss_index(vecs, index_type)
                faiss.write_index(built, str(tmp / "index.faiss"))
                if self.nlist:
                    tuned, recall = tune_nprobe(built, vecs)
                    log.info(
                        "nprobe %d of %d lists: recall@10 %.3f against exact search",
                        tuned,
                        self.nlist,
                        recall,
                    )
                    (tmp / "nprobe.json").write_text(
                        json.dumps({"nprobe": tuned, "recall_at_10": recall, "target": RECALL_TARGET})
                    )
            del vecs, source  # the index holds its own copy: one corpus of vectors in memory, not three
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
        self.nprobe = (nprobe or tuned_nprobe(final, self.nlist)) if self.nlist else None
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
        return (
            parts,
            index_type,
            nlist,
            index_home("dense", index_key(**parts, index=index_type, nlist=nlist)),
        )

    def _vectors(self, parts: dict[str, Any], progress: bool) -> tuple[np.ndarray, Any]:
        """The corpus's vectors, and what owns their memory (keep it while they are used):
        an existing flat index's own storage, viewed without a copy, or a new array."""
        import faiss

        flat = index_home("dense", index_key(**parts, index="flat", nlist=None))
        if self.index_type != "flat" and index_complete(flat):
            log.info("taking corpus embeddings from %s", flat)
            owner = faiss.read_index(str(flat / "index.faiss"))
            n, d = owner.ntotal, owner.d
            return faiss.rev_swig_ptr(owner.get_xb(), n * d).reshape(n, d), owner
        log.info(
            "embedding %d passages with %s for a %s faiss index",
            len(self.passages),
            self.embedder.model_id,
            self.index_type,
        )
        vecs = self.embedder.encode([p.text for p in self.passages], kind="passage", progress=progress)
        return vecs, vecs

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        """Top-``k`` passages per query by cosine similarity (query embeddings cached).

        With ``allowed``, each query is searched through a faiss ``IDSelectorBatch`` over
        the passages of its allowed documents: exact on a flat index; on IVF-HNSW only
        the ``nprobe`` probed lists are searched, as for an unrestricted query.
        """
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
