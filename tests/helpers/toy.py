"""A task for the toy plug-in family (``tests/toy_family``): two queries, a card listing ``toy``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

QUERIES = {"1": "tornado formation physics", "2": "growing figs indoors"}


def toy_task(root: Path) -> Path:
    """A task folder under ``root`` that the toy family scores: only a queries table."""
    task = root / "toy-task"
    (task / "data").mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"query_id": list(QUERIES), "text": list(QUERIES.values())}).to_parquet(
        task / "data" / "queries.parquet"
    )
    card = {
        "id": "toy-task",
        "name": "Toy task",
        "citation": "",
        "version": "1.0.0",
        "description": "two queries",
        "license": "CC0-1.0",
        "source": {"name": "tests"},
        "metrics": ["toy"],
        "instruction": "Answer.",
        "data": {"tables": {"queries": "queries.parquet"}},
        "corpus": {"kind": "none"},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    return task
