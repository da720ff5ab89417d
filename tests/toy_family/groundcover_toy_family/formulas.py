"""The toy family's equation, pure: share of the query's words found in the answer."""

from __future__ import annotations

from collections.abc import Sequence


def recall(query_words: Sequence[str], answer_words: Sequence[str]) -> float | None:
    """|query ∩ answer| / |query| over distinct words; ``None`` for a query with none."""
    wanted = set(query_words)
    return len(wanted & set(answer_words)) / len(wanted) if wanted else None
