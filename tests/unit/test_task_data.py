"""The shipped Web Track tasks load cleanly, match their cards, and rebuild byte for byte.

These tests guard the data every result is computed on: a task whose files drift from
the checksums in its card, or a starter corpus that loses its aspect labels or its
contradicting documents, would silently change what ICAT measures.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from benchmark.tasks import Task, list_tasks, load_task
from benchmark.tasks import sha256_file as task_sha256

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
STARTER = REPO / "scripts" / "starter_corpus"
SHARED = REPO.parent / "shared" / "data" / "trec-web"
TASK_IDS = ("webtrack-2009-2012", "webtrack-2013-2014")


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    """Both tasks, loaded once: loading runs the schema and reference checks."""
    loaded = {}
    for task_id in TASK_IDS:
        task = load_task(TASKS / task_id)
        task.load_all()
        loaded[task_id] = task
    return loaded


@pytest.fixture(scope="module")
def starter_sources() -> dict[str, dict]:
    """The hand-written YAML, keyed by topic; it carries labels the parquet cannot."""
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(STARTER.glob("*.yaml"))}


@pytest.mark.parametrize(
    ("task_id", "first", "last"), [("webtrack-2009-2012", 1, 200), ("webtrack-2013-2014", 201, 300)]
)
def test_queries_and_aspects(tasks: dict[str, Task], task_id: str, first: int, last: int) -> None:
    task = tasks[task_id]
    queries = task.table("queries")
    assert list(queries["query_id"]) == [str(i) for i in range(first, last + 1)]
    assert (queries["split"] == "test").all()
    assert queries["text"].str.len().gt(0).all()
    assert set(queries["type"]) <= {"faceted", "ambiguous", "single"}
    per_query = task.table("aspects").groupby("query_id").size()
    assert set(per_query.index) == set(queries["query_id"])  # every topic has at least one aspect
    assert per_query.max() <= 8  # the Web Track never had more than 8 subtopics
    assert set(task.table("aspects")["type"].dropna()) <= {"inf", "nav"}


def test_checksums_and_provenance(tasks: dict[str, Task]) -> None:
    for task in tasks.values():
        assert task.verify_checksums() == []
        assert set(task.card.data.checksums) == set(task.card.data.tables.values())
        assert (
            task.card.provenance is not None and task.card.provenance.script == "scripts/convert_webtrack.py"
        )
        for item in task.card.provenance.inputs:
            local = (REPO.parent / item.file) if item.file.startswith("shared/") else (REPO / item.file)
            if local.exists():  # shared/ is reference material and may be absent on a fresh clone
                assert task_sha256(local) == item.sha256, item.file


def test_qrels(tasks: dict[str, Task]) -> None:
    old = tasks["webtrack-2009-2012"].table("qrels")
    assert old["aspect_id"].isna().sum() > 50_000  # NIST document-level judgements
    assert (old["relevance"] < 0).any()  # spam grades (-2) are kept as given
    new = tasks["webtrack-2013-2014"].table("qrels")
    assert new["aspect_id"].notna().sum() > 80_000 and new["aspect_id"].isna().sum() > 25_000
    assert new["doc_id"].str.startswith("clueweb12-").all()
    assert tasks["webtrack-2013-2014"].card.corpus.kind == "none"


def test_starter_corpus(tasks: dict[str, Task], starter_sources: dict[str, dict]) -> None:
    task = tasks["webtrack-2009-2012"]
    corpus, qrels = task.table("corpus"), task.table("qrels")
    covered = task.card.corpus.covers_queries
    assert covered is not None and len(covered) >= 12 and set(covered) == set(starter_sources)
    assert f"{len(corpus)} documents for {len(covered)} topics" in task.card.corpus.label
    starter_rows = qrels[qrels["doc_id"].str.startswith("gc-starter-")]
    labelled = starter_rows[starter_rows["aspect_id"].notna()]
    assert set(labelled["doc_id"]) == set(corpus["doc_id"])  # every document has an aspect label
    assert set(labelled["relevance"]) <= {1, 2}
    for query_id in covered:
        rows = labelled[labelled["query_id"] == query_id]
        assert rows["aspect_id"].nunique() >= 3, query_id
        assert (rows.groupby("doc_id")["aspect_id"].nunique() >= 2).sum() >= 2, query_id  # multi-aspect docs
        docs = starter_sources[query_id]["documents"]
        assert 6 <= len(docs) <= 10, query_id
        assert any(d.get("contradicts") and d.get("note") for d in docs), query_id
    # the document-level row carries the best aspect grade of the same document
    doc_level = starter_rows[starter_rows["aspect_id"].isna()].set_index("doc_id")["relevance"]
    pd.testing.assert_series_equal(
        doc_level.sort_index(), labelled.groupby("doc_id")["relevance"].max().sort_index(), check_names=False
    )


def test_starter_documents_have_passage_sized_text(tasks: dict[str, Task]) -> None:
    corpus = tasks["webtrack-2009-2012"].table("corpus")
    words = corpus["text"].str.split().str.len()
    assert words.between(80, 300).all(), corpus.loc[~words.between(80, 300), "doc_id"].tolist()
    assert (words > 128).sum() >= 10  # several documents span more than one 128-word passage
    assert (words > 224).sum() >= 2  # and some span three
    assert corpus["doc_id"].str.fullmatch(r"gc-starter-\d+-\d{2}").all()
    assert corpus["url"].isna().all()


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared/data/trec-web")
def test_converter_is_deterministic(tmp_path: Path) -> None:
    script = REPO / "scripts" / "convert_webtrack.py"
    subprocess.run(
        [sys.executable, str(script), "--shared", str(SHARED), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for task_id in TASK_IDS:
        committed = sorted(
            p.relative_to(TASKS / task_id) for p in (TASKS / task_id).rglob("*") if p.is_file()
        )
        rebuilt = sorted(
            p.relative_to(tmp_path / task_id) for p in (tmp_path / task_id).rglob("*") if p.is_file()
        )
        assert committed == rebuilt
        for rel in committed:
            a = hashlib.sha256((TASKS / task_id / rel).read_bytes()).hexdigest()
            b = hashlib.sha256((tmp_path / task_id / rel).read_bytes()).hexdigest()
            assert a == b, (
                f"{task_id}/{rel} differs from a fresh conversion; rerun scripts/convert_webtrack.py"
            )


@pytest.mark.parametrize("task_id", [c.id for c in list_tasks()])
def test_every_table_loads_with_datasets(task_id: str, tmp_path: Path) -> None:
    """`datasets.load_dataset("tasks/<id>", "<table>")` reads what groundcover reads (with a
    fresh cache: `datasets` can serve a table rewritten in place from its cache)."""
    import datasets

    from benchmark.tasks import dataset_card

    task = load_task(task_id)
    assert (task.root / "README.md").read_text(encoding="utf-8") == dataset_card(task.card)  # not stale
    for name in task.card.data.tables:
        loaded = datasets.load_dataset(
            str(task.root), name, split="test", cache_dir=str(tmp_path)
        ).to_pandas()
        ours = task.table(name)
        assert list(loaded.columns) == list(ours.columns) and len(loaded) == len(ours), name
        assert loaded.astype(str).equals(ours.astype(str)), name


@pytest.mark.skipif(not SHARED.parent.exists(), reason="needs ../shared/data")
@pytest.mark.parametrize(
    ("script", "shared", "task_ids"),
    [
        ("convert_trec_rag.py", "trec-rag", ("researchy-dev", "trec-rag24", "trec-rag25")),
        ("convert_arguments.py", None, ("arguana-debates", "conqret", "touche2020")),
    ],
)
def test_other_converters_are_deterministic(
    script: str, shared: str | None, task_ids: tuple[str, ...], tmp_path: Path
) -> None:
    args = [sys.executable, str(REPO / "scripts" / script), "--out", str(tmp_path)]
    if shared:
        args += ["--shared", str(SHARED.parent / shared)]
    subprocess.run(args, check=True, capture_output=True)
    for task_id in task_ids:
        files = sorted(p.relative_to(TASKS / task_id) for p in (TASKS / task_id).rglob("*") if p.is_file())
        assert files == sorted(
            p.relative_to(tmp_path / task_id) for p in (tmp_path / task_id).rglob("*") if p.is_file()
        )
        for rel in files:
            assert (TASKS / task_id / rel).read_bytes() == (tmp_path / task_id / rel).read_bytes(), (
                f"{task_id}/{rel}"
            )
