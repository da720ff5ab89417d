"""The nugget family's task table: each topic's nuggets, with importance and provenance."""

from __future__ import annotations

from benchmark.core.schema import Column, TableSchema
from benchmark.families.nuggets.formulas import IMPORTANCE

TABLES = (
    TableSchema(
        "nuggets",
        (
            Column("query_id", "str", ref="queries.query_id"),
            Column("nugget_id", "str"),
            Column("text", "str"),
            Column("importance", "str", description="vital / okay", choices=IMPORTANCE),
            Column(
                "provenance",
                "str",
                description="'written: <who>, <from what>' or 'generated: <model> <prompt>' or 'imported: <file>'",
            ),
        ),
        key=("query_id", "nugget_id"),
        description="Information nuggets for the TREC RAG nugget evaluation.",
    ),
)
