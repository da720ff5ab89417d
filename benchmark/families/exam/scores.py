"""EXAM scores from a trace alone, importing no model: how a published result is checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


#: the scores that are a weighted mean of per-question labels (``--human-labels``): EXAM only.
#: n-EXAM divides by the gold articles' EXAM, which the same judge estimates on other texts;
#: labels of the answer's questions do not reach that denominator, so it is not a unit mean.
LABELLED = ("exam",)


def units(trace: ExamTrace, key: str = "exam") -> list[tuple[str, float, float]] | None:
    """(question id, 1 if answered correctly, 1 / questions) for EXAM of one answer, so that a
    human label can correct it (``--human-labels``); ``None`` where EXAM has no value."""
    if key not in LABELLED or trace_scores(trace).get(key) is None:
        return None
    n = len(trace.questions)
    return [(q.question_id, 1.0 if q.correct else 0.0, 1.0 / n) for q in trace.questions]


def curves(traces: Sequence[ExamTrace], settings: Any) -> dict[str, dict[str, float | None]]:
    """Each query's gold-article EXAM: the normaliser's parts, kept with the result."""
    gold = {t.query_id: t.gold_exam for t in traces}
    return {"gold_exam": gold} if any(v is not None for v in gold.values()) else {}
