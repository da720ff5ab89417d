"""Interoperability with EXAM++ (TREMA-UNH/rubric-grading-workbench), the reference
implementation: its question banks (and the other test banks it writes, :func:`read_bank`) and
its graded-paragraph files, both JSON lines, optionally gzipped.  A graded paragraph's
``rankings`` name the systems that ranked it (a system's top :data:`~benchmark.families.exam.formulas.RANK_CUTOFF` count); each
``exam_grades`` entry is one grader's (:func:`grader_name`), never merged.  Files are parsed as
untrusted data: every problem names file, line, field.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import read_rows
from benchmark.families.base import write_jsonl
from benchmark.families.exam import formulas
from benchmark.families.exam.bank import Bank, questions_from_rows
from benchmark.models.cache import content_hash

TOOL = "groundcover"
log = logging.getLogger(__name__)


# -- question banks ---------------------------------------------------------------------


def read_bank(path: Path, flag: str = "--exam-bank") -> Bank:
    """An EXAM++ test bank in any form EXAM++ writes one (docs/exam.md): a question or nugget
    bank, a file of questions (TQA, CAR Y3 "genq"), or the generated CAR Y3 questions as one
    JSON object.  Read as EXAM++'s loaders read it: a blank question is kept and a repeated
    question id with the same question is one question (both logged); a question id with two
    different questions is refused."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[Problem] = []

    def problem(n: int, message: str, field: str) -> None:
        problems.append(Problem(rel(path), message, line=n, field=field))

    if ".json" in path.suffixes and ".jsonl" not in path.suffixes:
        entries = _genq_questions(path, flag)
    else:
        entries = read_rows(path, flag, jsonl=True)
    for n, obj in entries:
        if isinstance(obj, dict) and "qid" in obj and "items" not in obj:
            row, bad = _question_line(obj)
            if bad:
                problem(n, bad[1], bad[0])
            else:
                rows.append(row)
                lines.append(n)
            continue
        if isinstance(obj, dict) and "items" not in obj and isinstance(obj.get("questions"), list):
            obj = {**obj, "items": obj["questions"]}  # the older question-bank form (EXAM++'s DL19 genq)
        if not isinstance(obj, dict) or not isinstance(obj.get("items"), list):
            problem(
                n,
                "each line must be an object with an 'items' list (a question or nugget bank) or a question "
                "with its 'qid'",
                "items",
            )
            continue
        for item in obj["items"]:
            if not isinstance(item, dict):
                problem(n, "each item must be an object", "items")
                continue
            info = item.get("info") if isinstance(item.get("info"), dict) else {}
            answers = item.get("gold_answers") or []
            if not isinstance(answers, list):
                problem(n, "gold_answers must be a list or null", "gold_answers")
                continue
            key = (
                info.get("answer")
                if info.get("answer") is not None
                else (sorted(map(str, answers))[0] if answers else None)
            )
            nugget = "question_id" not in item and "nugget_id" in item
            rows.append(
                {
                    "query_id": item.get("query_id", obj.get("query_id")),
                    "question_id": item.get("nugget_id" if nugget else "question_id"),
                    "question": item.get("nugget_text" if nugget else "question_text"),
                    "kind": info.get("kind", "free-text"),
                    "options": info.get("options"),
                    "answer": key,
                    "facet_id": item.get("facet_id"),
                    "provenance": info.get("provenance", f"EXAM++ {'nugget' if nugget else 'question'} bank"),
                }
            )
            lines.append(n)
    if problems:
        raise InputError(problems)
    rows, lines = _as_exampp_reads(rows, lines, rel(path))
    try:
        return questions_from_rows(rows, rel(path), blank_questions=True)
    except InputError as exc:  # rows are items: name the file's line instead
        raise InputError(
            [
                Problem(p.file, p.message, line=lines[p.line - 1] if p.line else None, field=p.field)
                for p in exc.problems
            ]
        ) from exc


