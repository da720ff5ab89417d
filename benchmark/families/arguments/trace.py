"""The argument family's per-query trace: the evidence, and every judge's parsed reply and raw text."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class EvidenceDoc(TracePart):
    doc_id: str
    text: str = Field(description="as the judges saw it (trimmed proportionally to the evidence budget)")


class JudgeRecord(TracePart):
    """One judge's work on one argument: what it returned, parsed; its raw replies; what failed."""

    prompt: str
    parsed: dict[str, Any] = Field(
        default_factory=dict, description="the usable parts of the reply (scores are computed from these)"
    )
    raw: list[str] = Field(default_factory=list, description="every raw reply, repairs included")
    failures: list[str] = Field(default_factory=list)
    example_matches: int = Field(
        default=0,
        description="accepted replies whose ratings equal the prompt's worked example's, wording aside "
        "(counted, not refused: a real judge may agree with an example)",
    )


class ArgumentTrace(QueryTrace):
    topic: str = ""
    stance: str = ""
    evidence_source: Literal["given", "retrieved", "none"] = Field(
        default="none",
        description="given: the documents the system was given (its outputs' retrieval record); "
        "retrieved: the judge's own BM25 top-k for the topic; none: no corpus",
    )
    evidence: list[EvidenceDoc] = Field(default_factory=list)
    cited: list[str] = Field(
        default_factory=list, description="ids of the evidence documents the argument cites"
    )
    reference_id: str | None = Field(
        default=None, description="the human argument pairwise judges compared with"
    )
    judges: dict[str, JudgeRecord] = Field(default_factory=dict)
