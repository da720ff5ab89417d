"""DecompScore scores from a trace alone, importing no model: how a published result is checked."""

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
