"""Interoperability with EXAM++ (TREMA-UNH/rubric-grading-workbench), the reference implementation.

Two of its file formats, both JSON lines, optionally gzipped:

* **question bank** — one line per query: ``{"query_id", "facet_id", "test_collection",
  "query_text", "info", "items": [{"query_id", "facet_id", "info", "question_id",
  "question_text", "gold_answers"}]}``.  Its questions are free text; ours travel with
  their kind, options and provenance in ``info`` so a round trip loses nothing.
* **graded paragraphs** — one line per query: ``[query_id, [paragraph, ...]]``; a paragraph
  is ``{"paragraph_id", "text", "paragraph", "paragraph_data": {"judgments": [{"paragraphId",
  "query", "relevance", "titleQuery"}], "rankings": [{"method", "paragraphId", "queryId",
  "rank", "score"}]}, "exam_grades": [{"correctAnswered", "wrongAnswered", "answers", "llm",
  "llm_options", "exam_ratio", "prompt_info", "self_ratings": [{"question_id", "self_rating"}],
  "prompt_type"}], "grades"}``.  A paragraph with ``rankings`` is one system's answer to one
  query (``rankings[].method`` names the system); one whose ``rankings`` list is empty is a
  passage, as EXAM++ writes for its relevance analyses (graded passages from a qrels pool,
  ``judgments[].relevance`` their assessed grade): it counts for no system, and its
  answerability is compared with its relevance label (EXAM++'s qrels mode;
  :mod:`benchmark.metaeval.answerability`).

So a bank written by either tool is scored by the other (``--exam-bank``; ``benchmark exam
export-bank``), and so are grades (``benchmark exam score-grades``; ``benchmark exam
export-grades``).  Files are parsed as untrusted data: every problem names file, line, field.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import read_rows
from benchmark.families.exam import formulas
from benchmark.families.exam.bank import Bank, questions_from_rows
from benchmark.models.cache import content_hash

TOOL = "groundcover"


def _open_text(path: Path, mode: str) -> Any:
    return (
        gzip.open(path, mode + "t", encoding="utf-8")
        if path.suffix == ".gz"
        else path.open(mode, encoding="utf-8")
    )


def _write_lines(path: Path, rows: Iterable[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open_text(path, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    return path


# -- question banks ---------------------------------------------------------------------


def read_bank(path: Path, flag: str = "--exam-bank") -> Bank:
    """An EXAM++ question bank as our bank (free text unless ``info`` says otherwise)."""
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    for n, obj in read_rows(path, flag, jsonl=True):
        if not isinstance(obj, dict) or not isinstance(obj.get("items"), list):
            problems.append(
                Problem(rel(path), "each line must be an object with an 'items' list", line=n, field="items")
            )
            continue
        for item in obj["items"]:
            if not isinstance(item, dict):
                problems.append(Problem(rel(path), "each item must be an object", line=n, field="items"))
                continue
            info = item.get("info") if isinstance(item.get("info"), dict) else {}
            answers = item.get("gold_answers") or []
            if not isinstance(answers, list):
                problems.append(
                    Problem(rel(path), "gold_answers must be a list or null", line=n, field="gold_answers")
                )
                continue
            key = (
                info.get("answer")
                if info.get("answer") is not None
                else (sorted(map(str, answers))[0] if answers else None)
            )
            rows.append(
                {
                    "query_id": item.get("query_id", obj.get("query_id")),
                    "question_id": item.get("question_id"),
                    "question": item.get("question_text"),
                    "kind": info.get("kind", "free-text"),
                    "options": info.get("options"),
                    "answer": key,
                    "facet_id": item.get("facet_id"),
                    "provenance": info.get("provenance", "EXAM++ question bank"),
                }
            )
            lines.append(n)
    if problems:
        raise InputError(problems)
    try:
        return questions_from_rows(rows, rel(path))
    except InputError as exc:  # rows are items: name the file's line instead
        raise InputError(
            [
                Problem(p.file, p.message, line=lines[p.line - 1] if p.line else None, field=p.field)
                for p in exc.problems
            ]
        ) from exc


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
    return _write_lines(path, lines)


# -- graded paragraphs ------------------------------------------------------------------


@dataclass(frozen=True)
class GradedText:
    """One system's text for one query (or, with no ``system``, a judged passage), with
    the questions it was graded as answering."""

    query_id: str
    system: str | None
    text: str
    correct: frozenset[str]
    graded: frozenset[str]
    ratings: Mapping[str, int]
    paragraph_id: str = ""
    relevance: int | None = None  # the assessors' grade (judgments[].relevance), if any

    def answered(self, min_rating: int | None = formulas.DEFAULT_MIN_RATING) -> set[str]:
        """Questions this text answers: self-rating ≥ ``min_rating`` where ratings exist,
        else the grader's correct answers (as EXAM++ counts them)."""
        if self.ratings and min_rating is not None:
            return {q for q, r in self.ratings.items() if formulas.rated_answerable(r, min_rating)}
        return set(self.correct)


