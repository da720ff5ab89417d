"""Nugget scores from a trace alone, importing no model: how a published result is checked."""

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


#: the strict scores and the importance of the nuggets each averages (``None``: every nugget)
STRICT_UNITS: dict[str, str | None] = {"vital_strict": "vital", "all_strict": None}


def units(trace: NuggetsTrace, key: str) -> list[tuple[str, float, float]] | None:
    """(nugget id, strict credit, 1 / nuggets) for a strict score of one answer
    (``--human-labels``); ``None`` where the score has no value."""
    if trace_scores(trace).get(key) is None:
        return None
    wanted = STRICT_UNITS[key]
    counted = [n for n in trace.nuggets if wanted is None or n.importance == wanted]
    return [
        (n.nugget_id, formulas.credit(str(n.assignment), strict=True), 1.0 / len(counted)) for n in counted
    ]