def _as_exampp_reads(
    rows: list[dict[str, Any]], lines: list[int], where: str
) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows as EXAM++ reads them: a repeat of a question id with the same question and
    query left out (one question), blank questions kept; both said, with their lines."""
    kept: list[dict[str, Any]] = []
    kept_lines: list[int] = []
    first: dict[str, dict[str, Any]] = {}
    repeats: dict[str, list[int]] = {}
    blank: list[int] = []
    for row, n in zip(rows, lines, strict=True):
        text, key = row.get("question"), row.get("question_id")
        if isinstance(text, str) and not text.strip():
            blank.append(n)
        if isinstance(key, str) and key in first:
            seen = first[key]
            if (seen["question"], seen["query_id"]) == (text, row.get("query_id")):
                repeats.setdefault(key, [seen["line"]]).append(n)
                continue
        elif isinstance(key, str):
            first[key] = {"question": text, "query_id": row.get("query_id"), "line": n}
        kept.append(row)
        kept_lines.append(n)
    if blank:
        log.warning(
            Problem(
                where,
                f"{len(blank)} blank question(s), on line(s) {_shown(blank)}: kept, as EXAM++ reads them (its "
                "grader was asked them as written)",
                line=blank[0],
                field="question",
            )
        )
    for key, at in repeats.items():
        log.warning(
            Problem(
                where,
                f"question id {key!r} written {len(at)} times with the same question, on lines {_shown(at)}: "
                "read once, as EXAM++ counts a question id once",
                line=at[1],
                field="question_id",
            )
        )
    return kept, kept_lines


def _shown(lines: list[int], most: int = 20) -> str:
    return ", ".join(map(str, lines[:most])) + (f", … ({len(lines)} in all)" if len(lines) > most else "")


def _question_line(obj: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """One line of EXAM++'s questions file (its ``tqa_loader.Question``) as a bank row."""
    choices = obj.get("choices")
    if choices is not None and not isinstance(choices, dict):
        return {}, ("choices", "choices must be an object (key -> option) or null")
    return {
        "query_id": obj.get("query_id"),
        "question_id": obj.get("qid"),
        "question": obj.get("question"),
        "kind": "multiple-choice" if choices else "free-text",
        "options": list(choices.values()) if choices else None,
        "answer": obj.get("correct"),
        "facet_id": obj.get("facet_id"),
        "provenance": "EXAM++ questions file",
    }, None


def _genq_questions(path: Path, flag: str) -> list[tuple[int, Any]]:
    """EXAM++'s generated CAR Y3 questions (one JSON object) as question lines."""
    from benchmark.core.untrusted import load_json, read_text

    raw = path.read_bytes() if path.is_file() else None
    if raw is None:
        raise InputError.at(rel(path), "no such file", field=flag)
    try:
        content = load_json(
            read_text(path, field=flag, data=gzip.decompress(raw) if path.suffix == ".gz" else raw)
        )
    except ValueError as exc:
        raise InputError.at(rel(path), f"not JSON: {exc}", field=flag) from exc
    if not isinstance(content, dict) or not all(isinstance(v, dict) for v in content.values()):
        raise InputError.at(
            rel(path), "must be an object {query_id: {facet_id: {title, facet, questions}}}", field=flag
        )
    out: list[tuple[int, Any]] = []
    for query_id, facets in content.items():
        for facet_id, facet in facets.items():
            questions = facet.get("questions") if isinstance(facet, dict) else None
            if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
                raise InputError.at(
                    rel(path),
                    f"{query_id}/{facet_id}: questions must be a list of strings",
                    field="questions",
                )
            for written in questions:
                text = re.sub(r"^\d+\.\s+", "", written)  # EXAM++'s strip_enumeration
                if len(text) > 1:
                    digest = hashlib.md5(written.encode("utf-8"), usedforsecurity=False).hexdigest()
                    out.append(
                        (
                            1,
                            {
                                "query_id": query_id,
                                "qid": f"{query_id}/{facet_id}/{digest}",
                                "question": text,
                                "choices": None,
                                "correct": None,
                                "facet_id": facet_id,
                            },
                        )
                    )
    return out


def write_bank(bank: Bank, queries: Mapping[str, str], path: Path, test_collection: str) -> Path:
    """Our bank in EXAM++'s format (kind, options, key and provenance kept in ``info``)."""
    lines = []
    for qid, questions in bank.items():
        lines.append(
            {
                "query_id": qid,
                "facet_id": None,
                "test_collection": test_collection,
                "query_text": queries.get(qid, ""),
                "info": {"tool": TOOL},
                "items": [
                    {
                        "query_id": qid,
                        "facet_id": q.facet_id,
                        "question_id": q.question_id,
                        "question_text": q.question,
                        "gold_answers": [q.answer] if q.answer else None,
                        "info": {
                            "kind": q.kind,
                            "options": list(q.options) or None,
                            "answer": q.answer,
                            "provenance": q.provenance,
                        },
                    }
                    for q in questions
                ],
            }
        )
    return write_jsonl(path, lines, sort_keys=True)


