"""Writing a task folder from rows: byte-stable parquet tables, checksums, the card and its dataset card.

Shared by the converters (``convert_webtrack.py``, ``convert_arguments.py``) so every task
is written the same way: rows sorted, one row group, no statistics or pandas metadata.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from benchmark.tasks import dataset_card, load_card

Row = dict[str, Any]
#: a table as the converters give it: rows, their arrow schema, their sort key
Table = tuple[Iterable[Row], pa.Schema, Callable[[Row], tuple[Any, ...]]]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_table(rows: Iterable[Row], schema: pa.Schema, key: Callable[[Row], Any], path: Path) -> None:
    """Sorted rows, one row group, no statistics or pandas metadata: byte-stable output."""
    table = pa.Table.from_pylist(sorted(rows, key=key), schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(
        table, path, compression="zstd", use_dictionary=False, write_statistics=False, store_schema=False
    )


def limits_block() -> str:
    """The card's ``limits`` (what one submitted answer may hold), at their defaults: written
    after the card so that they stay visibly apart from the versioned task data."""
    from benchmark.tasks.card import SubmissionLimits

    limits = SubmissionLimits()
    return (
        "limits:  # what one submitted answer may hold (benchmark validate); not part of the versioned task data\n"
        f"  max_answer_chars: {limits.max_answer_chars}\n"
        f"  max_answer_sentences: {limits.max_answer_sentences}\n"
    )


def write_task(
    out: Path, card: dict[str, Any], tables: dict[str, Table], inputs: list[tuple[str, Path]]
) -> None:
    """The tables, then the card (with checksums and provenance inputs), then the dataset card.

    ``inputs`` are (path as a reader of the card finds it, local path) pairs.
    """
    checksums: dict[str, str] = {}
    for name, (rows, schema, key) in tables.items():
        path = out / "data" / f"{name}.parquet"
        write_table(rows, schema, key, path)
        checksums[path.name] = sha256(path)
    card["provenance"]["inputs"] = [{"file": shown, "sha256": sha256(p)} for shown, p in inputs]
    card["data"] = {
        "kind": "local",
        "path": "data",
        "tables": {n: f"{n}.parquet" for n in tables},
        "checksums": checksums,
    }
    text = yaml.safe_dump(card, sort_keys=False, allow_unicode=True, width=100) + limits_block()
    (out / "task.yaml").write_text(text, encoding="utf-8")
    # the dataset card, so `datasets.load_dataset("tasks/<id>", "<table>")` works
    (out / "README.md").write_text(dataset_card(load_card(out / "task.yaml")), encoding="utf-8")
