"""The attribution family's per-query trace: every sentence, what it cites, and each verdict."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class CitationTrace(TracePart):
    number: int = Field(description="1-based place among the passages the answer was given")
    passage_id: str
    text: str = Field(description="the passage as the judge read it")
    alone: str | None = Field(default=None, description="full / partial / none: this passage alone")
    without: str | None = Field(
        default=None,
        description="the sentence's other citations without this one (judged only when it decides)",
    )


class SentenceTrace(TracePart):
    text: str
    sentence: str | None = Field(
        default=None, description="units: claims — the answer sentence this claim was split from"
    )
    citations: list[CitationTrace] = Field(default_factory=list)
    invalid: list[str] = Field(default_factory=list, description="cited, but not among the given passages")
    joint: str | None = Field(default=None, description="full / partial / none: all cited passages together")
    errors: list[str] = Field(default_factory=list)
    raw: list[str] = Field(default_factory=list, description="raw LLM replies of failed judgements")
    source: str | None = Field(
        default=None,
        description="RAG diagnostics: context (a given passage supports it), corpus (only the corpus "
        "does), neither; null when not diagnosed or undetermined",
    )
    context_support: list[str] = Field(default_factory=list, description="given passages that support it")
    corpus_passage: str | None = Field(default=None, description="the corpus passage that supports it")


class AttributionTrace(QueryTrace):
    judge: dict[str, Any] = Field(default_factory=dict, description="the support judge's identity")
    partial_level: bool = Field(
        default=True, description="whether the judge can say partial (the entailment judge cannot)"
    )
    passages: list[str] = Field(default_factory=list, description="ids of the passages the answer was given")
    sentences: list[SentenceTrace] = Field(default_factory=list)
    diagnosed: bool = Field(default=False, description="whether the RAG diagnostics ran")
    relevant_given: list[str] | None = Field(
        default=None,
        description="given passages whose document the task's qrels call relevant (null: unknown)",
    )
