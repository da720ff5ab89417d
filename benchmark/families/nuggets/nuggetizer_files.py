"""Nugget and assignment files as castorini's ``nuggetizer`` reads and writes them (JSON lines):
a nugget file (its create output: ``qid``, ``query``, ``nuggets [{text, importance}]``) and an
assignment file (its assign output, adding ``answer_text``, ``run_id`` and each nugget's
``assignment``).  nuggetizer's ``"failed"`` labels are failed judgements, not problems of the
file; every other problem names file, line and field, and refuses the file whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import read_rows
from benchmark.families.base import write_jsonl
from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.formulas import FAILED, IMPORTANCE, LABELS


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
    #: its line in the file it was read from (0: not read from a file)
    line: int = field(default=0, compare=False)


def _nuggets(
    path: Path, n: int, row: Any, field: str, labelled: bool, problems: list[Problem], any_label: bool = False
) -> tuple[str, list[tuple[str, str, str | None]]] | None:
    """A line's topic id and its (text, importance, assignment) triples, or ``None`` with its
    problems recorded; ``any_label`` accepts any value, as nuggetizer's metrics read it (the key
    itself is needed)."""

    def bad(message: str, name: str | None = None) -> None:
        problems.append(Problem(rel(path), message, line=n, field=name))

    if not isinstance(row, dict):
        bad("each line must be a JSON object")
        return None
    qid = row.get("qid", row.get("query_id"))
    if not isinstance(qid, str | int) or isinstance(qid, bool) or str(qid) == "":
        bad("needs the topic id", "qid")
        return None
    items = row.get(field)
    if not isinstance(items, list):
        bad("must be a list of nuggets", field)
        return None
    out = []
    for i, item in enumerate(items):
        at = f"{field}[{i}]"
        text = item.get("text") if isinstance(item, dict) else None
        imp = item.get("importance") if isinstance(item, dict) else None
        lab = item.get("assignment") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip():
            bad("a nugget needs its text", f"{at}.text")
        elif not (any_label and "importance" in item) and imp not in (*IMPORTANCE, FAILED):
            bad(f"importance must be one of {(*IMPORTANCE, FAILED)}, not {imp!r}", f"{at}.importance")
        elif labelled and not (any_label and "assignment" in item) and lab not in (*LABELS, FAILED):
            bad(f"assignment must be one of {(*LABELS, FAILED)}, not {lab!r}", f"{at}.assignment")
        else:
            out.append((text.strip(), str(imp), lab if labelled else None))
    return str(qid), out


def read_nuggets(
    path: Path | str, flag: str = "--nuggets", lines: dict[str, int] | None = None
) -> dict[str, list[Nugget]]:
    """A nugget file as topic id -> its nuggets, in file order (ids ``<qid>/n<k>``); a
    topic may have none (:func:`empty_topics`).  ``lines``, when given, receives each
    topic's line."""
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
        if lines is not None:
            lines[qid] = n
        out[qid] = [Nugget(qid, f"{qid}/n{k}", t, imp, prov) for k, (t, imp, _) in enumerate(items, start=1)]
    if problems:
        raise InputError(problems)
    if not out:
        raise InputError.at(rel(path), "holds no nuggets", field=flag)
    return out


def empty_topics(nuggets: Mapping[str, list[Nugget]]) -> list[str]:
    """The topics a nugget file lists with no nugget (a problem of the file)."""
    return [q for q, ns in nuggets.items() if not ns]


def read_assignments(
    path: Path | str, flag: str = "--assignments", nuggetizer_compatible: bool = False
) -> list[Assigned]:
    """An assignment file, one judged answer per line; a repeated run and topic, or a label outside
    nuggetizer's vocabulary, is refused unless ``nuggetizer_compatible``."""
    path = Path(path)
    problems: list[Problem] = []
    out: list[Assigned] = []
    seen: dict[tuple[str | None, str], int] = {}
    for n, row in read_rows(path, flag, jsonl=True):
        got = _nuggets(path, n, row, "nuggets", True, problems, any_label=nuggetizer_compatible)
        if got is None:
            continue
        qid, items = got
        nuggets = tuple(Nugget(qid, f"{qid}/n{k}", t, imp) for k, (t, imp, _) in enumerate(items, start=1))
        run = row.get("run_id")
        key = (None if run is None else str(run), qid)
        if key in seen and not nuggetizer_compatible:
            who = "the file" if run is None else f"run {str(run)!r}"
            problems.append(
                Problem(
                    rel(path),
                    f"{who} answers topic {qid!r} on lines {seen[key]} and {n}: one answer per run and topic "
                    "(nuggetizer's metrics would count both lines; --nuggetizer-compatible does the same)",
                    line=n,
                    field="qid",
                )
            )
            continue
        seen.setdefault(key, n)
        out.append(
            Assigned(
                qid,
                None if run is None else str(run),
                str(row.get("answer_text") or ""),
                nuggets,
                tuple(str(lab) for _, _, lab in items),
                line=n,
            )
        )
    if problems:
        raise InputError(problems)
    return out


@dataclass
class RunScores:
    """One run of an assignment file, scored: per record (a topic, or with
    ``--nuggetizer-compatible`` a line) its four scores and its failed judgements."""

    records: dict[str, dict[str, float | None]] = field(default_factory=dict)
    failures: dict[str, list[str]] = field(default_factory=dict)

    def mean(self, key: str) -> float | None:
        """The run's mean of ``key`` over the records that have it (``None``: none has)."""
        values = [s[key] for s in self.records.values() if s[key] is not None]
        return sum(values) / len(values) if values else None

    def failed(self, key: str) -> int:
        """How many records have no ``key`` because a judgement failed."""
        return sum(1 for r, s in self.records.items() if s[key] is None and self.failures.get(r))


def score_assignments(assigned: Iterable[Assigned], compatible: bool = False) -> dict[str, RunScores]:
    """Run id (``"run"`` when the file names none) -> its records' scores; with ``compatible``
    every number is what nuggetizer's ``calculate_metrics.py`` computes."""
    out: dict[str, RunScores] = {}
    for a in assigned:
        run = out.setdefault(a.run_id or "run", RunScores())
        key = a.query_id if a.query_id not in run.records else f"{a.query_id} (line {a.line})"
        importance = [n.importance for n in a.nuggets]
        run.records[key] = formulas.nugget_scores(importance, list(a.labels), compatible=compatible)
        if not compatible and (failed := formulas.failed_judgements(importance, list(a.labels))):
            run.failures[key] = failed
    return out


def write_nuggets(nuggets: Mapping[str, list[Nugget]], queries: Mapping[str, str], path: Path) -> Path:
    """A nugget file nuggetizer reads (its create output)."""
    return write_jsonl(
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
    return write_jsonl(
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
