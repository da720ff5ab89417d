"""``--judge-repeats``: a sampled LLM judge asked N times, each repeat cached apart.

The nugget family's LLM assigner runs against a scripted OpenAI-compatible server whose
'model' labels every fact at random on every request (a noisy judge).  Scored once, then
with three repeats under the same cache: the second run asks exactly twice the first run's
requests (repeat 0 keeps its cache keys and comes from the cache; repeats 1 and 2 are asked
once each), a third run asks nothing, and the result holds every query's three values, the
two-level interval and the judge's noise share, which the board prints.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

import benchmark
from benchmark.board.leaderboard import from_results
from benchmark.board.render import print_leaderboard
from benchmark.core.results import read_result
from benchmark.scoring.dry_run import DryRun
from benchmark.scoring.ray_shards import RayOptions
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, http_judge_profile
from tests.unit.test_nuggets import tiny

pytestmark = pytest.mark.slow


def noisy_judge() -> ScriptedModel:
    rng = random.Random(3)

    def labels(messages: list[dict[str, str]]) -> str:
        turn = next(m["content"] for m in reversed(messages) if "Facts:" in m["content"])
        facts = re.findall(r"^(\d+)\. ", turn.split("Facts:", 1)[1], flags=re.M)
        return "\n".join(f"{n}: {rng.choice(['support', 'not_support'])}" for n in facts)

    return ScriptedModel("scripted-noisy-judge", labels)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(noisy_judge())) as srv:  # type: ignore[arg-type]
        yield srv


def test_each_judgement_is_asked_n_times_and_cached_per_repeat(server: ServerThread, tmp_path: Path) -> None:
    profile = http_judge_profile(tmp_path, server, "http-noisy", "scripted-noisy-judge", temperature=0.7)
    task = tiny(tmp_path)
    answers = [
        {"query_id": "q1", "answer": "Tornadoes form from rotating thunderstorms in Tornado Alley.", "model": "org/sys"},
        {"query_id": "q2", "answer": "Figs grow on trees.", "model": "org/sys"},
    ]  # fmt: skip

    def run(folder: str, repeats: int) -> int:
        control(server, "reset")
        benchmark.score(
            answers, task=task, metrics=["nuggets"], settings={"nuggets": {"assigner": "llm"}},
            judge_profile=profile, results_dir=tmp_path / folder, progress=False, judge_repeats=repeats,
        )  # fmt: skip
        return int(control(server, "stats")["requests"])

    once = run("once", 1)
    assert once >= 2
    assert run("thrice", 3) == 2 * once  # repeat 0 from the cache: its keys did not move
    assert run("thrice", 3) == 0  # resumed: every repeat is in the checkpoint and the cache
    assert run("again", 3) == 0  # a fresh results folder: every repeat is in the cache

    (path,) = (tmp_path / "thrice").rglob("*.nuggets.json")
    result = read_result(path)
    (single,) = (tmp_path / "once").rglob("*.nuggets.json")
    assert "repeats" not in json.loads(single.read_text())["per_query"][0]  # no repeats: as before
    for pq in result.per_query:
        assert pq.repeats is not None and len(pq.repeats["all_strict"]) == 3
        values = [v for v in pq.repeats["all_strict"] if v is not None]
        assert pq.scores["all_strict"] == pytest.approx(sum(values) / len(values))
    score = result.scores["all_strict"]
    assert score.judge_repeats is not None and score.judge_repeats.repeats == 3
    assert score.judge_repeats.noise_share is not None and 0.0 <= score.judge_repeats.noise_share <= 1.0
    assert score.ci_method == "two-level percentile"
    traces = [json.loads(x) for x in path.with_name(path.stem + ".traces.jsonl").read_text().splitlines()]
    assert all(len(t["repeat_scores"]) == 2 for t in traces)
    assert any(n.startswith("judge repeats: each judgement asked 3 times") for n in result.notes)

    console = Console(width=300, record=True)
    print_leaderboard(from_results([result]), console, skip_empty=True)
    assert "Judge noise: org/sys: each judgement asked 3 times" in " ".join(console.export_text().split())


def planned_llm_calls(plan: DryRun) -> int:
    """The LLM requests a plan says the run will send (those it cannot find in the cache)."""
    return sum(r.to_compute for r in plan.rows if r.kind == "LLM calls")


def test_a_dry_run_counts_every_repeat_the_run_asks(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dry run plans repeat 0 and each repeat under its own cache keys, as the run asks
    them: cold, it counts exactly the requests the server then gets; after a run with one
    repeat, it counts only the new repeats (repeat 0's keys are the ones that run cached)."""
    monkeypatch.setenv("GROUNDCOVER_CACHE", str(tmp_path / "calls.sqlite"))
    profile = http_judge_profile(tmp_path, server, "http-noisy", "scripted-noisy-judge", temperature=0.7)
    task = tiny(tmp_path)
    answers = [
        {"query_id": "q1", "answer": "Most tornadoes happen in spring in the central plains.", "model": "org/plan"},
        {"query_id": "q2", "answer": "Fig trees need warm summers.", "model": "org/plan"},
    ]  # fmt: skip
    kw: dict = {"task": task, "metrics": ["nuggets"], "settings": {"nuggets": {"assigner": "llm"}}}
    kw |= {"judge_profile": profile, "progress": False}

    def run(folder: str, repeats: int) -> int:
        control(server, "reset")
        benchmark.score(answers, results_dir=tmp_path / folder, judge_repeats=repeats, **kw)
        return int(control(server, "stats")["requests"])

    planned_once = planned_llm_calls(
        benchmark.plan(answers, results_dir=tmp_path / "once", judge_repeats=1, **kw)
    )
    planned_thrice = planned_llm_calls(
        benchmark.plan(answers, results_dir=tmp_path / "x", judge_repeats=3, **kw)
    )
    assert planned_once >= 2 and planned_thrice == 3 * planned_once
    assert run("once", 1) == planned_once
    # repeat 0 is cached (and checkpointed under "once"): only repeats 1 and 2 are left to ask
    planned_more = planned_llm_calls(
        benchmark.plan(answers, results_dir=tmp_path / "once", judge_repeats=3, **kw)
    )
    assert planned_more == 2 * planned_once
    assert run("once", 3) == planned_more
    assert (
        planned_llm_calls(benchmark.plan(answers, results_dir=tmp_path / "once", judge_repeats=3, **kw)) == 0
    )


