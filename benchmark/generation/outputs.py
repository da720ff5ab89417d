"""The outputs format: one JSON line per answered query.

This is what ``benchmark evaluate`` writes, what a submission contains, and what
``benchmark score`` reads.  ``benchmark score`` also reads lm-eval's ``--log_samples``
files (``samples_<task>_<date>.jsonl``), so the two-step workflow — generate with
``lm_eval``, score with groundcover — needs no conversion.  Problems are reported with
file, line and field; duplicate query ids are an error, never silently collapsed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.results import ModelInfo, RAGSetting
from benchmark.core.untrusted import read_text
from benchmark.generation.rag import RAGRecord, record
from benchmark.tasks import Task


class OutputRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query_id: str = Field(min_length=1)
    answer: str
    model: str = Field(min_length=1)
    revision: str = "main"
    backend: str | None = None
    model_args: dict[str, Any] = Field(default_factory=dict, description="backend arguments, secrets removed")
    generation: dict[str, Any] = Field(default_factory=dict)
    task: str | None = None
    generated_by: str | None = Field(
        default=None,
        description="model@revision that wrote the answer, kept when `benchmark submit` files it under another name",
    )
    created: str | None = None
    item_key: str | None = Field(
        default=None, description="checkpoint key: hash of what determined this answer"
    )
    rag: RAGSetting | None = Field(default=None, description="retrieval setting; null: closed-book")
    retrieval: RAGRecord | None = Field(
        default=None, description="RAG only: the passages given, and those the answer cites"
    )


def is_lm_eval_sample(obj: Any) -> bool:
    return isinstance(obj, dict) and "doc" in obj and ("resps" in obj or "filtered_resps" in obj)


def _from_lm_eval(obj: dict[str, Any], path: Path, line: int, model_name: str | None) -> OutputRow:
    doc = obj.get("doc") or {}
    if "query_id" not in doc:
        raise InputError(
            Problem(
                rel(path),
                "lm-eval sample has no doc.query_id (was the task exported by groundcover?)",
                line=line,
                field="doc.query_id",
            )
        )
    resp: Any = obj.get("filtered_resps") or obj.get("resps")
    while isinstance(resp, list):
        if not resp:
            raise InputError(
                Problem(rel(path), "lm-eval sample has an empty response", line=line, field="filtered_resps")
            )
        resp = resp[0]
    model = model_name or path.parent.name.replace("__", "/")
    rag = retrieval = None
    if doc.get("rag") is not None:  # a RAG task exported by `benchmark tasks export-lm-eval --rag`
        try:
            rag = RAGSetting.model_validate(doc["rag"])
            retrieval = record(str(resp), [str(p) for p in doc.get("passages") or []])
        except (ValueError, TypeError) as exc:
            raise InputError(
                Problem(rel(path), f"bad RAG fields in the sample: {exc}", line=line, field="doc.rag")
            ) from exc
    return OutputRow(
        query_id=str(doc["query_id"]),
        answer=str(resp),
        model=model,
        backend="lm-eval",
        generation={"source": "lm-eval log_samples", **_lm_eval_gen_kwargs(obj.get("arguments"))},
        rag=rag,
        retrieval=retrieval,
    )


def _lm_eval_gen_kwargs(arguments: Any) -> dict[str, Any]:
    """Generation settings from a sample's ``arguments``, so results record them too.

    Sample files write ``{"gen_args_0": {"arg_0": prompt, "arg_1": kwargs}}``; the
    in-memory form is ``[[prompt, kwargs]]``.  Anything else yields nothing.
    """
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        first = first.get("arg_1") if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list | tuple):
        first = arguments[0][1] if len(arguments[0]) > 1 else None
    return dict(first) if isinstance(first, dict) else {}


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
    return _rows(objects, path, model_name, problems)


def rows_from_records(
    records: Iterable[Mapping[str, Any]], *, source: str = "answers", model_name: str | None = None
) -> list[OutputRow]:
    """Rows of answers held in memory (a DataFrame's or a ``datasets.Dataset``'s records, a
    list of dicts), checked as a file's lines are: ``line`` is the record's 1-based number.
    A missing value (``None``, or pandas' NaN in an optional column) is left out."""
    objects = []
    for n, item in enumerate(records, start=1):
        obj = {str(k): v for k, v in dict(item).items() if not _missing(v)}
        if isinstance(obj.get("query_id"), int):  # a frame read from CSV numbers its ids
            obj["query_id"] = str(obj["query_id"])
        objects.append((n, obj))
    return _rows(objects, Path(source), model_name, [])


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _rows(
    objects: list[tuple[int, Any]], path: Path, model_name: str | None, problems: list[Problem]
) -> list[OutputRow]:
    rows: list[OutputRow] = []
    seen: dict[str, int] = {}
    for line_no, obj in objects:
        try:
            if is_lm_eval_sample(obj):
                row = _from_lm_eval(obj, path, line_no, model_name)
            else:
                if model_name and isinstance(obj, dict) and "model" not in obj:
                    obj["model"] = model_name
                row = OutputRow.model_validate(obj)
        except ValidationError as exc:
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
