"""Sub-question coverage scores from a trace alone: what the pipeline records and what a published result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types (a test enforces it), so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.subq import formulas
from benchmark.families.subq.trace import SubqTrace


def trace_scores(trace: SubqTrace) -> dict[str, float | None]:
    """The six coverages and the hybrid from the trace alone (how published results are checked)."""
    types = [s.type for s in trace.sub_questions]
    answer = formulas.coverage(types, [s.in_answer for s in trace.sub_questions])
    scores: dict[str, float | None] = {f"answer_{t.replace('-', '_')}": v for t, v in answer.items()}
    if trace.retrieval_judged:
        retrieval = formulas.coverage(types, [s.in_retrieval for s in trace.sub_questions])
        scores |= {f"retrieval_{t.replace('-', '_')}": v for t, v in retrieval.items()}
    undetermined = any(s.in_answer is None for s in trace.sub_questions)
    scores["subq_hybrid"] = None if undetermined else formulas.hybrid(answer, trace.weights)
    return scores
