"""EXAM's per-query trace: every question, the option chosen, its evidence, the verdict."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.families.base import QueryTrace, TracePart


class QuestionTrace(TracePart):
    question_id: str
    question: str
    kind: str
    facet_id: str | None = None
    options: list[str] = Field(default_factory=list)
    key: str | None = Field(default=None, description="the answer key")
    choice: str | None = Field(default=None, description="the option chosen / the answer read off the text")
    evidence: str | None = Field(default=None, description="the sentence window that supports the choice")
    support: list[float] = Field(default_factory=list, description="per option, its best support")
    rating: int | None = Field(default=None, description="answerability self-rating 0-5 (free text)")
    answered: bool | None = Field(default=None, description="the answerer committed to an answer")
    correct: bool | None = Field(default=None, description="null: could not be determined (a failure)")
    error: str | None = None
    raw: list[str] = Field(default_factory=list, description="raw LLM replies")


class ExamTrace(QueryTrace):
    answerer: dict[str, Any] = Field(default_factory=dict, description="the question answerer's identity")
    bank: str = Field(default="", description="fingerprint of the question bank")
    questions: list[QuestionTrace] = Field(default_factory=list)
    gold_exam: float | None = Field(default=None, description="EXAM of this query's gold article")
    gold_mean: float | None = Field(
        default=None, description="mean gold-article EXAM over the bank's queries: n-EXAM's normaliser"
    )
    gold_queries: int = Field(default=0, description="queries the gold mean was taken over")
