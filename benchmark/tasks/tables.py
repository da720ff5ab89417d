"""Table schemas: the columns, keys and references every task table is checked against.

The shared tables (queries, aspects, qrels, corpus, stances) are declared here; each metric
family registers its own (EXAM's questions, sub-questions, …) with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from benchmark.core.errors import Problem

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


#: The tables every task may hold; metric families register their own (:func:`register`).
SCHEMAS: dict[str, TableSchema] = {
    s.name: s
    for s in (
        TableSchema(
            "queries",
            (
                Column("query_id", "str", description="unique id, e.g. the TREC topic number"),
                Column("text", "str", description="the query as given to the model"),
                Column("description", "str", required=False, nullable=True),
                Column("type", "str", required=False, nullable=True, description="e.g. faceted / ambiguous"),
                Column("split", "str", required=False, nullable=True),
                Column(
                    "topic_id",
                    "str",
                    required=False,
                    nullable=True,
                    description="argument tasks: the controversial topic this (topic, stance) query is on",
                ),
                Column(
                    "topic", "str", required=False, nullable=True, description="argument tasks: the topic"
                ),
                Column(
                    "stance", "str", required=False, nullable=True, description="argument tasks: pro / con"
                ),
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
                Column("type", "str", required=False, nullable=True, description="e.g. inf / nav"),
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
                Column("title", "str", required=False, nullable=True),
                Column("text", "str"),
                Column("url", "str", required=False, nullable=True),
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


def register(*schemas: TableSchema) -> None:
    """Add a family's tables to what task cards may list (called as its module loads).
    Registering the same schema twice is harmless; another schema under a taken name is
    a programming error."""
    for s in schemas:
        if s.name in SCHEMAS and SCHEMAS[s.name] != s:
            raise ValueError(f"table {s.name!r} is registered twice with different schemas")
        SCHEMAS[s.name] = s


def known() -> dict[str, TableSchema]:
    """Every table a task may hold: the shared ones and those the registered metric families
    declare.  The task layer never imports a family (it sits below them): the family
    registry, :mod:`benchmark.families`, registers each family's tables as it loads, so a
    caller that reads a card listing a family's table imports the registry first (every
    command, the runner and the API do)."""
    return SCHEMAS


def schema(name: str) -> TableSchema:
    return known()[name]


def held_out_columns(names: Iterable[str]) -> dict[str, str]:
    """Table -> its held-out column, for the tables among ``names`` that hold one."""
    tables = known()
    return {n: tables[n].held_out for n in names if n in tables and tables[n].held_out}


def check_table(df: pd.DataFrame, schema: TableSchema, file: str) -> list[Problem]:
    """Schema checks on one table; rows are reported 1-based as in the file."""
    problems: list[Problem] = []
    known = {c.name for c in schema.columns}
    for extra in [c for c in df.columns if c not in known]:
        problems.append(Problem(file, f"unexpected column (known: {sorted(known)})", field=extra))
    for col in schema.columns:
        if col.name not in df.columns:
            if col.required:
                problems.append(Problem(file, "required column is missing", field=col.name))
            continue
        series = df[col.name]
        nulls = series.isna()
        if not col.nullable:
            for idx in list(series.index[nulls])[:5]:
                problems.append(Problem(file, "value is missing", line=int(idx) + 1, field=col.name))
        values = series[~nulls]
        bad = _type_mismatch(values, col.type)
        for idx in bad[:5]:
            problems.append(
                Problem(
                    file, f"expected {col.type}, got {values.loc[idx]!r}", line=int(idx) + 1, field=col.name
                )
            )
        if col.choices is not None:
            outside = [i for i, v in values.items() if v not in col.choices]
            for idx in outside[:5]:
                problems.append(
                    Problem(
                        file,
                        f"must be one of {list(col.choices)}, not {values.loc[idx]!r}",
                        line=int(idx) + 1,
                        field=col.name,
                    )
                )
        if col.type == "str" and (col.name in schema.key or col.name.endswith("_id") or col.name == "text"):
            empty = values[values.astype(str).str.strip() == ""]
            for idx in list(empty.index)[:5]:
                problems.append(Problem(file, "value is empty", line=int(idx) + 1, field=col.name))
    key_cols = [k for k in schema.key if k in df.columns]
    if len(key_cols) == len(schema.key) and len(df):
        dup = df.duplicated(subset=key_cols, keep="first")
        for idx in list(df.index[dup])[:5]:
            values = ", ".join(f"{k}={df.at[idx, k]!r}" for k in key_cols)
            problems.append(
                Problem(
                    file, f"duplicate {'/'.join(key_cols)} ({values})", line=int(idx) + 1, field=key_cols[-1]
                )
            )
    return problems


def _type_mismatch(values: pd.Series, typ: str) -> list[Any]:
    if typ == "str":
        return [i for i, v in values.items() if not isinstance(v, str)]
    if typ == "int":
        return [i for i, v in values.items() if isinstance(v, bool) or not float(v).is_integer()]
    if typ == "float":
        return [i for i, v in values.items() if not isinstance(v, (int, float))]
    if typ == "bool":
        return [i for i, v in values.items() if not isinstance(v, bool)]
    if typ == "list[str]":
        return [i for i, v in values.items() if not all(isinstance(x, str) for x in list(v))]
    return []


def check_references(tables: dict[str, pd.DataFrame], files: dict[str, str]) -> list[Problem]:
    problems: list[Problem] = []
    for name, df in tables.items():
        table = schema(name)
        for col in table.columns:
            if col.ref is None or col.name not in df.columns:
                continue
            ref_table, ref_col = col.ref.split(".")
            if ref_table not in tables:
                continue
            allowed = set(tables[ref_table][ref_col].astype(str))
            missing = df[~df[col.name].astype(str).isin(allowed)]
            for idx in list(missing.index)[:5]:
                problems.append(
                    Problem(
                        files[name],
                        f"{missing.at[idx, col.name]!r} does not exist in {ref_table}.{ref_col}",
                        line=int(idx) + 1,
                        field=col.name,
                    )
                )
    # aspect-level qrels must name aspects that exist for that query
    if "qrels" in tables and "aspects" in tables:
        qrels = tables["qrels"]
        known = set(zip(tables["aspects"]["query_id"], tables["aspects"]["aspect_id"], strict=True))
        aspect_rows = qrels[qrels["aspect_id"].notna()]
        bad = [
            i
            for i, q, a in zip(
                aspect_rows.index, aspect_rows["query_id"], aspect_rows["aspect_id"], strict=True
            )
            if (q, a) not in known
        ]
        for idx in bad[:5]:
            problems.append(
                Problem(
                    files["qrels"],
                    f"aspect {qrels.at[idx, 'aspect_id']!r} is not an aspect of query {qrels.at[idx, 'query_id']!r}",
                    line=int(idx) + 1,
                    field="aspect_id",
                )
            )
    return problems
