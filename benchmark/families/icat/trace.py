"""ICAT's per-query trace: every claim, its evidence and verdict, and the aspects it covers.

One line of ``<task>.icat.traces.jsonl`` per query.  The trace holds everything the
scores were computed from, so a reader can check any number by hand, and the
no-score-change test recomputes published results from it.
"""

from __future__ import annotations

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class PassageTrace(TracePart):
    passage_id: str
    doc_id: str
    rank: int
    retrieval_score: float
    support: float | None = Field(description="entailment model's support; null when the check failed")
    supported: bool
    text: str = Field(description="the passage's first characters, enough to read the evidence")


class ClaimTrace(TracePart):
    claim_id: str
    text: str
    grounded: bool
    failed: bool = Field(description="undetermined: no supporting passage, and some check failed")
    first_supporting: str | None
    passages: list[PassageTrace] = Field(default_factory=list)
    aspects_m: list[str] = Field(default_factory=list)
    aspects_s: list[str] = Field(default_factory=list)
    aspects_a: list[str] = Field(default_factory=list)


class AspectTrace(TracePart):
    aspect_id: str
    text: str


class ICATTrace(QueryTrace):
    variants: list[str] = Field(default_factory=list, description="the variants computed for this query")
    beta: float = 1.0
    claims: list[ClaimTrace] = Field(default_factory=list)
    aspects: list[AspectTrace] = Field(default_factory=list, description="ground truth TQ(x) (M, S)")
    generated_aspects: list[AspectTrace] = Field(default_factory=list, description="generated TQ(x) (A)")
    candidate_docs: list[str] | None = Field(
        default=None, description="documents the claims could be grounded in (null: whole corpus)"
    )
    raw: dict[str, list[str]] = Field(
        default_factory=dict, description="raw LLM replies of stages that failed, by stage"
    )
