"""EXAM++'s qrels mode: does a passage's answerability follow its assessed relevance?  EXAM++
validates its answerer so (a relevant passage should answer more of the query's questions);
Cohen's κ and the accuracy are EXAM++'s figures, the correlations and baselines this project's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sklearn.metrics import cohen_kappa_score

from benchmark.metaeval.measures import Correlation, correlate


@dataclass(frozen=True)
class Agreement:
    """Answerability against relevance over the judged passages of a graded file."""

    passages: int
    queries: int
    relevant: int
    #: questions a passage answers against its relevance grade
    answered: Correlation
    #: the length baseline: a passage's words against its relevance grade
    length: Correlation
    #: answerable (≥ 1 question) against relevant (grade ≥ ``relevant_at``)
    kappa: float | None
    accuracy: float | None
    majority: float | None  # accuracy of always saying the commoner class


@dataclass(frozen=True)
class JudgedPassage:
    """A passage as the qrels mode needs it: the questions it answers, its grade, its text."""

    query_id: str
    answered: int
    relevance: int
    text: str


def answerability_vs_relevance(judged: Sequence[JudgedPassage], relevant_at: int = 1) -> Agreement | None:
    """``None`` when there are no judged passages."""
    if not judged:
        return None
    answered = [g.answered for g in judged]
    grade = [float(g.relevance) for g in judged]
    relevant = [g >= relevant_at for g in grade]
    answerable = [a > 0 for a in answered]
    kappa = float(cohen_kappa_score(relevant, answerable)) if len(set(relevant + answerable)) > 1 else None
    share = sum(relevant) / len(relevant)
    return Agreement(
        passages=len(judged),
        queries=len({g.query_id for g in judged}),
        relevant=sum(relevant),
        answered=correlate([float(a) for a in answered], grade),
        length=correlate([float(len(g.text.split())) for g in judged], grade),
        kappa=None if kappa is None or kappa != kappa else kappa,  # NaN: undefined, not a number to show
        accuracy=sum(r == a for r, a in zip(relevant, answerable, strict=True)) / len(judged),
        majority=max(share, 1 - share),
    )
