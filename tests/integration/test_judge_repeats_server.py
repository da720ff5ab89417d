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
