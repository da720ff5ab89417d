"""Sentence segmentation (and the one rule for repeated claims), shared by every stage:
pysbd's rule-based segmenter, since a regex on ``.`` breaks "Dr. Smith" into fragments;
cached per text (about a millisecond per passage).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(?P<text>.+?)\s*$")


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


@lru_cache(maxsize=65_536)
def _split_block(block: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _segmenter().segment(block) if s.strip())


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order; line breaks separate sentences too, and a list
    marker (``- ``, ``1.``) is not part of its sentence."""
    out: list[str] = []
    for line in text.splitlines():
        if block := bullet_text(line) or line.strip():
            out.extend(_split_block(block))
    return out


def bullet_text(line: str) -> str | None:
    """The text of a bulleted or numbered line, or ``None`` if it is not one."""
    m = _BULLET.match(line)
    return m.group("text") if m else None


def same_words_key(text: str) -> str:
    """What makes two claims "the same" when repeats are dropped: their words, ignoring
    case and spacing (so an answer or a decomposer cannot score by repeating itself)."""
    return " ".join(text.lower().split())


def trim_proportionally(texts: list[str], budget_words: int) -> list[str]:
    """Cut every text by the same share so that together they fit ``budget_words``, as
    ConQRet trims evidence (no document disappears because the ones before it were long)."""
    words = [t.split() for t in texts]
    total = sum(len(w) for w in words)
    if total <= budget_words:
        return list(texts)
    share = budget_words / total
    return [" ".join(w[: max(1, int(len(w) * share))]) + " …" for w in words]
