"""EXAM and n-EXAM leaderboards of the runs in an EXAM++ graded-paragraph file, for ranking
cards (``benchmark meta-eval rankings``, through :meth:`ExamFamily.graded_leaderboards`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from benchmark.families.exam.bank import Bank
from benchmark.families.exam.exampp import Grade, GradedParagraph, counting, exam_from_grades
from benchmark.families.exam.judges import Answerer


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


@dataclass(frozen=True)
class Regraded:
    """A graded file's paragraphs graded again by groundcover's own answerer (a judge
    profile's), on the topics asked: the paragraphs with the new grade, the boards, and what
    failed.  A (system, topic) whose top ``rank_cutoff`` holds a paragraph the answerer failed
    on has no value — left out, never counted as answering nothing."""

    grader: str
    paragraphs: list[GradedParagraph]
    exam: dict[str, dict[str, float]]
    n_exam: dict[str, dict[str, float]]
    readings: int
    failed_readings: int
    failures: dict[str, int]
    cells_left_out: int


def regrade(
    paragraphs: Sequence[GradedParagraph],
    bank: Bank,
    answerer: Answerer,
    grader: str,
    *,
    topics: Sequence[str],
    min_rating: int,
    rank_cutoff: int,
) -> Regraded:
    """Grade every paragraph some system ranked within ``rank_cutoff`` on ``topics`` with
    ``answerer`` on the bank's questions (one reading per question and paragraph, batched
    and cached as every model call), then EXAM and n-EXAM per system and topic from those
    grades, as :func:`exam_boards` computes them from a file's own grader."""
    wanted = set(topics)
    ranked = [p for p in paragraphs if p.query_id in wanted and any(r <= rank_cutoff for _, r in p.rankings)]
    items = [(q, p.text) for p in ranked for q in bank.get(p.query_id, [])]
    readings = iter(answerer.read(items))
    kept: list[GradedParagraph] = []
    failed: set[str] = set()
    reasons: Counter[str] = Counter()
    n_failed = 0
    for p in ranked:
        got = [(q, next(readings)) for q in bank.get(p.query_id, [])]
        errors = [r.error for _, r in got if r.error]
        if errors or not got:
            n_failed += len(errors)
            reasons.update(e.split(":")[0] + ": " + _reason(e) for e in errors)
            failed.add(p.paragraph_id)
            continue
        ratings = {q.question_id: int(r.rating) for q, r in got if r.rating is not None}
        correct = frozenset(q.question_id for q, r in got if r.answered)
        wrong = frozenset(q.question_id for q, r in got if not r.answered)
        kept.append(replace(p, grades=(*p.grades, Grade(grader, correct, wrong, ratings))))
    exam = exam_from_grades(kept, grader, bank, min_rating=min_rating, rank_cutoff=rank_cutoff)
    tainted = {
        (m, p.query_id) for p in ranked if p.paragraph_id in failed for m, r in p.rankings if r <= rank_cutoff
    }
    for system, topic in tainted:
        exam.get(system, {}).pop(topic, None)
    mode = counting(kept, grader, min_rating)  # an answerer that does not self-rate: its verdicts
    answered: dict[str, set[str]] = {}
    for p in kept:
        answered.setdefault(p.query_id, set()).update(p.grades[-1].answered(mode))
    overall = {
        q: len(answered.get(q, set()) & {x.question_id for x in bank[q]}) / len(bank[q])
        for q in wanted
        if bank.get(q)
    }
    n_exam = {
        s: {q: (v / overall[q] if overall.get(q) else 0.0) for q, v in per.items()} for s, per in exam.items()
    }
    return Regraded(grader, kept, exam, n_exam, len(items), n_failed, dict(reasons), len(tainted))


def _reason(error: str) -> str:
    """A failure's kind for the card's tally: the first clause of the message after its stage."""
    text = error.split(":", 1)[1] if ":" in error else error
    return text.strip().split("(")[0].split(";")[0].strip()[:120]
