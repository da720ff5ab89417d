"""DecompScore scores from a trace alone: what the pipeline records and what a published result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types (a test enforces it), so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.decompscore import formulas
from benchmark.families.decompscore.trace import DecompTrace


def trace_scores(trace: DecompTrace) -> dict[str, float | None]:
    """The passage's scores from its trace alone (also how published results are checked)."""
    if any(u.error for u in trace.units):
        return {}
    units = [
        [
            formulas.Verdicts(
                supported=None if s.support is None else s.support >= 0.5,
                entailed=s.entailed,
                grounded=s.grounded,
            )
            for s in u.subclaims
        ]
        for u in trace.units
    ]
    return formulas.passage_scores(units, grounded=trace.grounded)
