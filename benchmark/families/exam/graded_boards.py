"""EXAM on an EXAM++ graded-paragraph file: the leaderboards of its runs, for ranking cards
(``benchmark meta-eval rankings``, through :func:`graded_leaderboards`), and the default
answerer measured on its judged passages, for judge cards (:func:`answer_for_card`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError
from benchmark.families.base import GradedBoards, JudgedPassage, Regrading
from benchmark.families.exam import formulas
from benchmark.families.exam.bank import Bank
from benchmark.families.exam.exampp import Grade, GradedParagraph, counting, exam_from_grades
from benchmark.families.exam.family import EXAM, ExamSettings
from benchmark.families.exam.judges import Answerer
from benchmark.families.exam.judges import answerer as make_answerer
from benchmark.judging.stack import JudgeStack


def exam_boards(
    paragraphs: Sequence[Any], grader: str, min_rating: int | None, rank_cutoff: int
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """EXAM and n-EXAM per system and topic under one grader, as EXAM++ computes them; n-EXAM
    divides by the share of the topic's questions any graded paragraph answers (EXAM++'s
    ``totalCorrect``)."""
    exam = exam_from_grades(paragraphs, grader, min_rating=min_rating, rank_cutoff=rank_cutoff)
    mode = counting(paragraphs, grader, min_rating)
    asked: dict[str, set[str]] = {}
    answered: dict[str, set[str]] = {}
    for p in paragraphs:
        if (g := p.grade(grader)) is not None:
            asked.setdefault(p.query_id, set()).update(g.asked(mode))
            answered.setdefault(p.query_id, set()).update(g.answered(mode))
    return exam, _n_exam(exam, asked, answered)


def _n_exam(
    exam: dict[str, dict[str, float]], asked: dict[str, set[str]], answered: dict[str, set[str]]
) -> dict[str, dict[str, float]]:
    """Each system's EXAM over the share of the topic's ``asked`` questions that some paragraph answers."""
    overall = {q: len(answered.get(q, set()) & a) / len(a) for q, a in asked.items() if a}
    return {
        s: {q: (v / overall[q] if overall.get(q) else 0.0) for q, v in per.items()} for s, per in exam.items()
    }


@dataclass(frozen=True)
class Regraded:
    """A graded file's paragraphs graded again by a profile's own answerer: the grades, the boards,
    and what failed (a (system, topic) with a failed paragraph in its top has no value)."""

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
    """Grade every paragraph ranked within ``rank_cutoff`` on ``topics`` with ``answerer``, then
    EXAM and n-EXAM per system and topic as :func:`exam_boards` computes them."""
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
    asked = {q: {x.question_id for x in bank[q]} for q in wanted if bank.get(q)}
    n_exam = _n_exam(exam, asked, answered)
    return Regraded(grader, kept, exam, n_exam, len(items), n_failed, dict(reasons), len(tainted))


def _reason(error: str) -> str:
    """A failure's kind for the card's tally: the first clause of the message after its stage."""
    text = error.split(":", 1)[1] if ":" in error else error
    return text.strip().split("(")[0].split(";")[0].strip()[:120]


def graded_leaderboards(
    grades: Path,
    *,
    grader: str | None,
    min_rating: int | None,
    rank_cutoff: int,
    regrade: Regrading | None = None,
) -> GradedBoards | None:
    """EXAM and n-EXAM of every run in an EXAM++ graded file under one of its graders, or, with
    ``regrade``, under the profile's own answerer."""
    from benchmark.core.errors import rel
    from benchmark.families.exam.exampp import choose_graders, counted, counting, read_grades

    paragraphs = read_grades(grades)
    if regrade is not None:
        return _regraded(paragraphs, regrade, min_rating, rank_cutoff)
    chosen = choose_graders(paragraphs, grader, rel(grades))
    if not chosen:
        raise InputError.at(rel(grades), "holds no graded paragraphs", field="--grades")
    if len(chosen) > 1:  # a card is one judge's
        raise InputError.at(
            rel(grades), f"holds {len(chosen)} graders: name one ({'; '.join(chosen)})", field="--grader"
        )
    exam, n_exam = exam_boards(paragraphs, chosen[0], min_rating, rank_cutoff)
    label = f"({chosen[0]}, {counted(counting(paragraphs, chosen[0], min_rating))})"
    return GradedBoards(chosen[0], {f"EXAM {label}": exam, f"n-EXAM {label}": n_exam}, paragraphs)


