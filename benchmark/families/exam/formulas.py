"""EXAM's equations (Sander & Dietz, 2021, §3) as pure functions of plain data.

* a question is *correctly answered* from a text when the question answerer picks the
  key (multiple choice), or rates the question answerable from the text and its answer
  is verified against the key (free text, as in EXAM++); an abstention, a wrong option
  and an unanswerable rating all earn nothing;
* ``EXAM(d_q)`` = correctly answered questions / questions of query ``q``; a query the
  system skipped is answered by the empty text and so scores 0;
* ``n-EXAM(S)`` = Σ_q EXAM(d_q | S) / Σ_q EXAM(d*_q), the gold articles' EXAM in the
  denominator; it exceeds 1 when the system's texts answer more than the gold articles.

Nothing here calls a model.  A question whose verdict is unknown (the answerer's output
could not be used) leaves its query's EXAM undetermined: it is a failure, never a 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: EXAM++'s answerability scale: 0 (not answerable from the text) to 5 (fully answered)
RATING_SCALE = range(0, 6)
DEFAULT_MIN_RATING = 4
#: EXAM++'s default rank cut-off: a system's paragraphs ranked deeper count for no EXAM
#: (``compute_exam_cover_scores(..., rank_cut_off=20)``)
RANK_CUTOFF = 20


@dataclass(frozen=True)
class Verdict:
    """One question's outcome: ``correct`` is None when it could not be determined."""

    correct: bool | None
    answered: bool | None  # the answerer committed to an answer (did not abstain)


def choose_option(support: Sequence[float | None], threshold: float, margin: float = 0.0) -> int | None:
    """The option whose assertion the text supports best (``support[i]``: option ``i``'s best
    window), or ``None`` (abstain) below ``threshold`` or within ``margin`` of the runner-up;
    ``ValueError`` when a support is missing."""
    if any(s is None for s in support):
        raise ValueError("an option's support could not be scored")
    scores = [float(s) for s in support]  # type: ignore[arg-type]
    if not scores:
        return None
    best = max(range(len(scores)), key=lambda i: scores[i])
    runner_up = max((s for i, s in enumerate(scores) if i != best), default=float("-inf"))
    if scores[best] < threshold or (margin > 0 and scores[best] - runner_up <= margin):
        return None
    return best


def rated_answerable(rating: int | None, min_rating: int = DEFAULT_MIN_RATING) -> bool | None:
    """EXAM++: a question counts as answered when its self-rating reaches ``min_rating``."""
    return None if rating is None else rating >= min_rating


def exam(verdicts: Sequence[Verdict]) -> float | None:
    """Correctly answered / questions; ``None`` when a verdict is unknown or there are no questions."""
    if not verdicts or any(v.correct is None for v in verdicts):
        return None
    return sum(bool(v.correct) for v in verdicts) / len(verdicts)


def answered_share(verdicts: Sequence[Verdict]) -> float | None:
    """The share of questions the answerer committed to (right or wrong)."""
    if not verdicts or any(v.answered is None for v in verdicts):
        return None
    return sum(bool(v.answered) for v in verdicts) / len(verdicts)


def pooled_n_exam(system: Sequence[float], gold: Sequence[float]) -> float | None:
    """The paper's n-EXAM as one pooled ratio Σ EXAM(system) / Σ EXAM(gold); ``None`` when
    the gold sum is 0."""
    if len(system) != len(gold):
        raise ValueError("n-EXAM needs the system's and the gold articles' EXAM on the same queries")
    denominator = sum(gold)
    return sum(system) / denominator if denominator > 0 else None


def normalised(exam_score: float | None, gold_mean: float | None) -> float | None:
    """One query's share of n-EXAM: EXAM(d_q) / mean_q EXAM(d*_q); its mean over the gold
    queries is :func:`pooled_n_exam`, with per-query intervals and paired tests."""
    if exam_score is None or not gold_mean:
        return None
    return exam_score / gold_mean
