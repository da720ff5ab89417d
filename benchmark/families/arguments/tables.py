"""Argument quality's task table: human-written reference arguments for the pairwise judges."""

from __future__ import annotations

from benchmark.core.schema import Column, TableSchema

TABLES = (
    TableSchema(
        "reference_arguments",
        (
            Column("query_id", "str", ref="queries.query_id"),
            Column("argument_id", "str"),
            Column("text", "str", description="a human-written argument for the query's topic and stance"),
        ),
        key=("query_id", "argument_id"),
        description="Human-written arguments that pairwise argument judges compare a system's against.",
    ),
)