def read_grades(path: Path, flag: str = "--grades") -> list[GradedText]:
    """Every (system, paragraph) of an EXAM++ graded-paragraph file."""
    out: list[GradedText] = []
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
            rankings = data.get("rankings") or []
            if not isinstance(rankings, list) or not all(isinstance(r, dict) for r in rankings):
                problems.append(
                    Problem(rel(path), "rankings must be a list of objects", line=n, field="rankings")
                )
                continue
            methods = sorted({str(r.get("method")) for r in rankings if r.get("method")})
            if rankings and not methods:
                problems.append(
                    Problem(rel(path), "a ranking without its method (the system)", line=n, field="rankings")
                )
                continue
            relevance, bad = _relevance(data.get("judgments"))
            if bad:
                problems.append(Problem(rel(path), bad, line=n, field="judgments"))
                continue
            correct: set[str] = set()
            graded: set[str] = set()
            ratings: dict[str, int] = {}
            for g in para.get("exam_grades") or []:
                if not isinstance(g, dict):
                    problems.append(
                        Problem(rel(path), "exam_grades entries must be objects", line=n, field="exam_grades")
                    )
                    continue
                correct |= {str(x) for x in g.get("correctAnswered") or []}
                graded |= {str(x) for x in (g.get("correctAnswered") or []) + (g.get("wrongAnswered") or [])}
                for r in g.get("self_ratings") or []:
                    try:
                        rid = str(r.get("question_id") or r.get("nugget_id"))
                        ratings[rid] = max(ratings.get(rid, 0), int(r["self_rating"]))
                    except (AttributeError, KeyError, TypeError, ValueError):
                        problems.append(
                            Problem(
                                rel(path),
                                "a self rating needs question_id and an integer self_rating",
                                line=n,
                                field="self_ratings",
                            )
                        )
                graded |= set(ratings)
            for m in methods or [None]:  # no rankings: a passage, counted for no system
                out.append(
                    GradedText(
                        qid,
                        m,
                        str(para.get("text") or ""),
                        frozenset(correct),
                        frozenset(graded),
                        ratings,
                        paragraph_id=str(para.get("paragraph_id") or ""),
                        relevance=relevance,
                    )
                )
    if problems:
        raise InputError(problems)
    return out


def _relevance(judgments: Any) -> tuple[int | None, str | None]:
    """The highest assessed grade among a paragraph's judgments (``None``: not judged), or
    what is wrong with them."""
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


def exam_from_grades(
    grades: Iterable[GradedText],
    bank: Bank | None = None,
    *,
    min_rating: int | None = formulas.DEFAULT_MIN_RATING,
) -> dict[str, dict[str, float]]:
    """system -> query -> EXAM: the share of the query's questions that any of the system's
    paragraphs answered (self-rating ≥ ``min_rating`` where ratings exist, else the grader's
    correct answers).  The query's questions are the bank's, or all graded for it."""
    answered: dict[tuple[str, str], set[str]] = {}
    asked: dict[str, set[str]] = {}
    for g in grades:
        asked.setdefault(g.query_id, set()).update(g.graded)
        if g.system is not None:  # a judged passage counts for no system
            answered.setdefault((g.system, g.query_id), set()).update(g.answered(min_rating))
    questions = {q: {x.question_id for x in qs} for q, qs in bank.items()} if bank is not None else asked
    out: dict[str, dict[str, float]] = {}
    for (system, qid), hits in answered.items():
        total = questions.get(qid)
        if total:
            out.setdefault(system, {})[qid] = len(hits & total) / len(total)
    return out


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
    return _write_lines(path, [[q, paras] for q, paras in by_query.items()])
