"""EXAM's task tables: the held-out exam (never shown to the evaluated model) and the gold articles that normalise n-EXAM."""

from __future__ import annotations

from benchmark.core.schema import Column, TableSchema

TABLES = (
    TableSchema(
        "exam_questions",
        (
            Column("query_id", "str", ref="queries.query_id"),
            Column("question_id", "str"),
            Column("question", "str"),
            Column("kind", "str", description="multiple-choice / free-text"),
            Column("options", "list[str]", required=False, nullable=True, description="multiple-choice"),
            Column("answer", "str", nullable=True, description="the key: an option, or a free-text answer"),
            Column("facet_id", "str", required=False, nullable=True, description="aspect it tests"),
            Column(
                "provenance",
                "str",
                required=False,
                nullable=True,
                description="'written', or 'generated: <model> <prompt@version>'",
            ),
        ),
        key=("question_id",),
        description="Held-out exam questions with answer keys (EXAM); never shown to the evaluated model.",
        held_out="question",
    ),
    TableSchema(
        "gold_articles",
        (
            Column("query_id", "str", ref="queries.query_id"),
            Column("article_id", "str"),
            Column("text", "str"),
        ),
        key=("query_id", "article_id"),
        description="Reference articles that normalise n-EXAM.",
    ),
)
