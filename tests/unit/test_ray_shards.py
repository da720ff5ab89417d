"""``--ray``: options that fail before any model loads, and the worker's per-job state."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.core.errors import InputError
from benchmark.models.profiles import load_profile
from benchmark.scoring.ray_shards import RayOptions, RayPool

pytest.importorskip("ray")


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"workers": 0}, "--ray-workers"),
        ({"cpus_per_worker": 0}, "--ray-cpus-per-worker"),
        ({"gpus_per_worker": -1}, "--ray-gpus-per-worker"),
    ],
)
def test_bad_sizes_name_their_flag(kwargs: dict[str, float], flag: str) -> None:
    with pytest.raises(InputError) as err:
        RayOptions(**kwargs)  # type: ignore[arg-type]
    assert flag in str(err.value)


def test_workers_default_to_what_the_cluster_holds() -> None:
    profile = load_profile("offline-smollm2-minilm-sim")
    assert RayPool(profile, RayOptions())._fitting({"CPU": 8.0}) == 8
    assert RayPool(profile, RayOptions(cpus_per_worker=3))._fitting({"CPU": 8.0}) == 2
    gpus = RayPool(profile, RayOptions(gpus_per_worker=1))
    assert gpus._fitting({"CPU": 16.0, "GPU": 4.0}) == 4
    with pytest.raises(InputError, match="cannot hold one worker"):
        gpus._fitting({"CPU": 16.0})


def test_the_cli_refuses_zero_workers_before_loading_anything(tmp_path, capsys) -> None:
    from benchmark.cli.main import main

    answers = tmp_path / "a.jsonl"
    answers.write_text('{"query_id": "175", "answer": "Chest pain.", "model": "m/x", "revision": "r"}\n')
    code = main(
        [
            "score",
            "--outputs",
            str(answers),
            "--tasks",
            "webtrack-2009-2012",
            "--results-dir",
            str(tmp_path / "r"),
            "--ray",
            "--ray-workers",
            "0",
        ]
    )
    assert code != 0 and "--ray-workers" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*.json"))


def fake_family(monkeypatch: pytest.MonkeyPatch, name: str, prepare: Any, score_batch: Any) -> Any:
    """A family whose pipeline module is ``prepare`` and ``score_batch`` (what a worker asks)."""
    import sys
    import types

    pipeline = types.ModuleType(f"{name}.pipeline")
    pipeline.prepare, pipeline.score_batch = prepare, score_batch  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, f"{name}.pipeline", pipeline)
    return types.SimpleNamespace(package=name)


def test_a_worker_prepares_again_for_each_job_whose_inputs_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two RAG jobs share a run key (same task, family, profile) but not their evidence: a
    worker that kept the first job's prepared state would score the second against it."""
    from dataclasses import dataclass

    from benchmark.families.base import Prepared, ScoringInputs
    from benchmark.scoring.ray_shards import ScoringWorker

    @dataclass
    class Row:
        query_id: str
        evidence: list[str]

        def model_dump(self, mode: str) -> dict[str, object]:
            return {"query_id": self.query_id, "evidence": self.evidence}

    prepared = []

    def prepare(task: object, judges: object, inputs: ScoringInputs, settings: object) -> Prepared:
        prepared.append(inputs)
        return Prepared(state=inputs.evidence)

    def score_batch(evidence: dict[str, list[str]], items: list) -> list[Row]:
        return [Row(q, evidence[q]) for q, _, _ in items]

    worker = ScoringWorker(load_profile("offline-smollm2-minilm-sim"))
    family = fake_family(monkeypatch, "fake_rag_family", prepare, score_batch)
    items = [("q1", "query", "answer")]
    a = ScoringInputs(evidence={"q1": ["doc-a"]})
    b = ScoringInputs(evidence={"q1": ["doc-b"]})
    assert worker.score("job-a", family, None, a, None, items)[1] == [
        {"query_id": "q1", "evidence": ["doc-a"], "unreachable": False}  # the runner's mark: judge reached
    ]
    assert worker.score("job-a", family, None, a, None, items)[1][0]["evidence"] == ["doc-a"]
    assert len(prepared) == 1  # the same job's batches share one prepare
    assert worker.score("job-b", family, None, b, None, items)[1][0]["evidence"] == ["doc-b"]
    assert len(prepared) == 2


def test_a_workers_counts_reach_the_driver_per_stage() -> None:
    """A batch's counts go back per stage and namespace; the driver's result then splits a
    sharded run's calls and seconds by stage as a single process's does."""
    from benchmark.models.cache import CacheStats, stage
    from benchmark.scoring.ray_shards import merge_counts
    from benchmark.scoring.runner import stats_delta

    worker = CacheStats()
    worker.record("entail", 2, 3, 1.5, stage="grounding")
    before = {k: list(v) for k, v in worker.by_stage.items()}
    with stage("alignment"):
        worker.record("llm.generate", 0, 4, 2.0)
    worker.record("entail", 1, 0, 0.0, stage="grounding")
    delta = stats_delta(before, worker.by_stage)
    assert delta == {"alignment/llm.generate": (0, 4, 2.0), "grounding/entail": (1, 0, 0.0)}
    driver = CacheStats()
    merge_counts(driver, delta)
    assert driver.by_stage["alignment/llm.generate"] == [0, 4, 2.0]
    assert driver.by_namespace == {"llm.generate": [0, 4], "entail": [1, 0]}


def test_a_worker_judges_its_batch_once_per_repeat_and_keeps_the_repeats_scores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--ray`` with ``--judge-repeats 3``: the worker runs the batch as one process does
    (repeat 0 is the trace; repeats 1 and 2, each under its own repeat index, leave their
    scores in ``repeat_scores``), so the driver's checkpoint and aggregate see every repeat."""
    from dataclasses import dataclass

    from benchmark.families.base import Prepared, ScoringInputs
    from benchmark.models.cache import current_repeat
    from benchmark.scoring.ray_shards import ScoringWorker

    @dataclass
    class Row:
        query_id: str
        scores: dict[str, float]

        def model_dump(self, mode: str) -> dict[str, object]:
            return {"query_id": self.query_id, "scores": self.scores}

    family = fake_family(
        monkeypatch,
        "fake_repeated_family",
        lambda task, judges, inputs, settings: Prepared(state=None),
        lambda state, items: [Row(q, {"s": float(current_repeat())}) for q, _, _ in items],
    )
    worker = ScoringWorker(load_profile("offline-smollm2-minilm-sim"))
    items = [("q1", "query", "answer"), ("q2", "query", "answer")]
    qids, rows, _ = worker.score("job", family, None, ScoringInputs(), None, items, 3)
    assert qids == ["q1", "q2"]
    assert [r["scores"] for r in rows] == [{"s": 0.0}, {"s": 0.0}]
    assert [r["repeat_scores"] for r in rows] == [[{"s": 1.0}, {"s": 2.0}]] * 2
    assert "repeat_scores" not in worker.score("job", family, None, ScoringInputs(), None, items)[1][0]
