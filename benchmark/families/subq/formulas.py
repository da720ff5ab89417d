"""Sub-question coverage (Xie et al., 2024) as pure functions: per type (core, background,
follow-up) the covered share in the retrieved chunks and in the answer, and the hybrid, a
weighted sum of the answer coverages renormalised over the types a query has.  An unknown
coverage leaves its type undetermined, never 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TYPES = ("core", "background", "follow-up")
#: the six metrics: coverage of each type in the retrieved chunks and in the answer
METRICS = tuple(f"{where}_{t.replace('-', '_')}" for where in ("answer", "retrieval") for t in TYPES)
DEFAULT_WEIGHTS = (0.6, 0.3, 0.1)  # core > background > follow-up, until fitted to preferences


def coverage(types: Sequence[str], covered: Sequence[bool | None]) -> dict[str, float | None]:
    """Per type, the share of its sub-questions covered (``None``: none, or one undetermined)."""
    out: dict[str, float | None] = {}
    for t in TYPES:
        marks = [c for ty, c in zip(types, covered, strict=True) if ty == t]
        out[t] = (
            None if not marks or any(c is None for c in marks) else sum(bool(c) for c in marks) / len(marks)
        )
    return out


def hybrid(cov: Mapping[str, float | None], weights: Sequence[float] = DEFAULT_WEIGHTS) -> float | None:
    """Σ_t w_t · coverage_t over the types the query has, divided by their Σ w_t."""
    pairs = [(w, cov.get(t)) for w, t in zip(weights, TYPES, strict=True) if cov.get(t) is not None]
    total = sum(w for w, _ in pairs)
    return sum(w * c for w, c in pairs) / total if pairs and total > 0 else None  # type: ignore[operator]


@dataclass(frozen=True)
class Preference:
    """One labelled pair: answer coverages by type, and which answer people preferred."""

    a: Mapping[str, float | None]
    b: Mapping[str, float | None]
    preferred: str  # "A" or "B"


def agreement(score_a: float | None, score_b: float | None, preferred: str) -> float | None:
    """1 when the higher score is the preferred answer, 0.5 on a tie, None when unscored."""
    if score_a is None or score_b is None:
        return None
    if score_a == score_b:
        return 0.5
    return float((score_a > score_b) == (preferred == "A"))


def preference_accuracy(pairs: Sequence[Preference], weights: Sequence[float]) -> float | None:
    """Pairwise preference accuracy of the hybrid score with ``weights`` (ties count ½)."""
    hits = [agreement(hybrid(p.a, weights), hybrid(p.b, weights), p.preferred) for p in pairs]
    hits = [h for h in hits if h is not None]
    return sum(hits) / len(hits) if hits else None


def weight_grid(step: float = 0.1) -> list[tuple[float, float, float]]:
    """Every (w_core, w_background, w_follow-up) on a ``step`` grid that sums to 1."""
    n = round(1 / step)
    return [
        (round(i * step, 10), round(j * step, 10), round((n - i - j) * step, 10))
        for i, j in itertools.product(range(n + 1), repeat=2)
        if i + j <= n
    ]


def fit_weights(
    pairs: Sequence[Preference], step: float = 0.1
) -> tuple[tuple[float, float, float], float | None]:
    """The grid weights with the best preference accuracy (the first, in grid order, on ties)."""
    best: tuple[tuple[float, float, float], float | None] = (DEFAULT_WEIGHTS, None)  # type: ignore[assignment]
    for w in weight_grid(step):
        acc = preference_accuracy(pairs, w)
        if acc is not None and (best[1] is None or acc > best[1]):
            best = (w, acc)
    return best
