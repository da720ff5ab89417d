"""Hybrid retrieval: reciprocal rank fusion of BM25 and dense."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmark.retrieval.index import Allowed, Hit, Retriever


class HybridRetriever:
    """Reciprocal rank fusion, score(p) = Σ_runs 1 / (rrf_k + rank_run(p)): no calibration of
    BM25 against cosine scores.  Each part is searched ``depth`` deep, so a passage ranked
    moderately by both can overtake one ranked first by only one."""

    def __init__(self, retrievers: Sequence[Retriever], rrf_k: int = 60, depth: int = 50) -> None:
        self.retrievers = list(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth
        self.identity: dict[str, Any] = self.identity_of([r.identity for r in self.retrievers], rrf_k, depth)

    @staticmethod
    def identity_of(parts: list[dict[str, Any]], rrf_k: int, depth: int = 50) -> dict[str, Any]:
        return {"kind": "hybrid", "rrf_k": rrf_k, "depth": depth, "parts": parts}

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        runs = [r.search(queries, max(k, self.depth), allowed) for r in self.retrievers]
        out = []
        for qi in range(len(queries)):
            fused: dict[str, float] = {}
            first: dict[str, Hit] = {}
            for run in runs:
                for h in run[qi]:
                    fused[h.passage_id] = fused.get(h.passage_id, 0.0) + 1.0 / (self.rrf_k + h.rank)
                    first.setdefault(h.passage_id, h)
            ranked = sorted(fused, key=lambda pid: (-fused[pid], pid))[:k]
            out.append(
                [
                    Hit(pid, first[pid].doc_id, first[pid].text, fused[pid], r)
                    for r, pid in enumerate(ranked, start=1)
                ]
            )
        return out
