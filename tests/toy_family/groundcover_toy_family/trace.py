"""What the toy family records per query."""

from __future__ import annotations

from pydantic import Field

from benchmark.families.base import QueryTrace


class ToyTrace(QueryTrace):
    query_words: list[str] = Field(default_factory=list)
    found: list[str] = Field(default_factory=list)
