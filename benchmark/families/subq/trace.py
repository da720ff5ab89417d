"""The sub-question family's per-query trace: every sub-question, where it was covered, and by what."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class SubQuestionTrace(TracePart):
    sub_question_id: str
    text: str
    type: str
    in_answer: bool | None = Field(default=None, description="the answer addresses it (null: undetermined)")
    answer_support: float | None = None
    answer_evidence: str | None = Field(default=None, description="the answer's window that covers it")
    in_retrieval: bool | None = Field(
        default=None, description="a retrieved chunk addresses it (null: not judged)"
    )
    retrieval_support: float | None = None
    retrieval_evidence: str | None = None
    errors: list[str] = Field(default_factory=list)
    raw: list[str] = Field(default_factory=list, description="raw LLM replies")


class SubqTrace(QueryTrace):
    judge: dict[str, Any] = Field(default_factory=dict, description="the coverage judge's identity")
    weights: tuple[float, float, float] = Field(description="hybrid weights: core, background, follow-up")
    retrieval_judged: bool = Field(default=False, description="the retrieved chunks were judged too")
    sub_questions: list[SubQuestionTrace] = Field(default_factory=list)
