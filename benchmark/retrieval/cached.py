"""Search results cached by content hash, like every model call; and the retriever a dry run opens.

A search is fixed by the retriever's identity and the query, depth and candidate documents,
so a re-run grounds its claims without searching again, and a dry run replays a finished
run's searches from the cache (:class:`PlannedRetriever` never searches).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from benchmark.models.cache import ModelCallCache, content_hash
from benchmark.retrieval.index import Allowed, Hit, Retriever, check_allowed

NAMESPACE = "retrieve"
#: a query's best documents (ICAT's candidate documents): their ids only
CANDIDATES = "candidates"


def _hits(rows: list[dict[str, Any]]) -> list[Hit]:
    return [Hit(r["passage_id"], r["doc_id"], r["text"], float(r["score"]), int(r["rank"])) for r in rows]


def _rows(hits: list[Hit]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(h) for h in hits]


class CachedRetriever:
    """A retriever whose searches go through the content-hash cache (namespace ``retrieve``)."""

    def __init__(self, inner: Retriever, cache: ModelCallCache) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = inner.identity

    def __getattr__(self, name: str) -> Any:  # passage lookups and the like of the wrapped retriever
        return getattr(self.inner, name)

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        sets = check_allowed(queries, allowed)
        payloads = [
            {"query": q, "k": k, "allowed": sorted(a) if a is not None else None}
            for q, a in zip(queries, sets, strict=True)
        ]

        def compute(batch: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
            found = self.inner.search(
                [p["query"] for p in batch],
                k,
                [set(p["allowed"]) if p["allowed"] is not None else None for p in batch],
            )
            return [_rows(h) for h in found]

        rows = self.cache.cached_batch(NAMESPACE, content_hash(self.identity), payloads, compute)
        return [_hits(r) for r in rows]


class PlannedRetriever:
    """What a dry run opens instead of an index: the real retriever's identity, no search."""

    def __init__(self, identity: dict[str, Any], passage_text: Any = None) -> None:
        self.identity = identity
        self.passage_text = passage_text

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        raise RuntimeError("a dry run does not search an index; its searches are answered by the planner")


def placeholder_hits(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """What a dry run assumes an uncached search returns: ``k`` distinct passages of distinct
    documents (the most a real search returns, so the stages after it are counted at most)."""
    query = str(payload["query"])
    return [
        {
            "passage_id": f"(passage {rank} for {content_hash(query)[:8]})",
            "doc_id": f"(document {rank})",
            "text": f"(passage {rank} that the run will retrieve for: {query})",
            "score": 0.0,
            "rank": rank,
        }
        for rank in range(1, int(payload["k"]) + 1)
    ]


def placeholder_documents(payload: dict[str, Any]) -> list[str]:
    """What a dry run assumes an uncached candidate search returns: ``n`` distinct documents."""
    return [f"(document {rank})" for rank in range(1, int(payload["n"]) + 1)]