def test_ray_workers_judge_every_repeat_as_one_process_does(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--ray`` with ``--judge-repeats 3`` on a local Ray instance (one worker): the workers
    ask every repeat (three times the single-repeat requests, each cached apart), the merged
    traces carry each query's two extra repeats, and one process scoring the same answers
    on that cache asks nothing and writes the same per-query values and traces."""
    pytest.importorskip("ray")
    monkeypatch.setenv("GROUNDCOVER_CACHE", str(tmp_path / "calls.sqlite"))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    profile = http_judge_profile(tmp_path, server, "http-noisy", "scripted-noisy-judge", temperature=0.7)
    task = tiny(tmp_path)
    answers = [
        {"query_id": "q1", "answer": "Tornado Alley sees rotating thunderstorms each May.", "model": "org/ray"},
        {"query_id": "q2", "answer": "Figs are sweet and grow in warm places.", "model": "org/ray"},
    ]  # fmt: skip
    kw: dict = {"task": task, "metrics": ["nuggets"], "settings": {"nuggets": {"assigner": "llm"}}}
    kw |= {"judge_profile": profile, "progress": False, "judge_repeats": 3, "query_batch": 1}
    once = planned_llm_calls(
        benchmark.plan(answers, results_dir=tmp_path / "p", **{**kw, "judge_repeats": 1})
    )

    control(server, "reset")
    benchmark.score(answers, results_dir=tmp_path / "ray", ray=RayOptions(workers=1), **kw)
    assert int(control(server, "stats")["requests"]) == 3 * once
    control(server, "reset")
    benchmark.score(answers, results_dir=tmp_path / "single", **kw)
    assert int(control(server, "stats")["requests"]) == 0  # every repeat the workers asked is cached

    (sharded,) = (tmp_path / "ray").rglob("*.nuggets.json")
    (single,) = (tmp_path / "single").rglob("*.nuggets.json")
    a, b = read_result(sharded), read_result(single)
    assert [q.model_dump() for q in a.per_query] == [q.model_dump() for q in b.per_query]
    assert all(q.repeats is not None and len(q.repeats["all_strict"]) == 3 for q in a.per_query)
    assert (
        a.scores["all_strict"].judge_repeats is not None and a.scores["all_strict"].judge_repeats.repeats == 3
    )

    def traces(path: Path) -> list[dict]:
        rows = [json.loads(x) for x in path.with_name(path.stem + ".traces.jsonl").read_text().splitlines()]
        return sorted(rows, key=lambda t: t["query_id"])

    assert traces(sharded) == traces(single)
    assert all(len(t["repeat_scores"]) == 2 for t in traces(sharded))
