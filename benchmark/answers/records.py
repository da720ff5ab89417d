"""Answers held in memory (a pandas DataFrame, a ``datasets.Dataset`` or a list of dicts):
the outputs format's rows without the file, checked as a file's lines are
(:func:`benchmark.answers.outputs.read_rows`), a record's 1-based number standing for its line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmark.answers.outputs import read_rows, rows_or_raise
from benchmark.answers.row import OutputRow
from benchmark.core.errors import InputError

if TYPE_CHECKING:
    from benchmark.tasks import Task


def records_of(answers: Any) -> list[Mapping[str, Any]] | None:
    """The records of in-memory answers (a DataFrame, a ``datasets.Dataset``, dicts), or
    ``None`` for a path."""
    if isinstance(answers, str | os.PathLike):
        return None
    if hasattr(answers, "to_dict") and hasattr(answers, "columns"):  # pandas
        columns = [str(c) for c in answers.columns]
        twice = sorted({c for c in columns if columns.count(c) > 1})
        if twice:  # to_dict would keep one of them, silently
            why = f"column(s) {twice} appear more than once: keep one of each"
            raise InputError.at("answers (DataFrame)", why, field=twice[0])
        return list(answers.to_dict(orient="records"))
    if hasattr(answers, "column_names") and hasattr(answers, "to_list"):  # datasets.Dataset
        return list(answers.to_list())
    if isinstance(answers, Mapping):
        raise InputError.at(
            "answers", "give a list of records (one dict per answer), not one dict", field="answers"
        )
    try:
        rows = list(answers)
    except TypeError:
        why = (
            f"cannot read answers from a {type(answers).__name__}: give a path, a DataFrame, a "
            "datasets.Dataset or a list of dicts"
        )
        raise InputError.at("answers", why, field="answers") from None
    bad = [i for i, r in enumerate(rows, start=1) if not isinstance(r, Mapping)]
    if bad:
        raise InputError.at("answers", "is not a record (a dict)", line=bad[0], field="answers")
    return rows


def rows_from_records(
    records: Iterable[Mapping[str, Any]],
    *,
    source: str = "answers",
    model_name: str | None = None,
    task: Task | None = None,
) -> list[OutputRow]:
    """Rows of answers held in memory.  A missing value (``None``, pandas' NaN) is left out,
    NumPy scalars are their Python values, and an integer query id (a frame read from CSV)
    is its decimal string."""
    objects = []
    for n, item in enumerate(records, start=1):
        obj = {str(k): _plain(v) for k, v in dict(item).items() if not _missing(v)}
        qid = obj.get("query_id")
        if isinstance(qid, int) and not isinstance(qid, bool):
            obj["query_id"] = str(qid)
        objects.append((n, obj))
    return rows_or_raise(*read_rows(objects, Path(source), model_name, [], task=task, shown=source))


def _plain(value: Any) -> Any:
    """A NumPy scalar as its Python value (``numpy.int64(7)`` -> ``7``)."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0 and not isinstance(value, str | bytes):
        return value.item()
    return value


def _missing(value: Any) -> bool:
    value = _plain(value)
    return value is None or (isinstance(value, float) and value != value)
