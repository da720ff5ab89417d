"""Attribution scores from a trace alone: what the pipeline records and what a published
result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types, so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.attribution import formulas
from benchmark.families.attribution.trace import AttributionTrace, SentenceTrace


def level(label: str | None) -> float | None:
    return None if label is None else formulas.LEVELS[label]


def sentence(s: SentenceTrace) -> formulas.Sentence:
    alone = tuple(level(c.alone) for c in s.citations)
    return formulas.Sentence(
        alone=alone,
        joint=(alone[0] if len(alone) == 1 else level(s.joint)) if alone else None,
        without=tuple(level(c.without) for c in s.citations) if len(alone) > 1 else (),
        invalid=len(s.invalid),
    )


def trace_scores(trace: AttributionTrace) -> dict[str, float | None]:
    out = formulas.attribution_scores([sentence(s) for s in trace.sentences])
    if trace.diagnosed:
        used = sorted({p for s in trace.sentences for p in s.context_support})
        out |= formulas.diagnostic_scores([s.source for s in trace.sentences], trace.relevant_given, used)
    return out
