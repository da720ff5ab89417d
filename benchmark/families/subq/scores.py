"""Sub-question coverage scores from a trace alone, importing no model: how a published result is checked."""

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


#: the scores that are a weighted mean of per-sub-question labels "the answer covers it"
#: (``--human-labels``): the three answer coverages, and the hybrid, whose weights are fixed
#: before any judgement (the type weights), so it is a weighted mean of the same labels.  The
#: retrieval coverages label the same sub-questions with another meaning (covered by the
#: retrieved chunks), and a labels file holds one label per unit: they are not declared.
LABELLED = ("subq_hybrid", "answer_core", "answer_background", "answer_follow_up")


def units(trace: SubqTrace, key: str) -> list[tuple[str, float, float]] | None:
    """(sub-question id, 1 if covered by the answer, weight) for one of :data:`LABELLED`, so that
    the score is Σ label × weight (``--human-labels``): 1 / n_t within a type; in the hybrid
    w_t / (n_t · Σ w_t), a zero-weight type left out.  ``None`` where the score has no value."""
    if key not in LABELLED or trace_scores(trace).get(key) is None:
        return None
    subs = trace.sub_questions
    per_type = {t: sum(1 for s in subs if s.type == t) for t in formulas.TYPES}
    if key == "subq_hybrid":
        type_weight = {t: w for t, w in zip(formulas.TYPES, trace.weights, strict=True) if per_type[t]}
        total = sum(type_weight.values())
        weight = {t: w / (per_type[t] * total) for t, w in type_weight.items() if w > 0}
    else:
        wanted = next(t for t in formulas.TYPES if key == f"answer_{t.replace('-', '_')}")
        weight = {wanted: 1.0 / per_type[wanted]}
    return [
        (s.sub_question_id, 1.0 if s.in_answer else 0.0, weight[s.type]) for s in subs if s.type in weight
    ]
