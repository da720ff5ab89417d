"""Nugget scores from a trace alone: what the pipeline records and what a published result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types, so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.trace import NuggetsTrace


def trace_scores(trace: NuggetsTrace) -> dict[str, float | None]:
    """The four scores; a topic with no nugget has none, unless the trace was scored
    nuggetizer-compatible and its topic's nugget list was given empty (not missing: that is
    a failure, never a 0)."""
    if not trace.nuggets and (trace.failures or not trace.nuggetizer_compatible):
        return dict.fromkeys(formulas.SCORES)
    return formulas.nugget_scores(
        [n.importance for n in trace.nuggets],
        [n.assignment for n in trace.nuggets],
        compatible=trace.nuggetizer_compatible,
    )
