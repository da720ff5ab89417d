"""The toy family's scores from a trace alone."""

from __future__ import annotations

from tests.toy_family import formulas
from tests.toy_family.trace import ToyTrace


def trace_scores(trace: ToyTrace) -> dict[str, float | None]:
    return {"word_recall": formulas.recall(trace.query_words, trace.found)}
