"""The dry run's parts: the cache's plan mode, stages, placeholders, pending replies, money.

The whole dry run against a real run (counts equal, nothing computed) is
``tests/integration/test_dry_run.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from benchmark.models.cache import ModelCallCache, stage
from benchmark.models.llm import NAMESPACE, PENDING_REPLY
from benchmark.models.profiles import Price, load_profile
from benchmark.models.structured import PENDING_ERROR, run_structured
from benchmark.retrieval.cached import CachedRetriever, PlannedRetriever
from benchmark.retrieval.index import Hit
from benchmark.scoring.dry_run import Planner, StageRow, TokenCounter, price_rows


class _Judges:
    """What the planner reads of a judge stack."""

    def __init__(self, cache: ModelCallCache) -> None:
        self.cache = cache
        self.profile = load_profile()


def planner(cache: ModelCallCache) -> Planner:
    found = Planner(_Judges(cache), TokenCounter(object()))  # type: ignore[arg-type]
    cache.planner = found
    return found


def test_plan_mode_answers_hits_and_hands_misses_to_the_planner_writing_nothing(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    cache.cached_batch("entail", "nli", ["known"], lambda b: [0.25])
    plan = planner(cache)
    computed: list[Any] = []
    with stage("grounding"):
        out = cache.cached_batch("entail", "nli", ["known", "new", "new"], lambda b: computed.append(b) or b)
    assert out == [0.25, 1.0, 1.0] and computed == []
    assert cache.count() == 1  # nothing written
    assert cache.stats.by_stage["grounding/entail"][:2] == [1, 1]  # distinct requests: 1 cached, 1 new
    assert "grounding/entail" in plan.order


def test_stages_after_a_placeholder_are_estimates_until_the_next_batch(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    plan = planner(cache)
    with stage("claims"):
        cache.cached_batch("entail", "nli", ["a"], lambda b: b)
    with stage("alignment"):
        cache.cached_batch("entail", "nli", ["b"], lambda b: b)
    assert plan.estimated == {"alignment/entail"}
    plan.new_batch()
    plan.estimated.clear()
    with stage("claims"):
        cache.cached_batch("entail", "nli", ["c"], lambda b: b)
    assert plan.estimated == set()


def test_uncached_searches_are_k_distinct_passages_of_distinct_documents(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    planner(cache)
    retriever = CachedRetriever(PlannedRetriever({"kind": "bm25", "corpus": "x"}), cache)
    hits = retriever.search(["first query", "second"], 5, [{"d1"}, None])
    assert [len(h) for h in hits] == [5, 5]
    assert len({h.doc_id for h in hits[0]}) == 5 and all(isinstance(h, Hit) for h in hits[0])
    assert hits[0][0].passage_id != hits[1][0].passage_id  # pairs with them stay distinct per query
    with pytest.raises(RuntimeError, match="dry run"):
        PlannedRetriever({}).search(["q"], 1)


def test_a_cached_search_returns_what_the_index_returned(tmp_path: Path) -> None:
    searched: list[list[str]] = []

    class Index:
        identity: ClassVar[dict[str, str]] = {"kind": "bm25", "corpus": "y"}

        def search(self, queries: list[str], k: int, allowed: Any = None) -> list[list[Hit]]:
            searched.append(queries)
            return [[Hit(f"{q}#0", q, f"text of {q}", 1.5, 1)] for q in queries]

    cache = ModelCallCache(tmp_path / "c.sqlite")
    first = CachedRetriever(Index(), cache).search(["a", "b"], 3)
    again = CachedRetriever(Index(), cache).search(["b", "a"], 3)
    assert again == first[::-1] and searched == [["a", "b"]]


def test_a_pending_reply_is_not_retried_and_not_parsed() -> None:
    class PendingLLM:
        identity = "planned"
        calls = 0

        def generate(self, requests: Any, **_: Any) -> list[str]:
            self.calls += 1
            return [PENDING_REPLY] * len(requests)

    llm = PendingLLM()
    out = run_structured(llm, [[{"role": "user", "content": "hi"}]], int, max_retries=2)
    assert llm.calls == 1 and not out[0].ok and out[0].error == PENDING_ERROR and out[0].raw == []


def test_llm_requests_count_prompt_tokens_and_completion_at_most(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    plan = planner(cache)
    payload = {"messages": [{"role": "user", "content": "x" * 40}], "max_new_tokens": 64}
    with stage("aspects"):
        assert cache.cached_batch(NAMESPACE, "llm", [payload], lambda b: b) == [PENDING_REPLY]
    assert plan.tokens["aspects/llm.generate"] == [10, 64, 1]  # 40 characters / 4: an estimate
    assert not plan.count_tokens.exact


def test_placeholder_embeddings_have_the_size_of_cached_ones(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    cache.cached_batch("embed", "st", ["seen"], lambda b: [np.ones(7, dtype=np.float32)])
    planner(cache)
    out = cache.cached_batch("embed", "st", ["seen", "new"], lambda b: b)
    assert [np.asarray(v).shape for v in out] == [(7,), (7,)]


def test_money_counts_uncached_prompt_tokens_and_completion_at_most() -> None:
    rows = [
        StageRow(
            "t", "m", "icat", "aspects", NAMESPACE, 3, 1, prompt_tokens=2_000_000, completion_tokens=100_000
        ),
        StageRow("t", "m", "icat", "grounding", "entail", 10, 0),
    ]
    price_rows(rows, Price(prompt=0.5, completion=2.0))
    assert rows[0].cost == pytest.approx(1.0 + 0.2) and rows[1].cost is None
    # a price is not part of the recorded profile: it changes what a run costs, not its scores
    priced = load_profile().model_copy(
        update={"llm": load_profile().llm.model_copy(update={"price": Price(prompt=1, completion=1)})}
    )
    assert priced.resolved() == load_profile().resolved()


def test_only_stages_waiting_on_placeholders_are_listed_as_not_reached(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from benchmark.scoring.dry_run import _not_reached

    plan = planner(ModelCallCache(tmp_path / "c.sqlite"))
    with stage("rate"):
        plan.judges.cache.cached_batch(
            NAMESPACE, "llm", [{"messages": [{"role": "user", "content": "q"}]}], list
        )
    stages = {"reader": (), "rate": (), "verify": ("rate",), "explain": ("verify",), "gold": ()}
    job = SimpleNamespace(task=SimpleNamespace(id="t"), model=SimpleNamespace(label="m"))
    rows = _not_reached(job, "exam", stages, plan)  # type: ignore[arg-type]
    # verify waits on rate's pending replies, explain on verify; reader and gold simply do not apply
    assert [r.stage for r in rows] == ["verify", "explain"] and all(r.kind == "not reached" for r in rows)


def test_a_request_planned_once_is_cached_when_a_later_job_asks_it_again(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    plan = planner(cache)
    with stage("gold-articles"):
        cache.cached_batch("entail", "nli", ["article pair"], lambda b: b)
    plan.start_family()
    plan.new_batch()
    with stage("gold-articles"):  # the second job reads the same gold articles
        assert cache.cached_batch("entail", "nli", ["article pair", "other"], lambda b: b) == [1.0, 1.0]
    assert cache.stats.by_stage["gold-articles/entail"][:2] == [1, 2]  # 1 cached by then, 2 computed in all
    assert plan.estimated == set() and plan.guessed == {"gold-articles"}
