"""Pins the chunker: ≤128-word windows with 32-word overlap (ICAT §4.3).

Passage ids and windows are part of every stored grounding result (supporting passage
ids) and of every index key, so any change here must be deliberate.
"""

from __future__ import annotations

import itertools

import pytest

from benchmark.core.errors import InputError
from benchmark.retrieval import Passage, chunk_corpus, chunk_words, corpus_fingerprint


def words(n: int, start: int = 0) -> str:
    return " ".join(f"w{i}" for i in range(start, start + n))


def test_exact_windows_small() -> None:
    assert chunk_words(words(10), size=4, overlap=1) == [
        (0, "w0 w1 w2 w3"),
        (3, "w3 w4 w5 w6"),
        (6, "w6 w7 w8 w9"),
    ]
    assert chunk_words(words(5), size=4, overlap=2) == [(0, "w0 w1 w2 w3"), (2, "w2 w3 w4")]
    assert chunk_words(words(6), size=3, overlap=0) == [(0, "w0 w1 w2"), (3, "w3 w4 w5")]
    assert chunk_words(words(7), size=3, overlap=0) == [(0, "w0 w1 w2"), (3, "w3 w4 w5"), (6, "w6")]


def test_defaults_are_128_32() -> None:
    chunks = chunk_words(words(300))
    assert [s for s, _ in chunks] == [0, 96, 192]
    assert [len(t.split()) for _, t in chunks] == [128, 128, 108]
    assert chunks[-1][1].split()[-1] == "w299"  # nothing lost at the end


@pytest.mark.parametrize(
    ("n", "size", "overlap"), [(1000, 128, 32), (129, 128, 32), (50, 10, 3), (97, 16, 15)]
)
def test_overlap_and_coverage(n: int, size: int, overlap: int) -> None:
    chunks = chunk_words(words(n), size=size, overlap=overlap)
    for (s1, t1), (s2, t2) in itertools.pairwise(chunks):
        assert s2 - s1 == size - overlap
        if overlap:
            assert t1.split()[-overlap:] == t2.split()[:overlap]
    assert all(len(t.split()) <= size for _, t in chunks)
    for start, text in chunks:  # start_word is the window's offset in the document
        assert text.split() == words(n).split()[start : start + size]
    covered = {w for _, t in chunks for w in t.split()}
    assert covered == set(words(n).split())
    assert chunks[-2][0] + size < n  # the last window is needed (not inside the previous one)


def test_short_empty_and_whitespace() -> None:
    assert chunk_words("only three words") == [(0, "only three words")]
    assert chunk_words("") == []
    assert chunk_words("   \n\t ") == []
    assert chunk_words(words(128)) == [(0, words(128))]  # exactly one window, no empty tail
    assert chunk_words("a\n\nb\t c") == [(0, "a b c")]  # whitespace normalised


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (4, 4), (4, 5), (4, -1), (-3, 0)])
def test_bad_parameters(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_words(words(10), size=size, overlap=overlap)


def test_passage_ids_and_title_in_first_passage_only() -> None:
    docs = [{"doc_id": "a", "title": "Aspirin", "text": words(200)}, {"doc_id": "b", "text": "short doc"}]
    ps = chunk_corpus(docs)
    assert [p.passage_id for p in ps] == ["a#0", "a#1", "b#0"]
    assert [p.doc_id for p in ps] == ["a", "a", "b"]
    # the title counts towards the first window: "Aspirin." + 127 words
    assert ps[0].text.startswith("Aspirin. w0") and len(ps[0].text.split()) == 128
    assert not ps[1].text.startswith("Aspirin") and ps[1].start_word == 96
    assert ps[1].text.split()[0] == "w95"  # offsets are in the titled text
    assert ps[2] == Passage("b#0", "b", "short doc", 0)


def test_title_edge_cases_and_custom_sizes() -> None:
    ps = chunk_corpus(
        [{"doc_id": 7, "title": "  ", "text": "x y z"}, {"doc_id": "t", "title": "T", "text": ""}]
    )
    assert ps == [Passage("7#0", "7", "x y z", 0)]  # blank title ignored; a title alone is no passage
    ps = chunk_corpus([{"doc_id": "d", "title": None, "text": words(10)}], size=4, overlap=1)
    assert [p.passage_id for p in ps] == ["d#0", "d#1", "d#2"]


def test_duplicate_doc_ids_rejected() -> None:
    with pytest.raises(InputError, match="duplicate document id 'a'"):
        chunk_corpus([{"doc_id": "a", "text": "one"}, {"doc_id": "a", "text": "two"}])


def test_fingerprint_tracks_ids_and_text() -> None:
    ps = chunk_corpus([{"doc_id": "a", "text": words(20)}], size=8, overlap=2)
    fp = corpus_fingerprint(ps)
    assert fp == corpus_fingerprint(list(ps))
    assert fp != corpus_fingerprint(chunk_corpus([{"doc_id": "a", "text": words(20)}], size=8, overlap=3))
    assert fp != corpus_fingerprint(chunk_corpus([{"doc_id": "b", "text": words(20)}], size=8, overlap=2))
