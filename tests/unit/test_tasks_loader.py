"""Task cards and tables fail with the file, row and field at fault."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchmark.core.errors import InputError
from benchmark.families.icat.qrels import task_aspect_qrels
from benchmark.tasks import load_task

CARD = {
    "id": "tiny",
    "version": "1.0.0",
    "name": "Tiny",
    "description": "a test task",
    "source": {"name": "tests"},
    "license": "CC0-1.0",
    "citation": "none",
    "metrics": ["icat"],
    "instruction": "Answer.",
    "data": {
        "tables": {"queries": "queries.parquet", "aspects": "aspects.parquet", "qrels": "qrels.parquet"}
    },
}


def make_task(root: Path, *, card: dict | None = None, queries=None, aspects=None, qrels=None) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "task.yaml").write_text(yaml.safe_dump(card or CARD))
    pd.DataFrame(
        queries or [{"query_id": "1", "text": "q one"}, {"query_id": "2", "text": "q two"}]
    ).to_parquet(root / "data/queries.parquet")
    pd.DataFrame(
        aspects
        or [
            {"query_id": "1", "aspect_id": "1", "text": "a"},
            {"query_id": "2", "aspect_id": "1", "text": "b"},
        ]
    ).to_parquet(root / "data/aspects.parquet")
    pd.DataFrame(qrels or [{"query_id": "1", "doc_id": "d1", "aspect_id": "1", "relevance": 1}]).to_parquet(
        root / "data/qrels.parquet"
    )
    return root


def test_valid_task_loads(tmp_path: Path) -> None:
    task = load_task(make_task(tmp_path / "tiny"))
    assert list(task.queries()["query_id"]) == ["1", "2"]
    assert task_aspect_qrels(task) == {("1", "d1"): {"1"}}
    assert task.data_fingerprint.startswith("sha256:")


def test_card_unknown_field_names_file_line_and_field(tmp_path: Path) -> None:
    card = dict(CARD, colour="green")
    with pytest.raises(InputError) as exc:
        load_task(make_task(tmp_path / "tiny", card=card))
    msg = str(exc.value)
    assert "task.yaml" in msg and "field 'colour'" in msg and "line " in msg


def test_card_hub_data_needs_revision(tmp_path: Path) -> None:
    card = dict(CARD, data={"kind": "hub", "repo_id": "org/x", "tables": {"queries": "q.parquet"}})
    with pytest.raises(InputError, match="pinned 'revision'"):
        load_task(make_task(tmp_path / "tiny", card=card))


def test_duplicate_ids_and_missing_values(tmp_path: Path) -> None:
    queries = [
        {"query_id": "1", "text": "a"},
        {"query_id": "2", "text": None},
        {"query_id": "1", "text": "c"},
    ]
    task = load_task(make_task(tmp_path / "tiny", queries=queries))
    with pytest.raises(InputError) as exc:
        task.load_all()
    msg = str(exc.value)
    assert "queries.parquet, line 2, field 'text': value is missing" in msg
    assert "queries.parquet, line 3, field 'query_id': duplicate query_id" in msg


def test_referential_integrity(tmp_path: Path) -> None:
    aspects = [
        {"query_id": "1", "aspect_id": "1", "text": "a"},
        {"query_id": "99", "aspect_id": "1", "text": "b"},
    ]
    qrels = [{"query_id": "1", "doc_id": "d", "aspect_id": "7", "relevance": 1}]
    task = load_task(make_task(tmp_path / "tiny", aspects=aspects, qrels=qrels))
    with pytest.raises(InputError) as exc:
        task.load_all()
    msg = str(exc.value)
    assert "aspects.parquet, line 2, field 'query_id': '99' does not exist in queries.query_id" in msg
    assert "qrels.parquet, line 1, field 'aspect_id'" in msg and "not an aspect of query '1'" in msg


def test_unexpected_and_missing_columns(tmp_path: Path) -> None:
    queries = [{"query_id": "1", "txt": "typo"}]
    task = load_task(
        make_task(
            tmp_path / "tiny", queries=queries, aspects=[{"query_id": "1", "aspect_id": "1", "text": "a"}]
        )
    )
    with pytest.raises(InputError) as exc:
        task.load_all()
    msg = str(exc.value)
    assert "field 'txt': unexpected column" in msg and "field 'text': required column is missing" in msg


def test_unknown_task_lists_known(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such task"):
        load_task("does-not-exist", root=tmp_path)


def test_a_table_rewritten_in_place_is_read_fresh(tmp_path: Path) -> None:
    """Scores must come from the bytes the data fingerprint hashes, never from a cache."""
    import pandas as pd

    from tests.helpers import build_tiny_task

    root = build_tiny_task(tmp_path, [("q1", "first text")])
    assert load_task(root).table("queries")["text"].tolist() == ["first text"]
    pd.DataFrame({"query_id": ["q1"], "text": ["other text"]}).to_parquet(
        root / "data" / "queries.parquet", index=False
    )
    again = load_task(root)
    assert again.table("queries")["text"].tolist() == ["other text"]
