"""The nugget family's per-query trace: every nugget, its importance, and how the answer was judged on it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class NuggetTrace(TracePart):
    nugget_id: str
    text: str
    importance: str
    assignment: str | None = Field(
        default=None, description="support / partial_support / not_support (null: the judgement failed)"
    )
    support: float | None = Field(default=None, description="the entailment judge's support score")
    evidence: str | None = Field(default=None, description="the answer's sentence window that supports it")
    errors: list[str] = Field(default_factory=list)
    raw: list[str] = Field(default_factory=list, description="raw LLM replies")


class NuggetsTrace(QueryTrace):
    judge: dict[str, Any] = Field(default_factory=dict, description="the assignment judge's identity")
    partial_level: bool = Field(
        default=True, description="whether the judge can say partial_support (the entailment judge cannot)"
    )
    nuggets: list[NuggetTrace] = Field(default_factory=list)
    nuggetizer_compatible: bool = Field(
        default=False,
        description="scored as nuggetizer's calculate_metrics.py: 0 where the topic has no vital nugget "
        "(or none), importance 'failed' counted as okay (docs/conformance.md)",
    )
