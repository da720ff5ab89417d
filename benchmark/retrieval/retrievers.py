"""A retriever of any kind, built from a profile's spec over a corpus, and candidate documents."""

from __future__ import annotations

import logging
from typing import Any

from benchmark.core.errors import InputError
from benchmark.models.cache import ModelCallCache, content_hash
from benchmark.models.profiles import EmbedderSpec, RetrieverSpec
from benchmark.retrieval.bm25 import BM25Retriever
from benchmark.retrieval.cached import CANDIDATES, CachedRetriever
from benchmark.retrieval.chunking import Passage, corpus_fingerprint
from benchmark.retrieval.corpora import CorpusRef, corpus_passages
from benchmark.retrieval.dense import DenseRetriever, tuned_nprobe
from benchmark.retrieval.hybrid import HybridRetriever
from benchmark.retrieval.index import Retriever

log = logging.getLogger(__name__)


def build_retriever(
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    passages: list[Passage] | None = None,
    *,
    lucene_index: str | None = None,
    cache: ModelCallCache | None = None,
    progress: bool = True,
    task_id: str | None = None,
) -> Retriever:
    """The retriever a judge profile asks for, over ``passages`` or an existing Lucene index
    (BM25 only: other kinds fall back to it with a warning, and ``identity`` says so).  An IVF
    index built here is tuned on the queries of tasks other than ``task_id``."""
    chunking = (spec.chunk_words, spec.chunk_overlap)
    if lucene_index is not None:
        if spec.kind != "bm25":
            log.warning("an existing Lucene index supports BM25 only; using BM25 instead of %s", spec.kind)
        return BM25Retriever(None, k1=spec.bm25_k1, b=spec.bm25_b, lucene_index=lucene_index)
    if not passages:
        raise InputError.at("corpus", "no passages to retrieve from (empty corpus?)")
    if spec.kind == "bm25":
        return BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b, chunking=chunking)
    dense = DenseRetriever(
        passages,
        spec,
        embedder,
        cache=cache,
        progress=progress,
        chunking=chunking,
        held_out=[task_id] if task_id else (),
    )
    if spec.kind == "dense":
        return dense
    bm25 = BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b, chunking=chunking)
    return HybridRetriever([bm25, dense], rrf_k=spec.rrf_k)


def open_retriever(
    ref: CorpusRef,
    task: Any,
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    *,
    cache: ModelCallCache | None = None,
    progress: bool = True,
) -> Retriever:
    """A retriever of kind ``spec.kind`` over the corpus ``ref`` names (indexes cached on disk)."""
    if ref.kind == "lucene":
        return build_retriever(spec, embedder, lucene_index=ref.path, cache=cache, progress=progress)
    return build_retriever(
        spec,
        embedder,
        corpus_passages(ref, task, spec),
        cache=cache,
        progress=progress,
        task_id=getattr(task, "id", None),
    )


def planned_identity(
    ref: CorpusRef,
    task: Any,
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    cache: ModelCallCache | None = None,
) -> dict[str, Any]:
    """The identity :func:`open_retriever` would give its retriever, computed from the corpus
    and the index's metadata alone (the IVF nprobe recorded beside a built index), so a dry
    run keys its plan exactly as the run will without building or opening an index."""
    from benchmark.models.embeddings import Embedder

    chunking = (spec.chunk_words, spec.chunk_overlap)
    if ref.kind == "lucene":
        return BM25Retriever.identity_of(None, None, spec.bm25_k1, spec.bm25_b, ref.path)
    passages = corpus_passages(ref, task, spec)
    if not passages:
        raise InputError.at("corpus", "no passages to retrieve from (empty corpus?)")
    bm25 = BM25Retriever.identity_of(corpus_fingerprint(passages), list(chunking), spec.bm25_k1, spec.bm25_b)
    if spec.kind == "bm25":
        return bm25
    parts, index_type, nlist, folder = DenseRetriever.layout(
        passages, spec, Embedder(embedder, cache).identity, chunking
    )
    nprobe = tuned_nprobe(folder, nlist, spec.ivf_recall_target) if nlist else None
    dense = DenseRetriever.identity_of(parts, index_type, nlist, nprobe)
    return dense if spec.kind == "dense" else HybridRetriever.identity_of([bm25, dense], spec.rrf_k)


def candidate_documents(retriever: Retriever, queries: list[str], n: int) -> list[list[str]]:
    """The ``n`` best documents per query, in rank order, each ranked by its best passage (MaxP).
    Through a :class:`~benchmark.retrieval.cached.CachedRetriever` the document ids alone are
    cached, not the thousands of passages read to find them."""
    if n <= 0:
        raise ValueError("the number of candidate documents must be positive")
    if isinstance(retriever, CachedRetriever):
        inner = retriever.inner
        return retriever.cache.cached_batch(
            CANDIDATES,
            content_hash(retriever.identity),
            [{"query": q, "n": n} for q in queries],
            lambda batch: _best_documents(inner, [p["query"] for p in batch], n),
        )
    return _best_documents(retriever, queries, n)


def _best_documents(retriever: Retriever, queries: list[str], n: int) -> list[list[str]]:
    depth = max(10 * n, 100)
    return [list(dict.fromkeys(h.doc_id for h in hits))[:n] for hits in retriever.search(queries, depth)]
