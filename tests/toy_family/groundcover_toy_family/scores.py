"""The toy family's scores from a trace alone."""

from __future__ import annotations

from groundcover_toy_family import formulas
from groundcover_toy_family.trace import ToyTrace


def trace_scores(trace: ToyTrace) -> dict[str, float | None]:
    return {"word_recall": formulas.recall(trace.query_words, trace.found)}
