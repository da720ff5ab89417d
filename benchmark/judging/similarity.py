"""Topical address by embedding similarity: for each question, the window of a text closest to it.

Without a model that reads (no NLI model, no capable LLM offline), a question can still be
asked of a text in one way: is some window of one or two of its sentences as close to the
question, by the cosine of the profile's sentence embedder, as a threshold asks?  That says
whether the text is *about* what the question asks, not whether it answers it correctly.
Sub-question coverage's similarity judge and EXAM's similarity answerer both read this way,
so the two families share it rather than each keeping its own copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: (a text's windows, the questions asked of it)
Item = tuple[Sequence[str], Sequence[str]]


def closest_windows(embedder: Any, items: Sequence[Item]) -> list[list[tuple[float, str | None]]]:
    """Per item, per question: the highest cosine of any of the text's windows to it, and that
    window — ``(0.0, None)`` for a text without windows (an empty text addresses nothing).
    Every distinct text of all items goes to ``embedder.encode`` in one call (queries: the
    content-hash cache), so a batch of items costs one pass over its new texts."""
    texts = list(dict.fromkeys([w for ws, _ in items for w in ws] + [q for _, qs in items for q in qs]))
    vecs = embedder.encode(texts, kind="query") if texts else []
    row = {t: vecs[i] for i, t in enumerate(texts)}
    return [
        [max(((float(row[w] @ row[q]), w) for w in ws), default=(0.0, None)) for q in questions]
        for ws, questions in items
    ]