def _regraded(
    paragraphs: Sequence[Any], how: Regrading, min_rating: int | None, rank_cutoff: int
) -> GradedBoards:
    """The profile's answerer on the file's ranked paragraphs: the one ``how`` names, else the
    default where it reads the bank's questions, else the LLM reader (free text without a key)."""
    from benchmark.families.exam.exampp import read_bank

    bank = read_bank(how.bank)
    order = list(dict.fromkeys(p.query_id for p in paragraphs if bank.get(p.query_id)))
    topics = order[: how.topics] if how.topics else order
    chosen = set(topics)
    free = any(q.kind != "multiple-choice" and not q.answer for t in topics for q in bank[t])
    settings = ExamSettings(answerer=how.answerer or ("llm" if free else ExamSettings().answerer))
    if min_rating is not None:
        settings = settings.model_copy(update={"min_rating": min_rating})
    answerer = make_answerer(how.judges, settings)
    name = f"groundcover {how.judges.profile.id} exam {settings.answerer} answerer"
    done = regrade(
        paragraphs,
        bank,
        answerer,
        name,
        topics=topics,
        min_rating=settings.min_rating,
        rank_cutoff=rank_cutoff,
    )
    rule = {
        "llm": f"self-rating ≥ {settings.min_rating}",
        "similarity": f"cosine ≥ {settings.threshold}",
    }.get(settings.answerer, f"support ≥ {settings.threshold}")
    label = f"({name}, {rule})"
    return GradedBoards(
        name,
        {f"EXAM {label}": done.exam, f"n-EXAM {label}": done.n_exam},
        [p for p in paragraphs if p.query_id in chosen],
        regraded={
            "answerer": answerer.identity,
            "topics": list(topics),
            "readings": done.readings,
            "failed_readings": done.failed_readings,
            "failures": done.failures,
            "system_topic_cells_left_out": done.cells_left_out,
        },
    )


def answer_for_card(
    role: str, judges: JudgeStack, grades: Path, bank: Path, *, grader: str | None = None
) -> list[JudgedPassage] | None:
    """The default answerer on every judged passage of an EXAM++ graded file (EXAM++'s qrels
    mode): per passage, how many of its query's questions it answers correctly, next to how many
    the file's ``grader`` answered.  A passage the answerer failed on keeps ``ours`` None."""
    from benchmark.core.errors import rel
    from benchmark.families.exam.exampp import read_bank

    if role not in EXAM.judged_by.get(EXAM.primary, ()):
        return None
    questions = read_bank(bank)
    judged, mode = _judged_passages(grades, grader)
    settings = ExamSettings()
    asked = {q.question_id: q for p, _ in judged for q in questions.get(p.query_id, [])}
    unreadable = [q for q in asked.values() if q.kind != "multiple-choice" and not q.answer]
    if settings.answerer == "entailment" and unreadable:
        # refused before any model runs: each such question would fail on every passage
        # (EXAM++'s DL19 bank gave n = 0 and 215 failures), and a card of failures says nothing
        raise InputError.at(
            rel(bank),
            f"{len(unreadable)} of the {len(asked)} questions for the judged passages are free text "
            f"without an answer key (e.g. {unreadable[0].question_id!r}: EXAM++'s generated "
            "questions): the default entailment answerer reads multiple-choice questions or a key "
            "only, so it cannot be measured on this bank (EXAM++'s own grades for it are what "
            "`benchmark exam score-grades` reports)",
            field="--exam-bank",
        )
    items = [(q, p.text) for p, _ in judged for q in questions.get(p.query_id, [])]
    readings = iter(make_answerer(judges, settings).read(items))
    out = []
    for p, grade in judged:
        got = [next(readings) for _ in questions.get(p.query_id, [])]
        failures = tuple(r.error for r in got if r.error)
        if not got:
            failures = (f"no questions for query {p.query_id!r} in the bank",)
        out.append(
            JudgedPassage(
                p.query_id,
                int(p.relevance or 0),
                len(p.text.split()),
                None if failures else sum(bool(r.correct) for r in got),
                len(grade.answered(mode)) if grade else 0,
                failures,
            )
        )
    return out


def _judged_passages(grades: Path, grader: str | None) -> tuple[list[tuple[Any, Any]], Any]:
    """The file's judged passages with their grader's grade, and how its answers count."""
    from benchmark.core.errors import rel
    from benchmark.families.exam.exampp import choose_graders, counting, read_grades

    paragraphs = read_grades(grades, "--exam-grades")
    chosen = choose_graders(paragraphs, grader, rel(grades))
    if len(chosen) > 1:
        raise InputError.at(
            rel(grades),
            f"has {len(chosen)} graders: name the one to compare with ({'; '.join(chosen)})",
            field="--exam-grader",
        )
    theirs = chosen[0] if chosen else None
    judged = [
        (p, p.grade(theirs) if theirs else None)
        for p in paragraphs
        if p.relevance is not None and (theirs is None or p.grade(theirs) is not None)
    ]
    if not judged:
        raise InputError.at(str(grades), "holds no judged passages (paragraphs with a relevance grade)")
    return judged, counting(paragraphs, theirs, formulas.DEFAULT_MIN_RATING) if theirs else None
