"""Human labels of a family's units, and the scores they correct (``--human-labels FILE``,
docs/human-labels.md): every row is checked against the run's traces (an unknown query or unit
is an error naming its line, never a label silently dropped), then each score the family
declares a weighted mean of unit labels is corrected (:mod:`benchmark.core.ppi`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.ppi import corrected_mean
from benchmark.core.results import HumanCorrected, Score
from benchmark.families.base import MetricFamily, QueryTrace, score_units

REQUIRED = ("query_id", "unit_id", "label")


@dataclass(frozen=True)
class HumanLabel:
    """One row of a labels file (``family`` / ``task`` ``None``: every one)."""

    query_id: str
    unit_id: str
    label: float
    family: str | None
    task: str | None
    line: int


@dataclass(frozen=True)
class HumanLabels:
    """A parsed labels file: its rows, and its name and hash for the result."""

    path: Path
    rows: tuple[HumanLabel, ...]
    sha256: str

    @property
    def source(self) -> str:
        return f"{self.path.name} sha256:{self.sha256[:16]}"

    def rows_for(self, family_id: str, task_id: str) -> list[HumanLabel]:
        return [r for r in self.rows if r.family in (None, family_id) and r.task in (None, task_id)]


def _label(value: object, where: str, line: int) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        why = f"a label must be 0 or 1 (or a number between them), not {value!r}"
        raise InputError.at(where, why, line=line, field="label")
    return number


def require_ppi() -> None:
    """The correction needs ``ppi-python`` (the ``ppi`` extra): said before any model is asked."""
    import importlib.util

    if importlib.util.find_spec("ppi_py") is None:
        why = "needs ppi-python: pip install 'groundcover[ppi]' (scripts/setup.sh does it)"
        raise InputError.at("--human-labels", why)


def _unit(x: float) -> float:
    return min(1.0, max(0.0, x))


def read_human_labels(path: Path | str) -> HumanLabels:
    """The rows of a CSV (``.csv``) or JSON-lines file; a bad row is an :class:`InputError`
    naming file, line and field."""
    path = Path(path)
    where = rel(path)
    if not path.is_file():
        raise InputError.at(where, "no such labels file", field="--human-labels")
    raw = path.read_bytes()
    text = raw.decode("utf-8-sig")
    records: list[tuple[int, dict[str, object]]] = []
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(text.splitlines())
        missing = [f for f in REQUIRED if f not in (reader.fieldnames or [])]
        if missing:
            raise InputError.at(where, f"the header lacks {', '.join(missing)}", line=1, field=missing[0])
        records = [(n, dict(row)) for n, row in enumerate(reader, start=2)]
    else:
        for n, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError.at(where, f"not JSON ({exc.msg})", line=n) from None
            if not isinstance(row, dict):
                raise InputError.at(where, "a row must be a JSON object", line=n)
            records.append((n, row))
    rows: list[HumanLabel] = []
    seen: dict[tuple[str | None, str | None, str, str], int] = {}
    for n, row in records:
        for f in REQUIRED:
            if row.get(f) in (None, ""):
                raise InputError.at(where, "missing", line=n, field=f)
        family, task = row.get("family"), row.get("task")
        item = HumanLabel(
            query_id=str(row["query_id"]),
            unit_id=str(row["unit_id"]),
            label=_label(row["label"], where, n),
            family=str(family) if family not in (None, "") else None,
            task=str(task) if task not in (None, "") else None,
            line=n,
        )
        key = (item.family, item.task, item.query_id, item.unit_id)
        if key in seen:
            raise InputError.at(where, f"unit {item.unit_id} of query {item.query_id} is labelled again (line {seen[key]})", line=n, field="unit_id")  # fmt: skip
        seen[key] = n
        rows.append(item)
    if not rows:
        raise InputError.at(where, "holds no label", field="--human-labels")
    return HumanLabels(path, tuple(rows), hashlib.sha256(raw).hexdigest())


def correct_scores(
    family: MetricFamily,
    task_id: str,
    traces: Sequence[QueryTrace],
    labels: HumanLabels,
    scores: dict[str, Score],
) -> list[str]:
    """Set ``human_corrected`` on each of ``scores`` the labels reach; return the result's
    notes (the random-sample caveat, and why a score was not corrected)."""
    rows = labels.rows_for(family.id, task_id)
    if not family.labelled_units or not rows:
        return []
    where = rel(labels.path)
    by_query = {t.query_id: t for t in traces}
    units = {
        key: {q: score_units(family, key, t) for q, t in by_query.items()} for key in family.labelled_units
    }
    # a family whose scores label different units (attribution: sentences and citations) names each form
    id_forms = "; ".join(
        dict.fromkeys(f"{spec.unit}: {spec.unit_id}" for spec in family.labelled_units.values())
    )
    problems = []
    for r in rows:
        if r.query_id not in by_query:
            problems.append(
                Problem(where, f"unknown query id {r.query_id!r}: not among the {len(by_query)} scored queries",
                        line=r.line, field="query_id")
            )  # fmt: skip
            continue
        known = {u.unit_id for per_key in units.values() for u in per_key[r.query_id] or ()}
        if known and r.unit_id not in known:
            problems.append(
                Problem(where, f"unknown unit id {r.unit_id!r} for query {r.query_id} ({family.id} {id_forms})",
                        line=r.line, field="unit_id")
            )  # fmt: skip
    if problems:
        raise InputError(problems)
    human = {(r.query_id, r.unit_id): r.label for r in rows}
    notes = []
    for key, spec in family.labelled_units.items():
        score = scores.get(key)
        if score is None:
            continue
        y, yhat, w, yhat_u, w_u = [], [], [], [], []
        for q, found in units[key].items():
            for u in found or ():
                if (q, u.unit_id) in human:
                    y.append(human[(q, u.unit_id)])
                    yhat.append(u.judge)
                    w.append(u.weight)
                else:
                    yhat_u.append(u.judge)
                    w_u.append(u.weight)
        label = family.label(key)
        if len(y) < 2 or not yhat_u:
            notes.append(
                f"{label}: not corrected with human labels ({len(y)} of its {len(y) + len(yhat_u)} {spec.unit}s "
                "labelled; at least 2 labelled and 1 unlabelled are needed)"
            )
            continue
        c = corrected_mean(y, yhat, yhat_u, weights_labelled=w, weights_unlabelled=w_u)
        # a mean of labels in [0, 1] lies in [0, 1]: cutting the interval there loses no coverage
        lo, hi = _unit(c.low), _unit(c.high)
        score.human_corrected = HumanCorrected(
            value=_unit(c.mean),
            ci_low=lo,
            ci_high=hi,
            raw=c.raw,
            n_labels=c.n_labelled,
            n_units=c.n_labelled + c.n_unlabelled,
            unit=spec.unit,
            confidence=c.confidence,
            labels_file=labels.source,
        )
        notes.append(
            f"{label} (human-corrected): {_unit(c.mean):.3f} [{lo:.3f}, {hi:.3f}] from {c.n_labelled} human "
            f"labels of {c.n_labelled + c.n_unlabelled} {spec.unit}s (judge's own mean over them {c.raw:.3f}); "
            f"{HumanCorrected.model_fields['caveat'].default}"
        )
    return notes
