"""Topical address by embedding similarity: for each question, the window of a text closest to it.

Offline, without a model that reads: whether a text is *about* what a question asks (not
whether it answers it), for sub-question coverage's and EXAM's similarity judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: (a text's windows, the questions asked of it)
Item = tuple[Sequence[str], Sequence[str]]


def closest_windows(embedder: Any, items: Sequence[Item]) -> list[list[tuple[float, str | None]]]:
    """Per item, per question: the highest cosine of any of the text's windows to it, and that
    window (``(0.0, None)`` for no windows), every distinct text encoded in one call."""
    texts = list(dict.fromkeys([w for ws, _ in items for w in ws] + [q for _, qs in items for q in qs]))
    vecs = embedder.encode(texts, kind="query") if texts else []
    row = {t: vecs[i] for i, t in enumerate(texts)}
    return [
        [max(((float(row[w] @ row[q]), w) for w in ws), default=(0.0, None)) for q in questions]
        for ws, questions in items
    ]
