"""The exam: held-out questions per query with their keys, from the task's ``exam_questions``
table or an EXAM++ question-bank file, checked before any model loads (a key that is not one
of its options would make a question no system can answer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from benchmark.core.errors import InputError, Problem
from benchmark.models.cache import content_hash

if TYPE_CHECKING:
    from benchmark.tasks import Task

Kind = Literal["multiple-choice", "free-text"]
KINDS: tuple[Kind, ...] = ("multiple-choice", "free-text")


@dataclass(frozen=True)
class ExamQuestion:
    query_id: str
    question_id: str
    question: str
    kind: Kind
    options: tuple[str, ...] = ()
    answer: str | None = None  # multiple choice: one of the options; free text: the key, if any
    facet_id: str | None = None
    provenance: str | None = None

    @property
    def key_index(self) -> int | None:
        return self.options.index(self.answer) if self.answer in self.options else None


Bank = dict[str, list[ExamQuestion]]  # query id -> its questions, in order


def _text(value: Any) -> str | None:
    if value is None:
        return None
    try:
        if value != value:  # NaN from a parquet null
            return None
    except (TypeError, ValueError):
        pass
    text = str(value).strip()
    return text or None


def questions_from_rows(
    rows: Iterable[Mapping[str, Any]], source: str, *, row_offset: int = 1, blank_questions: bool = False
) -> Bank:
    """Checked questions from table rows (``source`` names the file in errors);
    ``blank_questions`` keeps a question whose text is blank, as written (EXAM++'s files
    hold such questions, and its grader was asked them)."""
    bank: Bank = {}
    problems: list[Problem] = []
    seen: set[str] = set()

    def bad(n: int, message: str, field: str) -> None:
        problems.append(Problem(source, message, line=n, field=field))

    for n, row in enumerate(rows, start=row_offset):
        written = row.get("question")
        qid, question_id, text = (
            _text(row.get("query_id")),
            _text(row.get("question_id")),
            _text(written) or (written if blank_questions and isinstance(written, str) else None),
        )
        kind = _text(row.get("kind")) or (
            "multiple-choice" if row.get("options") is not None else "free-text"
        )
        raw_options = row.get("options")
        options = tuple(
            o for o in (_text(x) for x in (list(raw_options) if raw_options is not None else [])) if o
        )
        answer = _text(row.get("answer"))
        for field, value in (("query_id", qid), ("question_id", question_id), ("question", text)):
            if value is None:
                bad(n, "missing", field)
        if kind not in KINDS:
            bad(n, f"kind must be one of {KINDS}, not {kind!r}", "kind")
        elif kind == "multiple-choice":
            if len(set(options)) < 2:
                bad(n, "a multiple-choice question needs 2+ distinct options", "options")
            elif answer not in options:
                bad(n, f"the key {answer!r} is not one of the options", "answer")
        if question_id in seen:
            bad(n, f"question_id {question_id!r} is repeated", "question_id")
        seen.add(question_id or "")
        if qid and question_id and text is not None and kind in KINDS:
            bank.setdefault(qid, []).append(
                ExamQuestion(
                    query_id=qid,
                    question_id=question_id,
                    question=text,
                    kind=kind,  # type: ignore[arg-type]
                    options=options if kind == "multiple-choice" else (),
                    answer=answer,
                    facet_id=_text(row.get("facet_id")),
                    provenance=_text(row.get("provenance")),
                )
            )
    if problems:
        raise InputError(problems)
    return bank


def fingerprint(bank: Bank) -> str:
    """A bank's identity: scores on different banks are never ranked together."""
    return content_hash(sorted((q, [vars(x) for x in qs]) for q, qs in bank.items()))


def task_bank(task: Task) -> Bank:
    """The task's own exam (``exam_questions``), checked; empty when it has none."""
    if not task.has_table("exam_questions"):
        return {}
    rows = task.table("exam_questions").to_dict("records")
    return questions_from_rows(rows, task.where("exam_questions"), row_offset=1)
