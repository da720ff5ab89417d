"""The rule book of an answer row: what every door that takes answers refuses, said once.

Every door reads answers through :mod:`benchmark.answers.outputs`, which applies these rules
to every row, so a row one door refuses is refused by all (a door may add rules, never skip
these): bounded reading (:data:`MAX_LINE_CHARS`, :data:`MAX_PROBLEMS`), text without control
or (outside the answer) invisible characters, no credentials in the settings a result records,
an answer within its task card's ``limits``, and evidence that matches the row's setting.
"""

from __future__ import annotations

from typing import Any

from benchmark.answers.row import OutputRow
from benchmark.core.errors import Problem
from benchmark.core.secrets import secret_problems
from benchmark.core.text import sentences
from benchmark.core.untrusted import text_field_problems

#: the longest line an outputs file may hold (an answer within any task's limit fits many times)
MAX_LINE_CHARS = 200_000
#: problems collected per input before its reading stops (the first ones tell what to fix)
MAX_PROBLEMS = 50
#: the fields that are the answer's own text (any script, any character a text may hold)
FREE_TEXT = ("answer",)
#: the fields that are data, not settings: a URL an answer quotes or a passage id is no credential
DATA_FIELDS = ("answer", "retrieval", "query_id")


def object_problems(obj: dict[str, Any], shown: str, line: int) -> list[Problem]:
    """The rules read on a line's object before its schema: text, then credentials in the
    settings it would record (``model_args``, ``generation``, …)."""
    problems = text_field_problems(obj, shown, line, free_text=FREE_TEXT)
    if problems:
        return problems
    settings = {k: v for k, v in obj.items() if k not in DATA_FIELDS}
    return secret_problems(settings, shown, line)


def row_problems(row: OutputRow, shown: str, line: int, limits: Any | None = None) -> list[Problem]:
    """The rules read on a parsed row: its evidence against its setting, and (``limits``,
    the task card's :class:`~benchmark.tasks.card.SubmissionLimits`) its answer's size."""
    problems = evidence_problems(row, shown, line)
    if limits is not None:
        problems += answer_problems(row.answer, limits, shown, line)
    return problems


def evidence_problems(row: OutputRow, shown: str, line: int) -> list[Problem]:
    """A RAG row records the passages it was given; a closed-book row records none."""
    if row.rag is not None and row.retrieval is not None:
        return passage_problems(row.retrieval.passages, row.rag.k, shown, line)
    if row.rag is not None:
        why = "a RAG answer needs its 'retrieval' record (the passages it was given)"
    elif row.retrieval is not None:
        why = "a closed-book answer has no evidence: remove 'retrieval' or give the row its 'rag' setting"
    else:
        return []
    return [Problem(shown, why, line, "retrieval")]


def passage_problems(passages: list[str], k: int, shown: str, line: int) -> list[Problem]:
    """A RAG row's passages against its setting: at most ``k`` (scoring pairs every sentence
    with every passage), distinct, none empty.  Fewer than ``k`` is an honest record: a
    search returns fewer when fewer passages match."""
    where = "retrieval.passages"
    problems = []
    if len(passages) > k:
        why = (
            f"{len(passages):,} passages, but the setting's k is {k}: a row lists the k passages its answer "
            "was given"
        )
        problems.append(Problem(shown, why, line, where))
    empty = [i for i, p in enumerate(passages, start=1) if not p.strip()]
    if empty:
        problems.append(
            Problem(shown, f"empty passage id (passage {empty[0]} of {len(passages):,})", line, where)
        )
    first: dict[str, int] = {}
    repeats = [(p, first[p], i) for i, p in enumerate(passages, start=1) if first.setdefault(p, i) != i]
    if repeats:
        p, at, again = repeats[0]
        why = (
            f"{len(repeats):,} repeated passage id(s) ({p!r} is passage {at} and {again}); each passage is "
            "given once"
        )
        problems.append(Problem(shown, why, line, where))
    return problems


def answer_problems(answer: str, limits: Any, shown: str, line: int) -> list[Problem]:
    """An answer against its task card's ``limits`` (characters first, so a huge answer is
    refused before it is split into sentences)."""
    if len(answer) > limits.max_answer_chars:
        size, unit, limit = len(answer), "characters", "max_answer_chars"
    elif (n := len(sentences(answer))) > limits.max_answer_sentences:
        size, unit, limit = n, "sentences", "max_answer_sentences"
    else:
        return []
    why = f"answer of {size:,} {unit}; the task card's limit is {getattr(limits, limit):,} (limits.{limit})"
    return [Problem(shown, why, line, "answer")]
