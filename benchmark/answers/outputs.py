"""The outputs format: one JSON line per answered query (:class:`~benchmark.answers.row.OutputRow`).

What ``benchmark evaluate`` writes, a submission contains and ``benchmark score`` reads; an
lm-eval ``--log_samples`` line is read too (:mod:`benchmark.answers.lm_eval_log`), so a file
may mix the two.  Every row, from a file, a DataFrame or a submission, goes through
:func:`read_rows` under the rule book of :mod:`benchmark.answers.rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from benchmark.answers.lm_eval_log import from_sample, is_lm_eval_sample
from benchmark.answers.row import OutputRow
from benchmark.answers.rules import MAX_LINE_CHARS, MAX_PROBLEMS, object_problems, row_problems
from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.results import ModelInfo, RAGSetting
from benchmark.core.untrusted import load_json, read_text

if TYPE_CHECKING:
    from benchmark.tasks import Task

#: a model's identity within one input: rows of one (model, revision, setting) are one entry
Entry = tuple[str, str, RAGSetting | None]


def read_outputs(
    path: Path | str, *, model_name: str | None = None, task: Task | None = None
) -> list[OutputRow]:
    """Rows of a groundcover outputs JSONL or an lm-eval samples file, read under the rule
    book (with ``task``, its rules on query ids and answer size too)."""
    path = Path(path)
    if not path.exists():
        raise InputError.at(rel(path), "outputs file does not exist")
    if path.is_dir():
        raise InputError.at(rel(path), "is a folder; give the outputs JSONL file(s) inside it")
    objects, problems = parse_lines(read_text(path), rel(path))
    return rows_or_raise(*read_rows(objects, path, model_name, problems, task=task))


def parse_lines(
    text: str, shown: str, *, tick: Callable[[], None] | None = None
) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """``(line, object)`` for each JSON line of ``text`` (bounded reader of untrusted input), and
    the problems of the lines that could not be read.  Lines end at "\\n" only: U+2028 may
    appear inside answers.  ``tick`` is called before each line (a door's time budget)."""
    objects: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for line_no, line in enumerate(text.split("\n"), start=1):
        if _stopped(problems, shown, line_no):
            break
        if tick is not None:
            tick()
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            problems.append(Problem(shown, f"line longer than {MAX_LINE_CHARS:,} characters", line_no))
            continue
        try:
            objects.append((line_no, load_json(line)))
        except ValueError as exc:
            problems.append(Problem(shown, str(exc), line=line_no, field=getattr(exc, "field", None)))
    return objects, problems


def parse_row(obj: Any, where: str, line: int) -> OutputRow:
    """One line's object as a row of the outputs format, its schema problems raised with
    file, line and field (the dotted path of the bad value)."""
    try:
        return OutputRow.model_validate(obj)
    except ValidationError as exc:
        raise InputError(_schema_problems(exc, where, line)) from None


def _schema_problems(exc: ValidationError, where: str, line: int) -> list[Problem]:
    return [
        Problem(where, e["msg"], line=line, field=".".join(str(x) for x in e["loc"])) for e in exc.errors()
    ]


def _stopped(problems: list[Problem], shown: str, line: int) -> bool:
    """Whether reading stops here, at :data:`~benchmark.answers.rules.MAX_PROBLEMS` (said once)."""
    if len(problems) < MAX_PROBLEMS:
        return False
    problems.append(Problem(shown, f"stopped reading after {MAX_PROBLEMS} problems; fix these first", line))
    return True


def read_rows(
    objects: list[tuple[int, Any]],
    path: Path,
    model_name: str | None,
    problems: list[Problem],
    *,
    task: Task | None = None,
    shown: str | None = None,
) -> tuple[list[tuple[int, OutputRow]], list[Problem]]:
    """Parsed lines (or records) ``(line, object)`` as ``(line, row)`` under the rule book
    (``model_name`` for rows that name none; with ``task``, its query ids and limits), with
    the problems found, after ``problems``."""
    shown = shown or rel(path)
    known = set(task.table("queries")["query_id"]) if task is not None else None
    limits = task.card.limits if task is not None else None
    problems = list(problems)
    read: list[tuple[int, OutputRow]] = []
    seen: dict[tuple[Entry, str], int] = {}
    unnamed: list[int] = []
    for line_no, obj in objects:
        if _stopped(problems, shown, line_no):
            break
        row = _row(obj, path, shown, line_no, model_name, unnamed, problems)
        if row is None:
            continue
        found = row_problems(row, shown, line_no, limits)
        if task is not None and known is not None and row.query_id not in known:
            found.append(
                Problem(shown, f"query id {row.query_id!r} is not in task {task.id}", line_no, "query_id")
            )
        key = (entry_of(row), row.query_id)
        if key in seen:
            why = f"duplicate query id {row.query_id!r} (first on line {seen[key]})"
            found.append(Problem(shown, why, line=line_no, field="query_id"))
        problems += found
        if not found:
            seen[key] = line_no
            read.append((line_no, row))
    if unnamed:
        why = (
            f"{len(unnamed)} row(s) name no model (the first on line {unnamed[0]}): give each row a 'model' "
            "field, or name the model that wrote them with --model-name (model_name= in the Python API)"
        )
        problems.append(Problem(shown, why, field="model"))
    return read, problems


def rows_or_raise(read: list[tuple[int, OutputRow]], problems: list[Problem]) -> list[OutputRow]:
    """:func:`read_rows`' rows, or every problem of the input raised together."""
    if problems:
        raise InputError(problems)
    return [row for _, row in read]


def _row(
    obj: Any,
    path: Path,
    shown: str,
    line: int,
    model_name: str | None,
    unnamed: list[int],
    problems: list[Problem],
) -> OutputRow | None:
    """One object as a row, or ``None`` with its problems added (a row with no model is
    counted in ``unnamed`` and said once for the whole input)."""
    try:
        if is_lm_eval_sample(obj):
            row = from_sample(obj, path, line, model_name)
            found = object_problems(row.model_dump(mode="json", exclude_none=True), shown, line)
            problems += found
            return None if found else row
        if not isinstance(obj, dict):
            problems.append(Problem(shown, "each line must be a JSON object (one answer per line)", line))
            return None
        found = object_problems(obj, shown, line)
        if found:
            problems += found
            return None
        if "model" not in obj:
            if model_name is None:
                unnamed.append(line)
                obj = {**obj, "model": "(unnamed)"}  # the row's other fields are still checked
            else:
                obj = {**obj, "model": model_name}
        row = parse_row(obj, shown, line)
    except ValidationError as exc:  # a sample's fields, converted
        problems += _schema_problems(exc, shown, line)
        return None
    except InputError as exc:
        problems.extend(exc.problems)
        return None
    return row


def entry_of(row: OutputRow) -> Entry:
    """The entry a row belongs to: its model, revision and retrieval setting."""
    return (row.model, row.revision, row.rag)


def evidence_of(rows: list[OutputRow]) -> dict[str, list[str]] | None:
    """Per query, the ids of the passages a RAG answer was given; ``None`` for closed-book."""
    given = {r.query_id: list(r.retrieval.passages) for r in rows if r.retrieval is not None}
    return given or None


def entries(
    rows: list[OutputRow], source: str
) -> list[tuple[dict[str, str], ModelInfo, dict[str, list[str]] | None]]:
    """Rows already read, one entry per model and setting: answers by query id, the model
    that wrote them, and (RAG) the evidence each was given."""
    if not rows:
        raise InputError.at(source, "no answers")
    groups: dict[Entry, list[OutputRow]] = {}
    for r in rows:
        groups.setdefault(entry_of(r), []).append(r)
    out = []
    for group in groups.values():
        first = group[0]
        same = ("revision", "backend", "generation", "rag")
        model = ModelInfo(id=first.model, **{k: getattr(first, k) for k in same})
        out.append(({r.query_id: r.answer for r in group}, model, evidence_of(group)))
    return out


def write_outputs(rows: Iterable[OutputRow], path: Path | str, *, exclude_none: bool = False) -> None:
    """Write ``rows`` as an outputs JSONL, one validated row per line (so nothing beyond the
    schema is written); ``exclude_none`` leaves unset fields out, as a submission does."""
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(row.model_dump_json(exclude_none=exclude_none) + "\n")
