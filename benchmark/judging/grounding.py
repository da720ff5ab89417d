"""Claim grounding ``CG(C; K)``: retrieve k passages per claim, keep claims some passage entails.

The ICAT paper grounds a topic's claims in passages of that topic's BM25 top-1000
documents (§4.4): a claim about another topic cannot borrow that topic's evidence,
and, for ICAT-M, its first supporting passage is always a document judged for this
topic.  ``candidates`` carries those document sets, one per query (``None``: the whole
corpus).

Each (passage, claim) pair gets one support score from the entailment model, all
pairs of a batch in one call.  A claim's verdict follows one rule:

* **grounded** — some judged passage supports it (the first such passage in rank
  order is kept for ICAT-M), whatever happened to the other checks;
* **not grounded** — every passage was judged and none supports it (or none was
  retrieved);
* **undetermined** (``failed``) — no judged passage supports it and at least one check
  failed: the missing verdict might have been the supporting one, so the claim is
  neither, and the pipeline records the query as failed instead of guessing.
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
    """Ground the claims of several queries: one batched retrieval, one batched entailment call.

    ``claims`` maps query id -> ``(claim id, claim text)`` pairs; ``candidates`` maps
    query id -> the documents its claims may be grounded in.
    """
    flat = [(q, cid, text) for q, cl in claims.items() for cid, text in cl]
    out: dict[str, list[ClaimGrounding]] = {q: [] for q in claims}
    if not flat:
        return out
    allowed = [candidates.get(q) for q, _, _ in flat] if candidates is not None else None
    hits = retriever.search([text for _, _, text in flat], k, allowed)
    pairs = [(h.text, text) for (_, _, text), hs in zip(flat, hits, strict=True) for h in hs]
    scores = iter(entailment.support_scores(pairs) if pairs else [])
    for (q, cid, text), hs in zip(flat, hits, strict=True):
        verdicts = []
        for h in hs:
            s = next(scores)
            verdicts.append(
                PassageVerdict(
                    h.passage_id,
                    h.doc_id,
                    h.rank,
                    h.score,
                    s,
                    s is not None and s >= entailment.threshold,
                    h.text,
                )
            )
        first = next((v for v in verdicts if v.supported), None)
        failed = first is None and any(v.support is None for v in verdicts)
        out[q].append(ClaimGrounding(cid, text, first is not None, verdicts, first, failed))
    return out
