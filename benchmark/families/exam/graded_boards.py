"""EXAM and n-EXAM leaderboards of the runs in an EXAM++ graded-paragraph file, for ranking
cards (``benchmark meta-eval rankings``, through :meth:`ExamFamily.graded_leaderboards`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmark.families.exam.exampp import counting, exam_from_grades


def exam_boards(
    paragraphs: Sequence[Any], grader: str, min_rating: int | None, rank_cutoff: int
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """EXAM and n-EXAM per system and topic under one grader, as EXAM++ computes them:
    EXAM from :func:`exam_from_grades`; n-EXAM divides a topic's EXAM by the share of its
    questions that any graded paragraph of the topic answers (EXAM++'s ``totalCorrect``
    normaliser), so a topic whose passages answer few questions does not count as hard
    for every system alike.  A system has a value on the topics it ranked a paragraph for."""
    exam = exam_from_grades(paragraphs, grader, min_rating=min_rating, rank_cutoff=rank_cutoff)
    mode = counting(paragraphs, grader, min_rating)
    asked: dict[str, set[str]] = {}
    answered: dict[str, set[str]] = {}
    for p in paragraphs:
        if (g := p.grade(grader)) is not None:
            asked.setdefault(p.query_id, set()).update(g.asked(mode))
            answered.setdefault(p.query_id, set()).update(g.answered(mode))
    overall = {q: len(answered.get(q, set()) & a) / len(a) for q, a in asked.items() if a}
    n_exam = {
        s: {q: (v / overall[q] if overall.get(q) else 0.0) for q, v in per.items()} for s, per in exam.items()
    }
    return exam, n_exam
