"""Claim grounding ``CG(C; K)``: retrieve k passages per claim, keep claims some passage entails.

``candidates`` restricts a query's claims to its documents (the ICAT paper: the topic's BM25
top-1000, §4.4).  A claim is **grounded** when some judged passage supports it (the first in
rank order is kept for ICAT-M), **not grounded** when every passage was judged and none does,
and **undetermined** (``failed``) when none does and a check failed: the missing verdict might
have been the supporting one, so the query is recorded as failed instead of guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmark.models.entailment import EntailmentModel
from benchmark.retrieval import Retriever


@dataclass
class PassageVerdict:
    passage_id: str
    doc_id: str
    rank: int
    retrieval_score: float
    support: float | None
    supported: bool
    text: str = ""


@dataclass
class ClaimGrounding:
    claim_id: str
    claim: str
    grounded: bool
    passages: list[PassageVerdict] = field(default_factory=list)
    first_supporting: PassageVerdict | None = None
    failed: bool = False


def ground_claims(
    claims: Mapping[str, Sequence[tuple[str, str]]],
    retriever: Retriever,
    entailment: EntailmentModel,
    *,
    k: int = 10,
    candidates: Mapping[str, set[str] | frozenset[str] | None] | None = None,
) -> dict[str, list[ClaimGrounding]]:
    """Ground the claims (query id -> ``(claim id, text)`` pairs) of several queries: one batched
    retrieval, one batched entailment call; ``candidates``: query id -> its allowed documents."""
    flat = [(q, cid, text) for q, cl in claims.items() for cid, text in cl]
    out: dict[str, list[ClaimGrounding]] = {q: [] for q in claims}
    if not flat:
        return out
    allowed = [candidates.get(q) for q, _, _ in flat] if candidates is not None else None
    hits = retriever.search([text for _, _, text in flat], k, allowed)
    pairs = [(h.text, text) for (_, _, text), hs in zip(flat, hits, strict=True) for h in hs]
    scores = iter(entailment.support_scores(pairs) if pairs else [])
    t = entailment.threshold
    for (q, cid, text), hs in zip(flat, hits, strict=True):
        verdicts = [  # one score per passage: zip stops at the end of hs
            PassageVerdict(h.passage_id, h.doc_id, h.rank, h.score, s, s is not None and s >= t, h.text)
            for h, s in zip(hs, scores, strict=False)
        ]
        first = next((v for v in verdicts if v.supported), None)
        failed = first is None and any(v.support is None for v in verdicts)
        out[q].append(ClaimGrounding(cid, text, first is not None, verdicts, first, failed))
    return out
