"""The IVF build within memory, and nprobe chosen by a profile's recall target on held-out queries.

Small synthetic corpora, no model: vectors cluster around random centres (so IVF lists mean
something), and a stand-in embedder maps a text to a seeded vector near one of the centres.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmark.models.profiles import EmbedderSpec, RetrieverSpec, load_profile
from benchmark.retrieval import dense
from benchmark.retrieval.chunking import Passage
from benchmark.retrieval.dense import (
    DenseRetriever,
    VectorFile,
    build_faiss_index,
    exact_neighbours,
    held_out_queries,
    nprobe_for,
    recall_curve,
    set_nprobe,
    tuned_nprobe,
)

D = 32
CENTRES = np.random.default_rng(7).normal(size=(40, D))


def clustered(n: int, seed: int = 0, spread: float = 0.6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = CENTRES[rng.integers(0, len(CENTRES), size=n)] + spread * rng.normal(size=(n, D))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(autouse=True)
def one_thread() -> Any:
    """HNSW's graph is built by several threads in an order the scheduler picks; one thread
    makes two builds of the same vectors comparable list for list."""
    import faiss

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(before)


def lists(index: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each inverted list's ids and stored vectors, in order."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    inv, out = ivf.invlists, []
    for i in range(ivf.nlist):
        size = inv.list_size(i)
        if not size:
            out.append((np.array([]), np.array([])))
            continue
        ids = faiss.rev_swig_ptr(inv.get_ids(i), size).copy()
        codes = faiss.rev_swig_ptr(inv.get_codes(i), size * ivf.code_size).copy()
        out.append((ids, codes))
    return out


def test_building_in_chunks_from_a_file_gives_the_index_of_one_add(tmp_path: Path) -> None:
    import faiss

    vectors = clustered(6000)
    flat = faiss.IndexFlatIP(D)
    flat.add(vectors)
    faiss.write_index(flat, str(tmp_path / "flat.faiss"))
    source = VectorFile.of_flat_index(tmp_path / "flat.faiss")
    assert source.shape == (6000, D) and np.array_equal(source.read(5990, 6000), vectors[5990:])

    # the build before chunks: train on the same seeded sample, then one add of every vector
    whole = faiss.index_factory(D, f"IVF{dense.ivf_nlist(6000)}_HNSW32,Flat", faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(0)
    faiss.extract_index_ivf(whole).cp.seed = 0
    whole.train(vectors[np.sort(rng.choice(6000, size=min(6000, whole.nlist * 64), replace=False))])
    whole.add(vectors)
    chunked = build_faiss_index(source, "ivf-hnsw", chunk=700)  # read 700 rows at a time
    assert chunked.ntotal == 6000
    same = [
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        for a, b in zip(lists(whole), lists(chunked), strict=True)
    ]
    assert all(same) and sum(len(ids) for ids, _ in lists(chunked)) == 6000
    queries = clustered(200, seed=3)
    for index in (whole, chunked):
        set_nprobe(index, 8)
    assert np.array_equal(whole.search(queries, 10)[1], chunked.search(queries, 10)[1])
    # flat from the file equals flat from memory too
    again = build_faiss_index(source, "flat", chunk=999)
    assert np.array_equal(again.search(queries, 10)[1], flat.search(queries, 10)[1])


def test_exact_neighbours_in_chunks_equal_one_scan() -> None:
    import faiss

    vectors, queries = clustered(5000), clustered(64, seed=5)
    _, truth = faiss.knn(queries, vectors, 10, metric=faiss.METRIC_INNER_PRODUCT)
    got = exact_neighbours(vectors, queries, 10, chunk=333)
    assert np.mean([len(set(a) & set(b)) for a, b in zip(got, truth, strict=True)]) == 10


def test_a_higher_recall_target_never_probes_fewer_lists() -> None:
    vectors, queries = clustered(8000), clustered(128, seed=9)
    index = build_faiss_index(vectors, "ivf-hnsw")
    curve = recall_curve(index, queries, exact_neighbours(vectors, queries, 10))
    assert [p for p, _ in curve][:3] == [1, 2, 4]
    assert curve[-1][1] >= 1.0 or curve[-1][0] == index.nlist  # recorded until nothing is missed
    chosen = [nprobe_for(curve, t) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 1.0)]
    assert [p for p, _ in chosen] == sorted(p for p, _ in chosen)
    assert chosen[0][0] < chosen[-2][0]  # the targets really select different widths here
    for t, (p, r) in zip((0.5, 0.8, 0.9, 0.95, 0.99), chosen, strict=False):
        assert r >= t and all(rr < t for pp, rr in curve if pp < p)  # the fewest that reach it


class StandIn:
    """An embedder that maps each text to a seeded vector near one of :data:`CENTRES`."""

    model_id = "stand-in"
    identity = "stand-in@1"

    def __init__(self, spec: Any, cache: Any = None) -> None:
        self.encoded: list[tuple[str, list[str]]] = []

    def encode(self, texts: Sequence[str], kind: str = "query", **_: Any) -> np.ndarray:
        self.encoded.append((kind, list(texts)))
        seeds = [int(hashlib.sha256(t.encode()).hexdigest()[:8], 16) for t in texts]
        return np.vstack([clustered(1, seed=s, spread=0.8 if kind == "query" else 0.6) for s in seeds])


def passages(n: int) -> list[Passage]:
    return [Passage(f"d{i}#0", f"d{i}", f"passage number {i}", 0) for i in range(n)]


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[StandIn]:
    made: list[StandIn] = []

    def make(spec: Any, cache: Any = None) -> StandIn:
        made.append(StandIn(spec, cache))
        return made[-1]

    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("benchmark.models.embeddings.Embedder", make)
    return made


def test_the_index_is_tuned_on_held_out_task_queries_and_records_them(stand_in: list[StandIn]) -> None:
    spec = RetrieverSpec(kind="dense", dense_index="ivf-hnsw")
    retriever = DenseRetriever(
        passages(4000), spec, EmbedderSpec(model="x"), progress=False, held_out=["webtrack-2009-2012"]
    )
    tuned = json.loads((Path(retriever.index_path) / "nprobe.json").read_text())
    pool = held_out_queries(["webtrack-2009-2012"])
    # tuned on real query texts from the other tasks, not on corpus-vector midpoints
    asked = [texts for kind, texts in stand_in[0].encoded if kind == "query"]
    assert asked == [pool["texts"]] and len(pool["texts"]) == tuned["queries"]["count"] == 512
    assert tuned["queries"]["held_out_tasks"] == ["webtrack-2009-2012"]
    assert "webtrack-2009-2012" not in tuned["queries"]["source"]
    assert (
        sum(tuned["queries"]["source"].values()) == 512 and "webtrack-2013-2014" in tuned["queries"]["source"]
    )
    assert tuned["target"] == 0.95 and tuned["recall_at_10"] >= 0.95
    assert retriever.nprobe == tuned["nprobe"] == nprobe_for(tuned["curve"], 0.95)[0]
    assert not (Path(retriever.index_path) / "vectors.f32").exists()  # the encoded corpus is not kept


def test_the_profiles_recall_target_chooses_nprobe_from_the_recorded_curve(stand_in: list[StandIn]) -> None:
    ps = passages(4000)
    low = DenseRetriever(
        ps,
        RetrieverSpec(dense_index="ivf-hnsw", ivf_recall_target=0.5),
        EmbedderSpec(model="x"),
        progress=False,
    )
    high = DenseRetriever(
        ps,
        RetrieverSpec(dense_index="ivf-hnsw", ivf_recall_target=0.99),
        EmbedderSpec(model="x"),
        progress=False,
    )
    assert high.reused and high.index_path == low.index_path  # the same index, searched wider
    curve = json.loads((Path(low.index_path) / "nprobe.json").read_text())["curve"]
    assert low.nprobe is not None and high.nprobe is not None and low.nprobe < high.nprobe
    assert nprobe_for(curve, 0.99) == (
        high.nprobe,
        pytest.approx(next(r for p, r in curve if p == high.nprobe)),
    )
    assert next(r for p, r in curve if p == high.nprobe) >= 0.99
    # the dry run's identity path reads the same nprobe from the index's metadata
    assert tuned_nprobe(Path(high.index_path), high.nlist or 0, 0.99) == high.nprobe
    assert high.identity["nprobe"] == high.nprobe


def test_the_recall_target_is_a_profile_setting_recorded_only_when_changed() -> None:
    profile = load_profile("paper-deberta-llama")
    assert profile.retriever.ivf_recall_target == 0.95
    assert "ivf_recall_target" not in profile.resolved()["retriever"]  # published profiles unchanged
    changed = load_profile(
        "paper-deberta-llama", retriever={**profile.retriever.model_dump(), "ivf_recall_target": 0.99}
    )
    assert changed.resolved()["retriever"]["ivf_recall_target"] == 0.99
    with pytest.raises(ValueError):
        RetrieverSpec(ivf_recall_target=1.5)


def test_held_out_queries_leave_out_the_scored_task(tmp_path: Path) -> None:
    import pandas as pd

    for task, texts in {"a": ["q1", "q2", "q2"], "b": ["r1"]}.items():
        (tmp_path / task / "data").mkdir(parents=True)
        pd.DataFrame({"text": texts}).to_parquet(tmp_path / task / "data" / "queries.parquet")
        card = {
            "id": task,
            "data": {"kind": "local", "path": "data", "tables": {"queries": "queries.parquet"}},
        }
        (tmp_path / task / "task.yaml").write_text(json.dumps(card))
    assert held_out_queries(root=tmp_path) == {
        "texts": ["q1", "q2", "r1"],
        "source": {"a": 2, "b": 1},
        "held_out": [],
    }
    assert held_out_queries(["a"], root=tmp_path)["texts"] == ["r1"]
    with pytest.raises(Exception, match="no task queries"):
        held_out_queries(["a", "b"], root=tmp_path)


def test_an_ivf_index_over_a_corpus_with_a_flat_index_reads_its_vectors_without_encoding(
    stand_in: list[StandIn], caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="benchmark.retrieval")
    ps = passages(3000)
    flat = DenseRetriever(ps, RetrieverSpec(dense_index="flat"), EmbedderSpec(model="x"), progress=False)
    ivf = DenseRetriever(ps, RetrieverSpec(dense_index="ivf-hnsw"), EmbedderSpec(model="x"), progress=False)
    assert "taking corpus embeddings from" in caplog.text
    assert [kind for kind, _ in stand_in[1].encoded] == ["query"]  # the tuning queries; no passages
    again = DenseRetriever(ps, RetrieverSpec(dense_index="ivf-hnsw"), EmbedderSpec(model="x"), progress=False)
    assert again.reused  # memory-mapped from disk: answers as the index just built
    queries = [f"query {i}" for i in range(50)]
    ids = lambda runs: [[h.passage_id for h in hs] for hs in runs]  # noqa: E731
    assert ids(again.search(queries, 10)) == ids(ivf.search(queries, 10))
    exact, approx = ids(flat.search(queries, 10)), ids(ivf.search(queries, 10))
    recall = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact, strict=True)])
    assert recall >= 0.8, recall  # tuned for 0.95 on other queries of the same kind
