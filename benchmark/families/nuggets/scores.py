"""Nugget scores from a trace alone: what the pipeline records and what a published result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types, so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.trace import NuggetsTrace


def trace_scores(trace: NuggetsTrace) -> dict[str, float | None]:
    if not trace.nuggets:
        return dict.fromkeys(formulas.SCORES)
    return formulas.nugget_scores(
        [n.importance for n in trace.nuggets], [n.assignment for n in trace.nuggets]
    )