# -- graded paragraphs ------------------------------------------------------------------

#: EXAM++'s prompt class for a grade that records none (``GradeFilter.key``)
DEFAULT_PROMPT_CLASS = "QuestionPromptWithChoices"


@dataclass(frozen=True)
class Grade:
    """One grader's verdicts on one paragraph: one ``exam_grades`` entry."""

    grader: str
    correct: frozenset[str]
    wrong: frozenset[str]
    ratings: Mapping[str, int]  # self-ratings (an id rated twice keeps its highest)

    def asked(self, min_rating: int | None) -> set[str]:
        """The questions it was asked: the self-rated ones when counting ratings, else
        those answered correctly or wrongly (as EXAM++ counts a query's questions)."""
        return set(self.ratings) if min_rating is not None else set(self.correct | self.wrong)

    def answered(self, min_rating: int | None) -> set[str]:
        """The questions it answers: self-rating ≥ ``min_rating``, or (``None``) ``correctAnswered``."""
        if min_rating is None:
            return set(self.correct)
        return {q for q, r in self.ratings.items() if formulas.rated_answerable(r, min_rating)}


@dataclass(frozen=True)
class GradedParagraph:
    """One paragraph of an EXAM++ graded file (no rankings: a passage of a qrels pool)."""

    query_id: str
    paragraph_id: str
    text: str
    rankings: tuple[tuple[str, int], ...]  # (method, rank)
    relevance: int | None  # the highest judgments[].relevance; None: not judged
    grades: tuple[Grade, ...]

    def grade(self, grader: str) -> Grade | None:
        """The grader's first grade of this paragraph (EXAM++'s ``retrieve_exam_grade_any``)."""
        return next((g for g in self.grades if g.grader == grader), None)


def grader_name(entry: Mapping[str, Any], question_ids: Iterable[str]) -> str:
    """A grader as EXAM++ tells graders apart (``GradeFilter.key``): the model, the prompt
    class, and the question set its question ids come from (``NDQ_``: TQA, ``tqa2:``: the
    generated CAR questions, "genq"; else a question bank)."""
    info = entry.get("prompt_info")
    prompt = (info.get("prompt_class") if isinstance(info, dict) else None) or DEFAULT_PROMPT_CLASS
    first = next(iter(question_ids), "")
    qset = "tqa" if first.startswith("NDQ_") else "genq" if first.startswith("tqa2:") else "question-bank"
    return f"{entry.get('llm')} {prompt} {qset}"


def read_grades(path: Path, flag: str = "--grades") -> list[GradedParagraph]:
    """Every paragraph of an EXAM++ graded-paragraph file, each grader's grade kept apart."""
    out: list[GradedParagraph] = []
    problems: list[Problem] = []
    for n, obj in read_rows(path, flag, jsonl=True):
        if not (isinstance(obj, list) and len(obj) == 2 and isinstance(obj[1], list)):
            problems.append(Problem(rel(path), "each line must be [query_id, [paragraph, ...]]", line=n))
            continue
        qid = str(obj[0])
        for para in obj[1]:
            if not isinstance(para, dict):
                problems.append(Problem(rel(path), "a paragraph must be an object", line=n))
                continue
            data = para.get("paragraph_data") or {}
            if not isinstance(data, dict):
                problems.append(
                    Problem(rel(path), "paragraph_data must be an object", line=n, field="paragraph_data")
                )
                continue
            rankings, bad = _rankings(data.get("rankings"))
            if bad:
                problems.append(Problem(rel(path), bad, line=n, field="rankings"))
                continue
            relevance, bad = _relevance(data.get("judgments"))
            if bad:
                problems.append(Problem(rel(path), bad, line=n, field="judgments"))
                continue
            grades, bad_grades = _grades(para.get("exam_grades"))
            if bad_grades:
                problems += [Problem(rel(path), msg, line=n, field=field) for field, msg in bad_grades]
                continue
            out.append(
                GradedParagraph(
                    qid,
                    str(para.get("paragraph_id") or ""),
                    str(para.get("text") or ""),
                    rankings,
                    relevance,
                    grades,
                )
            )
    if problems:
        raise InputError(problems)
    return out


