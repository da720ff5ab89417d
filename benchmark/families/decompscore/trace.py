"""DecompScore's per-passage trace: every unit, its subclaims and each one's verdicts."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class SubclaimTrace(TracePart):
    text: str
    support: float | None = Field(
        description="LLM judge: does the source unit support it (1/0; null: failed)"
    )
    entailment: float | None = Field(default=None, description="entailment model's support score")
    entailed: bool | None = None
    grounded: bool | None = Field(
        default=None, description="supported by a corpus passage (null: not checked)"
    )
    evidence: str | None = Field(default=None, description="id of the first supporting corpus passage")


class UnitTrace(TracePart):
    source: str = Field(description="the sentence (or passage) that was decomposed")
    subclaims: list[SubclaimTrace] = Field(default_factory=list)
    error: str | None = Field(default=None, description="why the method could not decompose it")
    raw: list[str] = Field(default_factory=list, description="raw LLM replies when decomposition failed")
    repeated: int = Field(default=0, description="repeated subclaims dropped (counted once)")


class DecompTrace(QueryTrace):
    method: dict[str, Any] = Field(default_factory=dict, description="the decomposition method's identity")
    granularity: str = "sentence"
    grounded: bool = Field(default=False, description="subclaims were also grounded in a corpus")
    units: list[UnitTrace] = Field(default_factory=list)
