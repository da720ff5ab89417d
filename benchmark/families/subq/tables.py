"""Sub-question coverage's task table: typed sub-questions per query."""

from __future__ import annotations

from benchmark.core.schema import Column, TableSchema

TABLES = (
    TableSchema(
        "sub_questions",
        (
            Column("query_id", "str", ref="queries.query_id"),
            Column("sub_question_id", "str"),
            Column("text", "str"),
            Column("type", "str", description="core / background / follow-up"),
        ),
        key=("query_id", "sub_question_id"),
        description="Sub-questions for sub-question coverage.",
    ),
)
