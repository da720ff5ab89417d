"""Checking task tables against their schemas: columns, types, keys and references.

A table's schema is a shared one (:data:`benchmark.core.schema.SHARED`) or one a metric
family declares (EXAM's questions, sub-questions, …), which :func:`schemas` asks the family
registry for when a task needs it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import Any

import pandas as pd

from benchmark.core.errors import Problem
from benchmark.core.registry import REGISTRY
from benchmark.core.schema import SHARED, Column, TableSchema

__all__ = ["SHARED", "Column", "TableSchema", "check_references", "check_table", "known", "schemas"]


def schemas(names: Iterable[str], families: Iterable[str] = ()) -> dict[str, TableSchema]:
    """The schema of each table in ``names`` that some family or every task declares: a
    shared table's, else the one a family declares, asked of ``families`` first (a card's
    own list, so a task loads only the families it names) and then of every registered one.
    The task layer never imports a family: it asks the registry, which loads them by name."""
    wanted = [n for n in names if n not in SHARED]
    found = {n: SHARED[n] for n in names if n in SHARED}
    if not wanted:
        return found
    listed = [f for f in families if f in REGISTRY]
    for fid in chain(listed, (f for f in REGISTRY if f not in listed)):
        for table in REGISTRY[fid].tables:
            if table.name in wanted:
                found.setdefault(table.name, table)
        if all(n in found for n in wanted):
            break
    return found


def known() -> dict[str, TableSchema]:
    """Every table a task may hold: the shared ones and those every registered family
    declares (this loads every family's declaration: for listings and error messages)."""
    return {**SHARED, **{t.name: t for f in REGISTRY.values() for t in f.tables}}


def held_out_columns(names: Iterable[str], families: Iterable[str] = ()) -> dict[str, str]:
    """Table -> its held-out column, for the tables among ``names`` that hold one."""
    return {n: s.held_out for n, s in schemas(names, families).items() if s.held_out}


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
        nulls = df[col.name].isna()
        if not col.nullable:
            problems += _at(file, col.name, [(i, "value is missing") for i in df.index[nulls][:5]])
        values = df[col.name][~nulls]
        wrong = _type_mismatch(values, col.type)[:5]
        problems += _at(file, col.name, [(i, f"expected {col.type}, got {values.loc[i]!r}") for i in wrong])
        if col.choices is not None:
            outside = [i for i, v in values.items() if v not in col.choices][:5]
            must = f"must be one of {list(col.choices)}"
            problems += _at(file, col.name, [(i, f"{must}, not {values.loc[i]!r}") for i in outside])
        if col.type == "str" and (col.name in schema.key or col.name.endswith("_id") or col.name == "text"):
            empty = values.index[values.astype(str).str.strip() == ""][:5]
            problems += _at(file, col.name, [(i, "value is empty") for i in empty])
    key_cols = [k for k in schema.key if k in df.columns]
    if len(key_cols) == len(schema.key) and len(df):
        dup = df.index[df.duplicated(subset=key_cols, keep="first")][:5]
        said = [(i, ", ".join(f"{k}={df.at[i, k]!r}" for k in key_cols)) for i in dup]
        problems += _at(file, key_cols[-1], [(i, f"duplicate {'/'.join(key_cols)} ({v})") for i, v in said])
    return problems


def _at(file: str, field: str, found: Iterable[tuple[Any, str]]) -> list[Problem]:
    """A problem per ``(row index, message)``: the index is the line - 1."""
    return [Problem(file, message, line=int(i) + 1, field=field) for i, message in found]


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


def check_references(
    tables: dict[str, pd.DataFrame], files: dict[str, str], families: Iterable[str] = ()
) -> list[Problem]:
    problems: list[Problem] = []
    found = schemas(tables, families)
    for name, df in tables.items():
        table = found[name]
        for col in table.columns:
            if col.ref is None or col.name not in df.columns:
                continue
            ref_table, ref_col = col.ref.split(".")
            if ref_table not in tables:
                continue
            allowed = set(tables[ref_table][ref_col].astype(str))
            missing = df.index[~df[col.name].astype(str).isin(allowed)][:5]
            said = [(i, f"{df.at[i, col.name]!r} does not exist in {col.ref}") for i in missing]
            problems += _at(files[name], col.name, said)
    # aspect-level qrels must name aspects that exist for that query
    if "qrels" in tables and "aspects" in tables:
        qrels = tables["qrels"]
        known = set(zip(tables["aspects"]["query_id"], tables["aspects"]["aspect_id"], strict=True))
        aspect_rows = qrels[qrels["aspect_id"].notna()]
        pairs = zip(aspect_rows["query_id"], aspect_rows["aspect_id"], strict=True)
        bad = [i for i, pair in zip(aspect_rows.index, pairs, strict=True) if pair not in known]
        said = [
            (i, f"aspect {qrels.at[i, 'aspect_id']!r} is not an aspect of query {qrels.at[i, 'query_id']!r}")
            for i in bad[:5]
        ]
        problems += _at(files["qrels"], "aspect_id", said)
    return problems
