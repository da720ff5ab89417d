"""Every registered metric family runs through the real runner on a fake judge stack.

A family's own test module declares its mock (``CONTRACT_MOCKS``: a task builder, answers
and a fake stack) next to its number-for-number tests; this test finds it and checks the
platform contract for every registered family:
typed traces, one result with the family's columns and primary score, resumable
checkpoints, and a trace the family can render.
"""

from __future__ import annotations

import gzip
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.results import ModelInfo, read_result
from benchmark.families import REGISTRY, families_for, views
from benchmark.judging.stack import JudgeStack
from benchmark.scoring.runner import RunOptions, score_task
from benchmark.tasks import Task


def _discover() -> dict[str, Callable[[Path], tuple[Task, dict[str, str], JudgeStack]]]:
    """Every family's mock, declared by its own test module as ``CONTRACT_MOCKS``."""
    found: dict[str, Callable[[Path], tuple[Task, dict[str, str], JudgeStack]]] = {}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"tests.unit.{path.stem}")
        found |= getattr(module, "CONTRACT_MOCKS", {})
    return found


MOCKS = _discover()


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_family_runs_through_the_runner(family_id: str, tmp_path: Path) -> None:
    assert family_id in MOCKS, (
        f"declare CONTRACT_MOCKS = {{{family_id!r}: builder}} in the family's test module"
    )
    family = REGISTRY[family_id]
    task, answers, judges = MOCKS[family_id](tmp_path)
    assert family in families_for(task)

    def run() -> Any:
        return score_task(
            family,
            task,
            answers,
            judges,
            model=ModelInfo(id="mock/model"),
            results_root=tmp_path / "results",
            options=RunOptions(progress=False),
        )

    result, path = run()
    assert read_result(path) == result and result.metric_family == family_id
    assert result.primary in {c.key for c in family.columns}
    assert set(result.scores) <= {c.key for c in family.columns} | {
        k for q in result.per_query for k in q.scores
    }
    traces = [
        family.trace_model.model_validate_json(line)
        for line in path.with_name(path.stem + ".traces.jsonl").read_text().splitlines()
    ]
    assert [t.query_id for t in traces] == [q.query_id for q in result.per_query]
    assert all(t.item_key for t in traces)
    html = views.trace_html(family, traces[0].model_dump(mode="json"))
    assert traces[0].query in html or "query" in html.lower()
    # a second run finds every query checkpointed and asks no model anything
    calls = (len(judges.llm.requests), len(judges.entailment.calls))  # type: ignore[attr-defined]
    again, _ = run()
    assert again.scores == result.scores
    assert (len(judges.llm.requests), len(judges.entailment.calls)) == calls  # type: ignore[attr-defined]


class InProcessPool:
    """``RayPool``'s contract without Ray: one ``ScoringWorker`` around the fake stack, its
    batches handed back last first (Ray returns them in whatever order they finish)."""

    def __init__(self, judges: JudgeStack) -> None:
        from benchmark.scoring.ray_shards import ScoringWorker

        self.worker = ScoringWorker.__new__(ScoringWorker)
        self.worker.judges, self.worker._key, self.worker._prepared = judges, None, None
        self.keys: list[str] = []

    def score(
        self, key: str, family: Any, task: Any, inputs: Any, settings: Any, batches: Any, **_: Any
    ) -> Any:
        self.keys.append(key)
        for items in reversed(batches):
            qids, rows, _counts = self.worker.score(key, family, task, inputs, settings, items)
            yield qids, rows


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_sharded_batches_write_what_one_process_writes(family_id: str, tmp_path: Path) -> None:
    """Every family scored batch by batch through a worker, out of order, gives the result
    and traces of the in-process loop; each job gets a worker state of its own."""
    family = REGISTRY[family_id]
    task, answers, judges = MOCKS[family_id](tmp_path)
    pool = InProcessPool(judges)
    paths = {}
    for label, use in (("one", None), ("pool", pool)):
        for model in ("mock/a", "mock/b"):
            _, paths[label, model] = score_task(
                family,
                task,
                answers,
                judges,
                model=ModelInfo(id=model),
                results_root=tmp_path / label,
                options=RunOptions(progress=False, query_batch=1),
                pool=use,  # type: ignore[arg-type]
            )
    for model in ("mock/a", "mock/b"):
        one, sharded = read_result(paths["one", model]), read_result(paths["pool", model])
        assert sharded.per_query == one.per_query and sharded.scores == one.scores
        trace = paths["one", model].with_name(paths["one", model].stem + ".traces.jsonl")
        assert trace.read_text() == paths["pool", model].with_name(trace.name).read_text()
    assert len(pool.keys) == 2 and pool.keys[0] != pool.keys[1]  # one worker state per job


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.jsonl.gz"])
def test_write_jsonl_keeps_a_lone_surrogate_and_never_leaves_half_a_file(tmp_path: Path, name: str) -> None:
    """A model's reply may carry a lone surrogate: it is written as its JSON escape and reads back
    the same; a row that cannot be written leaves the previous file as it was."""
    from benchmark.families.base import write_jsonl

    path = write_jsonl(tmp_path / name, [{"q": "caf\u00e9 \ud83d"}, {"q": "two"}])
    raw = path.read_bytes()
    lines = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [{"q": "caf\u00e9 \ud83d"}, {"q": "two"}]
    assert "café" in lines[0] and "\\ud83d" in lines[0]
    before = path.read_bytes()
    with pytest.raises(TypeError):
        write_jsonl(path, [{"q": "three"}, {"q": object()}])
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [name]
