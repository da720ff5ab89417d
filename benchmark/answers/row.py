"""The answer record: one answered query, the one schema every answer format is read into
and the outputs JSONL writes one per line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.answers.citations import RAGRecord
from benchmark.core.results import RAGSetting


class OutputRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query_id: str = Field(min_length=1, max_length=200)
    answer: str
    model: str = Field(min_length=1, max_length=200)
    revision: str = Field(default="main", min_length=1, max_length=128)
    backend: str | None = None
    model_args: dict[str, Any] = Field(default_factory=dict, description="backend arguments, secrets removed")
    generation: dict[str, Any] = Field(default_factory=dict)
    task: str | None = None
    generated_by: str | None = Field(
        default=None,
        description="model@revision that wrote the answer, kept when `benchmark submit` files it under another name",
    )
    created: str | None = None
    item_key: str | None = Field(
        default=None, description="checkpoint key: hash of what determined this answer"
    )
    rag: RAGSetting | None = Field(default=None, description="retrieval setting; null: closed-book")
    retrieval: RAGRecord | None = Field(
        default=None, description="RAG only: the passages given, and those the answer cites"
    )
