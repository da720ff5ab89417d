"""EXAM scores from a trace alone: what the pipeline records and what a published result is checked against.

Like ``formulas``, it imports only the standard library, the formulas and the family's
trace types (a test enforces it), so a result is recomputed with no model installed."""

from __future__ import annotations

from benchmark.families.exam import formulas
from benchmark.families.exam.trace import ExamTrace


def trace_scores(trace: ExamTrace) -> dict[str, float | None]:
    """The query's scores from its trace alone (also how published results are checked)."""
    verdicts = [formulas.Verdict(correct=q.correct, answered=q.answered) for q in trace.questions]
    exam = formulas.exam(verdicts)
    return {
        "exam": exam,
        "n_exam": formulas.normalised(exam, trace.gold_mean),
        "answered": formulas.answered_share(verdicts),
    }
