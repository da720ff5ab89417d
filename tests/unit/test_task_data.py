"""The shipped tasks load, match their checksums, and are reproducible from sources."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.tasks import load_task

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data" / "trec-web"


def test_webtrack_2009_2012() -> None:
    task = load_task("webtrack-2009-2012")
    task.load_all()
    assert len(task.table("queries")) == 200
    assert task.verify_checksums() == []
    covered = task.card.corpus.covers_queries
    assert covered is not None and len(covered) >= 10
    qrels = task.table("qrels")
    corpus_ids = set(task.table("corpus")["doc_id"])
    aspect_rows = qrels[qrels["aspect_id"].notna() & qrels["doc_id"].isin(corpus_ids)]
    assert set(aspect_rows["doc_id"]) == corpus_ids  # every starter document has aspect labels
    for q in covered:
        assert aspect_rows[aspect_rows["query_id"] == q]["aspect_id"].nunique() >= 3, q
    assert "contradict" in task.card.corpus.label


def test_webtrack_2013_2014() -> None:
    task = load_task("webtrack-2013-2014")
    task.load_all()
    assert len(task.table("queries")) == 100
    assert task.verify_checksums() == []
    assert task.table("qrels")["aspect_id"].notna().sum() > 10_000


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/data/trec-web")
def test_converter_is_deterministic(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(REPO / "scripts/convert_webtrack.py"), "--shared", str(SHARED), "--out", str(tmp_path)], check=True, capture_output=True)
    for task in ("webtrack-2009-2012", "webtrack-2013-2014"):
        for f in sorted((REPO / "tasks" / task / "data").glob("*.parquet")):
            assert hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256((tmp_path / task / "data" / f.name).read_bytes()).digest(), f
