"""No silent score changes: every published result is recomputed from its own traces.

For each result file under ``leaderboard/results/`` the family recomputes every query's
scores from the trace alone (no model), and the runner's aggregation recomputes every
mean, interval, curve, count and the board settings; all must equal the published
numbers number for number, within :data:`REL_TOL`.  (``tests/integration/test_published_rescore.py``
re-scores the submissions themselves with real models.)

Why a tolerance: a bootstrap interval's bound is a mean of floats, and the same draw can
round differently in its last bit under another numpy/BLAS build
(0.044444444444444446 vs 0.04444444444444445). Installs are pinned
(``constraints.txt``), but the verdict must not hang on the last bit either. A relative
tolerance of 1e-9 is fourteen orders of magnitude finer than the three decimals a board
shows, and far coarser than rounding noise; strings, ids, counts and the query order are
compared exactly.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.results import read_result, traces_path
from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.decompscore.texts import load_texts_task
from benchmark.scoring.runner import RunOptions, aggregate
from benchmark.tasks import list_tasks, load_task

PUBLISHED = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
TEXTS = PUBLISHED.parent / "texts"  # what the published decomposition results decomposed
FILES = sorted(PUBLISHED.rglob("*.json"))
REL_TOL = 1e-9  # relative; and 1e-12 absolute for values at zero


def same(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two JSON-like values differ: floats within the tolerance, all else exactly."""
    if hasattr(a, "model_dump"):
        a = a.model_dump(mode="json")
    if hasattr(b, "model_dump"):
        b = b.model_dump(mode="json")
    if isinstance(a, float) or isinstance(b, float):
        if (
            isinstance(a, bool)
            or isinstance(b, bool)
            or not isinstance(a, int | float)
            or not isinstance(b, int | float)
        ):
            return [] if a == b else [f"{where}: {a!r} != {b!r}"]
        if math.isnan(a) and math.isnan(b):
            return []
        return [] if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12) else [f"{where}: {a!r} != {b!r}"]
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in same(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in same(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def test_the_comparison_has_a_tolerance_and_no_more() -> None:
    assert same({"ci_low": 0.044444444444444446}, {"ci_low": 0.04444444444444445}) == []
    assert same({"ci_low": 0.0444444}, {"ci_low": 0.0444445}) != []  # a real change fails
    assert same({"n": 12}, {"n": 13}) != [] and same(["a"], ["b"]) != [] and same([1.0], [1.0, 2.0]) != []
    assert same({"x": None}, {"x": 0.0}) != [] and same({"x": float("nan")}, {"x": float("nan")}) == []


def test_there_are_published_results() -> None:
    assert len(FILES) >= 3  # SmolLM2 closed-book and RAG, and the extractive baseline


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(PUBLISHED)) for p in FILES])
def test_published_result_recomputes_from_its_traces(path: Path) -> None:
    result = read_result(path)
    family = REGISTRY[result.metric_family]
    lines = traces_path(path).read_text(encoding="utf-8").split("\n")
    traces = [family.trace_model.model_validate_json(line) for line in lines if line]
    assert [t.query_id for t in traces] == [q.query_id for q in result.per_query]
    for trace, published in zip(traces, result.per_query, strict=True):
        diffs = same(family_base.recompute(family, trace), published.scores, trace.query_id)
        assert not diffs, diffs
    again = aggregate(
        family,
        load_task(result.task.id)
        if result.task.id in {c.id for c in list_tasks()}
        else load_texts_task(result.task.id, TEXTS),
        traces,
        result.model,
        result.judge_profile,
        result.task.corpus,
        family.settings_model.model_validate(result.settings),
        RunOptions(seed=result.statistics.seed, bootstrap_resamples=result.statistics.bootstrap_resamples),
        result.notes,
    )
    for field in (
        "scores",
        "curves",
        "per_query",
        "failures",
        "failed_queries",
        "counts",
        "primary",
        "board_settings",
    ):
        diffs = same(getattr(again, field), getattr(result, field), field)
        assert not diffs, diffs
    assert again.task.queries == result.task.queries and again.task.data == result.task.data
