"""Nugget and assignment files as castorini's ``nuggetizer`` reads and writes them (JSON lines).

So that nuggets made by nuggetizer or by assessors score here directly, and ours score in
nuggetizer:

* a **nugget file** (nuggetizer's create output) — per line ``{"qid", "query", "nuggets":
  [{"text", "importance"}, ...]}``, importance ``vital`` or ``okay``;
* an **assignment file** (its assign output, answers mode) — per line ``{"qid", "query",
  "answer_text", "run_id", "nuggets": [{"text", "importance", "assignment"}, ...]}``,
  assignment ``support``, ``partial_support`` or ``not_support``; nuggetizer's metrics
  read ``qid`` and ``nuggets`` only.

Every problem names the file, the line and the field, and a file with any problem is
refused whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import read_rows
from benchmark.families.nuggets.formulas import IMPORTANCE, LABELS


@dataclass(frozen=True)
class Nugget:
    query_id: str
    nugget_id: str
    text: str
    importance: str
    provenance: str = ""


@dataclass(frozen=True)
class Assigned:
    """One answer judged on its topic's nuggets (one line of an assignment file)."""

    query_id: str
    run_id: str | None
    answer: str
    nuggets: tuple[Nugget, ...]
    labels: tuple[str, ...]


def _nuggets(
    path: Path, n: int, row: Any, field: str, labelled: bool, problems: list[Problem]
) -> tuple[str, list[tuple[str, str, str | None]]] | None:
    """A line's topic id and its (text, importance, assignment) triples, or ``None`` with
    its problems recorded."""
    where = rel(path)
    if not isinstance(row, dict):
        problems.append(Problem(where, "each line must be a JSON object", line=n))
        return None
    qid = row.get("qid", row.get("query_id"))
    if not isinstance(qid, str | int) or isinstance(qid, bool) or str(qid) == "":
        problems.append(Problem(where, "needs the topic id", line=n, field="qid"))
        return None
    items = row.get(field)
    if not isinstance(items, list):
        problems.append(Problem(where, "must be a list of nuggets", line=n, field=field))
        return None
    out = []
    for i, item in enumerate(items):
        at = f"{field}[{i}]"
        text = item.get("text") if isinstance(item, dict) else None
        imp = item.get("importance") if isinstance(item, dict) else None
        lab = item.get("assignment") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip():
            problems.append(Problem(where, "a nugget needs its text", line=n, field=f"{at}.text"))
        elif imp not in IMPORTANCE:
            problems.append(
                Problem(
                    where,
                    f"importance must be one of {IMPORTANCE}, not {imp!r}",
                    line=n,
                    field=f"{at}.importance",
                )
            )
        elif labelled and lab not in LABELS:
            problems.append(
                Problem(
                    where,
                    f"assignment must be one of {LABELS}, not {lab!r}",
                    line=n,
                    field=f"{at}.assignment",
                )
            )
        else:
            out.append((text.strip(), str(imp), lab if labelled else None))
    return str(qid), out


def read_nuggets(path: Path | str, flag: str = "--nuggets") -> dict[str, list[Nugget]]:
    """A nugget file as topic id -> its nuggets, in file order (ids ``<qid>/n<k>``)."""
    path = Path(path)
    problems: list[Problem] = []
    out: dict[str, list[Nugget]] = {}
    for n, row in read_rows(path, flag, jsonl=True):
        got = _nuggets(path, n, row, "nuggets", False, problems)
        if got is None:
            continue
        qid, items = got
        if qid in out:
            problems.append(Problem(rel(path), f"topic {qid!r} appears twice", line=n, field="qid"))
            continue
        prov = f"imported: {path.name}"
        out[qid] = [Nugget(qid, f"{qid}/n{k}", t, imp, prov) for k, (t, imp, _) in enumerate(items, start=1)]
    if problems:
        raise InputError(problems)
    if not out:
        raise InputError(Problem(rel(path), "holds no nuggets", field=flag))
    return out


def read_assignments(path: Path | str, flag: str = "--assignments") -> list[Assigned]:
    """An assignment file, one judged answer per line."""
    path = Path(path)
    problems: list[Problem] = []
    out: list[Assigned] = []
    for n, row in read_rows(path, flag, jsonl=True):
        got = _nuggets(path, n, row, "nuggets", True, problems)
        if got is None:
            continue
        qid, items = got
        nuggets = tuple(Nugget(qid, f"{qid}/n{k}", t, imp) for k, (t, imp, _) in enumerate(items, start=1))
        run = row.get("run_id")
        out.append(
            Assigned(
                qid,
                None if run is None else str(run),
                str(row.get("answer_text") or ""),
                nuggets,
                tuple(str(lab) for _, _, lab in items),
            )
        )
    if problems:
        raise InputError(problems)
    return out


def _write(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def write_nuggets(nuggets: Mapping[str, list[Nugget]], queries: Mapping[str, str], path: Path) -> Path:
    """A nugget file nuggetizer reads (its create output)."""
    return _write(
        path,
        (
            {
                "qid": qid,
                "query": queries.get(qid, ""),
                "nuggets": [{"text": x.text, "importance": x.importance} for x in items],
            }
            for qid, items in nuggets.items()
        ),
    )


def write_assignments(assigned: Iterable[Assigned], queries: Mapping[str, str], path: Path) -> Path:
    """An assignment file nuggetizer's metrics read (its assign output, answers mode)."""
    return _write(
        path,
        (
            {
                "query": queries.get(a.query_id, ""),
                "qid": a.query_id,
                "answer_text": a.answer,
                "response_length": len(a.answer.split()),
                "run_id": a.run_id,
                "nuggets": [
                    {"text": x.text, "importance": x.importance, "assignment": lab}
                    for x, lab in zip(a.nuggets, a.labels, strict=True)
                ],
            }
            for a in assigned
        ),
    )