def _rankings(rankings: Any) -> tuple[tuple[tuple[str, int], ...], str | None]:
    if rankings in (None, []):
        return (), None
    if not isinstance(rankings, list) or not all(isinstance(r, dict) for r in rankings):
        return (), "rankings must be a list of objects"
    out = []
    for r in rankings:
        if not r.get("method"):
            return (), "a ranking without its method (the system)"
        rank = r.get("rank")
        if isinstance(rank, bool) or not isinstance(rank, int):
            return (), f"the ranking of {r.get('method')!r} needs an integer rank"
        out.append((str(r["method"]), rank))
    return tuple(out), None


def _grades(entries: Any) -> tuple[tuple[Grade, ...], list[tuple[str, str]]]:
    if entries is None:
        return (), []
    if not isinstance(entries, list):
        return (), [("exam_grades", "exam_grades must be a list")]
    out, problems = [], []
    for g in entries:
        if not isinstance(g, dict):
            problems.append(("exam_grades", "exam_grades entries must be objects"))
            continue
        lists = {k: g.get(k) or [] for k in ("correctAnswered", "wrongAnswered", "self_ratings")}
        if not all(isinstance(v, list) for v in lists.values()):
            problems.append(("exam_grades", "correctAnswered, wrongAnswered and self_ratings must be lists"))
            continue
        ratings: dict[str, int] = {}
        for r in lists["self_ratings"]:
            try:
                rid = r.get("question_id") if r.get("question_id") is not None else r.get("nugget_id")
                value = r["self_rating"]
                if rid is None or isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError
            except (AttributeError, KeyError, TypeError):
                problems.append(
                    (
                        "self_ratings",
                        "a self rating needs question_id (or nugget_id) and an integer self_rating",
                    )
                )
                continue
            ratings[str(rid)] = max(ratings.get(str(rid), value), value)
        correct = frozenset(map(str, lists["correctAnswered"]))
        wrong = frozenset(map(str, lists["wrongAnswered"]))
        answers = g.get("answers") if isinstance(g.get("answers"), list) else []
        ids = [str(a[0]) for a in answers if isinstance(a, list | tuple) and a] or sorted(
            correct | wrong | set(ratings)
        )
        out.append(Grade(grader_name(g, ids), correct, wrong, ratings))
    return tuple(out), problems


def _relevance(judgments: Any) -> tuple[int | None, str | None]:
    """The highest assessed grade among a paragraph's judgments, or what is wrong with them."""
    if judgments in (None, []):
        return None, None
    if not isinstance(judgments, list):
        return None, "judgments must be a list"
    grades = []
    for j in judgments:
        value = j.get("relevance") if isinstance(j, dict) else None
        if isinstance(value, bool) or not isinstance(value, int):
            return None, "a judgment needs an integer relevance"
        grades.append(value)
    return max(grades), None


def graders(paragraphs: Iterable[GradedParagraph]) -> list[str]:
    """The graders of a file, in the order they first appear."""
    return list(dict.fromkeys(g.grader for p in paragraphs for g in p.grades))


def choose_graders(paragraphs: Sequence[GradedParagraph], wanted: str | None, source: str) -> list[str]:
    """The graders to report: all (``wanted`` None), or the one ``wanted`` names — its full
    name, or words of it that fit no other grader (``google/flan-t5-large``, ``tqa``)."""
    names = graders(paragraphs)
    if wanted is None:
        return names
    words = wanted.split()
    fits = [g for g in names if g == wanted or all(w in g.split() for w in words)]
    if len(fits) != 1:
        known = "; ".join(names) or "none"
        what = "fits no grader" if not fits else "fits several graders"
        raise InputError.at(source, f"{wanted!r} {what}; the file's graders: {known}", field="--grader")
    return fits


def counting(paragraphs: Iterable[GradedParagraph], grader: str, min_rating: int | None) -> int | None:
    """How ``grader``'s answers are counted: its self-ratings against ``min_rating`` when it
    self-rated any paragraph (EXAM++ with ``--use-ratings``), else (``None``) its
    ``correctAnswered`` (EXAM++ without)."""
    if min_rating is None:
        return None
    rated = any(g.ratings for p in paragraphs for g in p.grades if g.grader == grader)
    return min_rating if rated else None


