"""Pins the chunker: ≤128-word windows with 32-word overlap (ICAT §4.3)."""

from __future__ import annotations

import pytest

from benchmark.retrieval import chunk_corpus, chunk_words


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_exact_windows_small() -> None:
    assert chunk_words(words(10), size=4, overlap=1) == [(0, "w0 w1 w2 w3"), (3, "w3 w4 w5 w6"), (6, "w6 w7 w8 w9")]
    assert chunk_words(words(5), size=4, overlap=2) == [(0, "w0 w1 w2 w3"), (2, "w2 w3 w4")]


def test_defaults_128_32() -> None:
    chunks = chunk_words(words(300))
    assert [s for s, _ in chunks] == [0, 96, 192]
    assert all(len(t.split()) <= 128 for _, t in chunks)
    first, second = chunks[0][1].split(), chunks[1][1].split()
    assert first[-32:] == second[:32]  # 32-word overlap
    assert chunks[-1][1].split()[-1] == "w299"  # nothing lost at the end


def test_short_and_empty() -> None:
    assert chunk_words("only three words") == [(0, "only three words")]
    assert chunk_words("   \n ") == []
    assert chunk_words(words(128)) == [(0, words(128))]  # exactly one window, no empty tail


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (4, 4), (4, 5), (4, -1)])
def test_bad_parameters(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_words(words(10), size=size, overlap=overlap)


def test_corpus_ids_and_title_in_first_passage() -> None:
    docs = [{"doc_id": "a", "title": "Aspirin", "text": words(200)}, {"doc_id": "b", "text": "short doc"}]
    ps = chunk_corpus(docs)
    assert [p.passage_id for p in ps] == ["a#0", "a#1", "b#0"]
    assert ps[0].text.startswith("Aspirin. w0") and not ps[1].text.startswith("Aspirin")
    assert ps[2].doc_id == "b" and ps[2].start_word == 0
