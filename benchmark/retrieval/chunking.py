"""Passages: documents cut into overlapping word windows, and the fingerprint that names an index."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.core.errors import InputError, Problem


@dataclass(frozen=True)
class Passage:
    """A window of one document; ``start_word`` is its offset in the (titled) text."""

    passage_id: str
    doc_id: str
    text: str
    start_word: int


def chunk_words(text: str, size: int = 128, overlap: int = 32) -> list[tuple[int, str]]:
    """Windows of ``size`` whitespace-separated words, each starting ``size - overlap``
    words after the previous one, as ``(start_word, text)``.

    The last window ends at the last word and may be shorter; no window lies wholly
    inside the previous one, so a document of exactly ``size`` words is one passage.
    Whitespace is normalised to single spaces (passages are compared as word lists).
    """
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"chunking needs 0 <= overlap < size, got size={size}, overlap={overlap}")
    words = text.split()
    if not words:
        return []
    step = size - overlap
    out: list[tuple[int, str]] = []
    start = 0
    while True:
        out.append((start, " ".join(words[start : start + size])))
        if start + size >= len(words):
            return out
        start += step


def chunk_corpus(docs: Iterable[dict[str, Any]], size: int = 128, overlap: int = 32) -> list[Passage]:
    """Passages ``<doc_id>#<i>`` (``i`` from 0) of every document, in input order.

    A title, when present, is prepended to the document text (``"<title>. <text>"``)
    *before* chunking: the first passage then carries the context a claim often needs
    ("Aspirin. It reduces fever ...") while every passage still has at most ``size``
    words, which is what the embedder and NLI model were chosen for.  The title's words
    therefore count towards the first window and towards ``start_word``.  Documents
    without text produce no passage; a repeated ``doc_id`` is an error because passage
    ids would collide.
    """
    passages: list[Passage] = []
    seen: set[str] = set()
    for doc in docs:
        doc_id = str(doc["doc_id"])
        if doc_id in seen:
            raise InputError(Problem("corpus", f"duplicate document id {doc_id!r}", field="doc_id"))
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