def counted(mode: int | None) -> str:
    """What :func:`counting`'s ``mode`` counts, as every report names it."""
    return "correctAnswered" if mode is None else f"self-rating ≥ {mode}"


def exam_from_grades(
    paragraphs: Iterable[GradedParagraph],
    grader: str,
    bank: Bank | None = None,
    *,
    min_rating: int | None = formulas.DEFAULT_MIN_RATING,
    rank_cutoff: int = formulas.RANK_CUTOFF,
) -> dict[str, dict[str, float]]:
    """system -> query -> EXAM under one grader, as EXAM++ computes it: the share of the query's
    questions (the bank's, or all the grader was asked) that the system's paragraphs ranked at
    ``rank_cutoff`` or better answer."""
    paragraphs = list(paragraphs)
    mode = counting(paragraphs, grader, min_rating)
    by_query: dict[str, list[GradedParagraph]] = {}
    for p in paragraphs:
        by_query.setdefault(p.query_id, []).append(p)
    out: dict[str, dict[str, float]] = {}
    for qid, paras in by_query.items():
        if bank is not None:
            if qid not in bank:
                continue
            total = {q.question_id for q in bank[qid]}
        else:
            total = set().union(*(g.asked(mode) for p in paras if (g := p.grade(grader))))
        hits: dict[str, set[str]] = {}
        for p in paras:
            g = p.grade(grader)
            for method, rank in p.rankings:
                if rank <= rank_cutoff:
                    hits.setdefault(method, set()).update(g.answered(mode) if g else ())
        for method, got in hits.items():
            out.setdefault(method, {})[qid] = len(got & total) / len(total) if total else 0.0
    return out


def judged_passages(
    paragraphs: Iterable[GradedParagraph], grader: str, min_rating: int | None = formulas.DEFAULT_MIN_RATING
) -> list[tuple[GradedParagraph, int]]:
    """EXAM++'s qrels mode: every judged paragraph ``grader`` graded, with how many questions it answers."""
    paragraphs = list(paragraphs)
    mode = counting(paragraphs, grader, min_rating)
    return [
        (p, len(g.answered(mode)))
        for p in paragraphs
        if p.relevance is not None and (g := p.grade(grader)) is not None
    ]


def write_grades(traces_by_system: Mapping[str, Iterable[Mapping[str, Any]]], path: Path) -> Path:
    """Our EXAM traces as EXAM++ graded paragraphs (one paragraph per system and query)."""
    by_query: dict[str, list[dict[str, Any]]] = {}
    for system, traces in traces_by_system.items():
        for t in traces:
            questions = t.get("questions", [])
            answerer = t.get("answerer", {})
            ratings = [
                {"question_id": q["question_id"], "nugget_id": None, "self_rating": q["rating"]}
                for q in questions
                if q.get("rating") is not None
            ]
            pid = content_hash(t.get("answer", ""))[:32]
            by_query.setdefault(str(t["query_id"]), []).append(
                {
                    "paragraph_id": pid,
                    "text": t.get("answer", ""),
                    "paragraph": None,
                    "paragraph_data": {
                        "judgments": [],
                        "rankings": [
                            {
                                "method": system,
                                "paragraphId": pid,
                                "queryId": str(t["query_id"]),
                                "rank": 1,
                                "score": 1.0,
                            }
                        ],
                    },
                    "exam_grades": [
                        {
                            "correctAnswered": [q["question_id"] for q in questions if q.get("correct")],
                            "wrongAnswered": [
                                q["question_id"] for q in questions if q.get("correct") is False
                            ],
                            "answers": [[q["question_id"], q.get("choice") or ""] for q in questions],
                            "llm": str(
                                answerer.get("llm") or answerer.get("entailment") or answerer.get("answerer")
                            ),
                            "llm_options": {
                                k: v for k, v in answerer.items() if k not in ("llm", "entailment")
                            },
                            "exam_ratio": (t.get("scores") or {}).get("exam"),
                            "prompt_info": {
                                "prompt_class": f"{TOOL}-{answerer.get('answerer', '?')}",
                                "is_self_rated": bool(ratings),
                            },
                            "self_ratings": ratings or None,
                            "prompt_type": "question",
                        }
                    ],
                    "grades": None,
                }
            )
    return write_jsonl(path, [[q, paras] for q, paras in by_query.items()], sort_keys=True)
