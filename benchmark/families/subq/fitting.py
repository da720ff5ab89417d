"""Fitting the hybrid's weights on labelled pairwise preferences, next to the baselines a
reader needs to judge the fit (each type alone, the default weights, the longer answer,
the majority label)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import read_rows
from benchmark.families.subq import formulas
from benchmark.families.subq.pipeline import task_sub_questions
from benchmark.tasks import Task


def read_preferences(path: Path) -> list[dict[str, str]]:
    """Rows of query_id, answer_a, answer_b, preferred (A/B); every problem named."""
    rows = read_rows(path, "--preferences")
    out, problems = [], []
    for n, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(rel(path), "each row must be an object", line=n))
            continue
        missing = [
            f for f in ("query_id", "answer_a", "answer_b", "preferred") if not str(row.get(f) or "").strip()
        ]
        if missing:
            problems.append(Problem(rel(path), "missing", line=n, field=missing[0]))
        elif str(row["preferred"]).strip().upper() not in ("A", "B"):
            problems.append(
                Problem(rel(path), f"must be A or B, not {row['preferred']!r}", line=n, field="preferred")
            )
        else:
            out.append(
                {k: str(row[k]) for k in ("query_id", "answer_a", "answer_b")}
                | {"preferred": str(row["preferred"]).strip().upper()}
            )
    if problems:
        raise InputError(problems)
    return out


def fit_on_preferences(
    prefs: list[dict[str, str]], task: Task, judge: Any, step: float, *, source: str = "--preferences"
) -> tuple[tuple[float, float, float], list[tuple[str, float | None]]]:
    """The best weights on ``prefs``, and (scorer, pairwise accuracy) rows: the fit, the
    default weights, each type alone, the longer answer and the majority label."""
    subqs = task_sub_questions(task)
    unknown = sorted({p["query_id"] for p in prefs} - set(subqs))
    if unknown:
        raise InputError.at(
            source, f"queries without sub-questions in {task.id}: {unknown[:5]}", field="query_id"
        )
    items = [
        ([p[side]], [s.text for s in subqs[p["query_id"]]])
        for p in prefs
        for side in ("answer_a", "answer_b")
    ]
    marks = judge.judge(items)
    pairs = []
    for k, p in enumerate(prefs):
        types = [s.type for s in subqs[p["query_id"]]]
        a, b = (formulas.coverage(types, [m.covered for m in marks[2 * k + j]]) for j in (0, 1))
        pairs.append(formulas.Preference(a, b, p["preferred"]))
    best, accuracy = formulas.fit_weights(pairs, step)
    rows: list[tuple[str, float | None]] = [
        # no accuracy: no weights scored a pair, so nothing was fit and the defaults are kept
        (
            f"hybrid, fitted weights {best}"
            if accuracy is not None
            else f"hybrid, no pair scored: default weights {best} kept",
            accuracy,
        ),
        (
            f"hybrid, default weights {formulas.DEFAULT_WEIGHTS}",
            formulas.preference_accuracy(pairs, formulas.DEFAULT_WEIGHTS),
        ),
    ]
    for i, t in enumerate(formulas.TYPES):
        alone = tuple(1.0 if j == i else 0.0 for j in range(3))
        rows.append((f"{t} coverage only", formulas.preference_accuracy(pairs, alone)))
    longer = [
        formulas.agreement(len(p["answer_a"].split()), len(p["answer_b"].split()), p["preferred"])
        for p in prefs
    ]
    rows.append(("baseline: the longer answer", sum(x for x in longer if x is not None) / len(prefs)))
    share_a = sum(p["preferred"] == "A" for p in prefs) / len(prefs)
    rows.append(("baseline: the majority label", max(share_a, 1 - share_a)))
    return best, rows
