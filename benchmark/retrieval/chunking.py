"""Passages: documents cut into overlapping word windows, and the fingerprint that names an index."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.core.errors import InputError


@dataclass(frozen=True)
class Passage:
    """A window of one document; ``start_word`` is its offset in the (titled) text."""

    passage_id: str
    doc_id: str
    text: str
    start_word: int


def chunk_words(text: str, size: int = 128, overlap: int = 32) -> list[tuple[int, str]]:
    """Windows of ``size`` whitespace-separated words, each starting ``size - overlap`` words
    after the previous one, as ``(start_word, text)``, whitespace normalised.  The last may be
    shorter; none lies wholly inside the previous one (``size`` words: one passage)."""
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"chunking needs 0 <= overlap < size, got size={size}, overlap={overlap}")
    words = text.split()
    if not words:
        return []
    return [
        (s, " ".join(words[s : s + size])) for s in range(0, max(1, len(words) - overlap), size - overlap)
    ]


def chunk_corpus(docs: Iterable[dict[str, Any]], size: int = 128, overlap: int = 32) -> list[Passage]:
    """Passages ``<doc_id>#<i>`` (``i`` from 0) of every document, in input order.

    A title is prepended (``"<title>. <text>"``) *before* chunking, so the first passage
    carries the context a claim often needs while every passage keeps at most ``size`` words
    (its words count towards ``start_word``).  A repeated ``doc_id`` is an error.
    """
    passages: list[Passage] = []
    seen: set[str] = set()
    for doc in docs:
        doc_id = str(doc["doc_id"])
        if doc_id in seen:
            raise InputError.at("corpus", f"duplicate document id {doc_id!r}", field="doc_id")
        seen.add(doc_id)
        text = doc.get("text")
        text = text if isinstance(text, str) else ""
        title = doc.get("title")
        if isinstance(title, str) and title.strip() and text.strip():
            text = f"{title.strip()}. {text}"
        for i, (start, chunk) in enumerate(chunk_words(text, size, overlap)):
            passages.append(Passage(f"{doc_id}#{i}", doc_id, chunk, start))
    return passages


def corpus_fingerprint(passages: Sequence[Passage]) -> str:
    """SHA-256 over passage ids and texts, in order: what an index's content depends on."""
    h = hashlib.sha256()
    for p in passages:
        h.update(p.passage_id.encode("utf-8"))
        h.update(b"\x00")
        h.update(p.text.encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()
