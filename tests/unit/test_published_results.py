"""No silent score changes: every published result is recomputed from its own traces.

For each result file under ``leaderboard/results/`` the family recomputes every query's
scores from the trace alone (no model), and the runner's aggregation recomputes every
mean, interval, curve, count and the board settings; all must equal the published
numbers exactly.  (``tests/integration/test_published_rescore.py`` re-scores the
submissions themselves with real models.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.families import REGISTRY
from benchmark.families.decompscore.texts import load_texts_task
from benchmark.results import read_result, traces_path
from benchmark.runner import RunOptions, aggregate
from benchmark.tasks import list_tasks, load_task

PUBLISHED = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
TEXTS = PUBLISHED.parent / "texts"  # what the published decomposition results decomposed
FILES = sorted(PUBLISHED.rglob("*.json"))


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
        assert family.recompute(trace) == published.scores, trace.query_id
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
        assert getattr(again, field) == getattr(result, field), field
    assert again.task.queries == result.task.queries and again.task.data == result.task.data
