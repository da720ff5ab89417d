"""The outputs format: one JSON line per answered query.

This is what ``benchmark evaluate`` writes, what a submission contains, and what
``benchmark score`` reads.  ``benchmark score`` also reads lm-eval's ``--log_samples``
files (``samples_<task>_<date>.jsonl``), so the two-step workflow — generate with
``lm_eval``, score with groundcover — needs no conversion.  Problems are reported with
file, line and field; duplicate query ids are an error, never silently collapsed.

A row is :class:`~benchmark.answers.row.OutputRow`; an lm-eval sample line is turned into one
by :mod:`benchmark.answers.lm_eval_log`, so a file may even mix the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmark.answers.lm_eval_log import from_sample, is_lm_eval_sample
from benchmark.answers.row import OutputRow
from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.results import ModelInfo
from benchmark.core.untrusted import read_text
from benchmark.tasks import Task


def read_outputs(path: Path | str, *, model_name: str | None = None) -> list[OutputRow]:
    """Rows of a groundcover outputs JSONL or an lm-eval samples file."""
    path = Path(path)
    if not path.exists():
        raise InputError(Problem(rel(path), "outputs file does not exist"))
    if path.is_dir():
        raise InputError(Problem(rel(path), "is a folder; give the outputs JSONL file(s) inside it"))
    text = read_text(path)
    objects: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    # lines end at "\n" only: U+2028 inside a JSON string is text, not a line end
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            objects.append((line_no, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(rel(path), f"invalid JSON: {exc.msg}", line=line_no))
    return check_rows(objects, path, model_name, problems)


def parse_row(obj: Any, where: str, line: int) -> OutputRow:
    """One line's object as a row of the outputs format, its schema problems raised with
    file, line and field (the dotted path of the bad value): how every reader of the format
    — this module's and the submission validator's — turns a line into a row."""
    try:
        return OutputRow.model_validate(obj)
    except ValidationError as exc:
        raise InputError(
            [
                Problem(where, e["msg"], line=line, field=".".join(str(x) for x in e["loc"]))
                for e in exc.errors()
            ]
        ) from None


def check_rows(
    objects: list[tuple[int, Any]], path: Path, model_name: str | None, problems: list[Problem]
) -> list[OutputRow]:
    """Parsed lines (or records) ``(line, object)`` as rows: each checked against the
    schema, lm-eval samples converted, duplicate query ids refused; every problem of the
    file raised together, with ``problems`` already found before them."""
    rows: list[OutputRow] = []
    seen: dict[str, int] = {}
    for line_no, obj in objects:
        try:
            if is_lm_eval_sample(obj):
                row = from_sample(obj, path, line_no, model_name)
            else:
                if model_name and isinstance(obj, dict) and "model" not in obj:
                    obj["model"] = model_name
                row = parse_row(obj, rel(path), line_no)
        except ValidationError as exc:  # a sample's fields, converted
            problems.extend(
                Problem(rel(path), e["msg"], line=line_no, field=".".join(str(x) for x in e["loc"]))
                for e in exc.errors()
            )
            continue
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if row.query_id in seen:
            problems.append(
                Problem(
                    rel(path),
                    f"duplicate query_id {row.query_id!r} (first on line {seen[row.query_id]})",
                    line=line_no,
                    field="query_id",
                )
            )
            continue
        seen[row.query_id] = line_no
        rows.append(row)
    if problems:
        raise InputError(problems)
    return rows


def evidence_of(rows: list[OutputRow]) -> dict[str, list[str]] | None:
    """Per query, the ids of the passages a RAG answer was given; ``None`` for closed-book."""
    given = {r.query_id: list(r.retrieval.passages) for r in rows if r.retrieval is not None}
    return given or None


def answers_and_model(
    path: Path | str, task: Task, *, model_name: str | None = None
) -> tuple[dict[str, str], ModelInfo, dict[str, list[str]] | None]:
    """Answers by query id, the model that wrote them, and (RAG) the evidence each was
    given, checked against the task."""
    return checked_answers(read_outputs(path, model_name=model_name), task, source=path)


def checked_answers(
    rows: list[OutputRow], task: Task, *, source: Path | str
) -> tuple[dict[str, str], ModelInfo, dict[str, list[str]] | None]:
    """Rows read from a file or from records, checked against the task: one model, one
    setting, known query ids."""
    path = source
    if not rows:
        raise InputError(Problem(rel(Path(path)), "outputs file has no answers"))
    known = set(task.table("queries")["query_id"])
    bad = [r.query_id for r in rows if r.query_id not in known]
    if bad:
        raise InputError(
            Problem(rel(Path(path)), f"query ids not in task {task.id}: {bad[:10]}", field="query_id")
        )
    models = {(r.model, r.revision, r.rag.slug if r.rag else "closed-book") for r in rows}
    if len(models) > 1 or len({r.rag for r in rows}) > 1:
        raise InputError(
            Problem(
                rel(Path(path)),
                f"answers come from several models or settings {sorted(models)}; one file per model and setting",
                field="model",
            )
        )
    stray = [r.query_id for r in rows if r.rag is None and r.retrieval is not None]
    if stray:
        raise InputError(
            Problem(
                rel(Path(path)),
                f"closed-book rows carry 'retrieval' records (queries {stray[:5]}); a closed-book answer has "
                "no evidence: remove them, or give the rows their 'rag' setting",
                field="retrieval",
            )
        )
    first = rows[0]
    model = ModelInfo(
        id=first.model,
        revision=first.revision,
        backend=first.backend,
        generation=first.generation,
        rag=first.rag,
    )
    return {r.query_id: r.answer for r in rows}, model, evidence_of(rows)


def write_outputs(rows: Iterable[OutputRow], path: Path | str, *, exclude_none: bool = False) -> None:
    """Write ``rows`` as an outputs JSONL, one validated row per line (so nothing beyond the
    schema is written); ``exclude_none`` leaves unset fields out, as a submission does."""
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(row.model_dump_json(exclude_none=exclude_none) + "\n")
