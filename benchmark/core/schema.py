"""The shape of a task table, and the tables every task may hold.

A table is checked against its :class:`TableSchema` before any model sees it
(:mod:`benchmark.tasks.tables`); a metric family declares its own tables in
:attr:`benchmark.core.family.MetricFamily.tables`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# ---------------------------------------------------------------------------------
# Table schemas.  ``key`` columns must be unique together; ``refs`` name the table
# whose key a column must exist in.  Types are checked loosely ("str" accepts any
# string-like column, "int" any integer column).
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    name: str
    type: Literal["str", "int", "float", "bool", "list[str]"]
    required: bool = True  # column must be present
    nullable: bool = False  # values may be null
    ref: str | None = None  # "<table>.<column>" the value must exist in
    description: str = ""
    #: the values the column may hold (a vocabulary such as a nugget's importance), if closed
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TableSchema:
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    description: str = ""
    #: the column whose texts must never reach the model under evaluation (a family's
    #: held-out data, e.g. EXAM's questions); generation refuses any prompt holding one
    held_out: str | None = None

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


def _optional(name: str, description: str = "") -> Column:
    """A text column a table may lack and whose values may be null."""
    return Column(name, "str", required=False, nullable=True, description=description)


SHARED: dict[str, TableSchema] = {
    s.name: s
    for s in (
        TableSchema(
            "queries",
            (
                Column("query_id", "str", description="unique id, e.g. the TREC topic number"),
                Column("text", "str", description="the query as given to the model"),
                _optional("description"),
                _optional("type", "e.g. faceted / ambiguous"),
                _optional("split"),
                _optional(
                    "topic_id", "argument tasks: the controversial topic this (topic, stance) query is on"
                ),
                _optional("topic", "argument tasks: the topic"),
                _optional("stance", "argument tasks: pro / con"),
            ),
            key=("query_id",),
            description="The inputs the evaluated model answers.",
        ),
        TableSchema(
            "aspects",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("aspect_id", "str"),
                Column("text", "str"),
                _optional("type", "e.g. inf / nav"),
            ),
            key=("query_id", "aspect_id"),
            description="Ground-truth aspects (subtopics) TQ(x) of each query.",
        ),
        TableSchema(
            "qrels",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("doc_id", "str"),
                Column("aspect_id", "str", nullable=True, description="null for document-level judgements"),
                Column("relevance", "int"),
            ),
            key=("query_id", "doc_id", "aspect_id"),
            description="Relevance judgements; aspect-level rows drive ICAT-M alignment.",
        ),
        TableSchema(
            "corpus",
            (
                Column("doc_id", "str"),
                _optional("title"),
                Column("text", "str"),
                _optional("url"),
            ),
            key=("doc_id",),
            description="The knowledge source K that claims are grounded in.",
        ),
        TableSchema(
            "stances",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("doc_id", "str"),
                Column("stance", "str", description="pro / con / both / neutral"),
            ),
            key=("query_id", "doc_id"),
            description="Stance labels of documents for argument tasks.",
        ),
    )
}
