"""Structured output with repair retries, and the cache in front of every LLM call."""

from __future__ import annotations

from pathlib import Path

from benchmark.models.cache import ModelCallCache
from benchmark.models.llm import LLMUnavailable, _CachedLLM, parse_retry_after
from benchmark.models.profiles import LLMSpec
from benchmark.models.structured import Outcome, majority, mean, run_structured, sample_structured


def parse_int(text: str) -> int:
    if not text.strip().isdigit():
        raise ValueError("reply with a number")
    return int(text)


class Scripted:
    identity = "scripted"

    def __init__(self, rounds: list[list[str]]) -> None:
        self.rounds = rounds
        self.seen: list[list[list[dict[str, str]]]] = []

    def generate(self, requests, **kw):  # type: ignore[no-untyped-def]
        self.seen.append([list(r) for r in requests])
        return self.rounds.pop(0)


def test_success_repair_and_failure_keep_raw_text() -> None:
    llm = Scripted([["1", "two", "x"], ["2", "still no"], ["nope"]])
    outs = run_structured(
        llm, [[{"role": "user", "content": q}] for q in ("a", "b", "c")], parse_int, max_retries=2
    )
    assert [o.ok for o in outs] == [True, True, False]
    assert outs[1].value == 2 and outs[1].attempts == 2
    assert (
        outs[2].value is None
        and outs[2].raw == ["x", "still no", "nope"]
        and "number" in (outs[2].error or "")
    )
    # the repair turn carries the bad reply and the parse error
    retry = llm.seen[1][0]
    assert (
        retry[-2] == {"role": "assistant", "content": "two"} and "reply with a number" in retry[-1]["content"]
    )
    assert [len(r) for r in llm.seen] == [3, 2, 1]  # one batched call per round


def test_per_item_parsers() -> None:
    llm = Scripted([["5", "5"]])
    outs = run_structured(
        llm, [[{"role": "user", "content": "a"}]] * 2, [parse_int, lambda t: t + "!"], max_retries=0
    )
    assert [o.value for o in outs] == [5, "5!"]


def test_backend_unavailable_is_a_failure() -> None:
    class Down:
        identity = "down"

        def generate(self, requests, **kw):  # type: ignore[no-untyped-def]
            raise LLMUnavailable("server gave up")

    (out,) = run_structured(Down(), [[{"role": "user", "content": "a"}]], parse_int)
    assert not out.ok and "gave up" in (out.error or "")


class Counting(_CachedLLM):
    def __init__(self, cache: ModelCallCache) -> None:
        self.spec = LLMSpec(model="counting", batch_size=2)
        self.cache = cache
        self.identity = "counting"
        self.batches: list[int] = []

    def _generate_uncached(self, requests, *, max_new_tokens, temperature, seed):  # type: ignore[no-untyped-def]
        self.batches.append(len(requests))
        return [f"reply {r[-1]['content']} t={temperature}" for r in requests]


def test_cache_means_second_run_makes_no_calls(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    llm = Counting(cache)
    reqs = [[{"role": "user", "content": str(i)}] for i in range(5)]
    first = llm.generate(reqs)
    assert llm.batches == [2, 2, 1]  # batched with the spec's batch size
    again = Counting(ModelCallCache(tmp_path / "c.sqlite"))
    assert again.generate(reqs) == first and again.batches == []
    assert again.cache.stats.misses == 0 and again.cache.stats.hits == 5
    assert again.cache.stats.by_namespace["llm.generate"] == [5, 0]
    assert llm.generate(reqs, temperature=0.5) != first  # settings are part of the key


def test_majority_and_mean_over_values_and_outcomes() -> None:
    assert majority(["a", "b", "a"]) == "a" and majority([]) is None
    outs = [Outcome(value=1, ok=True), Outcome(value=None, ok=False), Outcome(value=3, ok=True)]
    assert mean(outs) == 2.0 and majority(outs) == 1 and mean([Outcome(value=None, ok=False)]) is None


class PartlyDown(_CachedLLM):
    """Answers every request except those whose text contains "bad"."""

    def __init__(self, cache: ModelCallCache) -> None:
        self.spec = LLMSpec(model="partly", batch_size=8)
        self.cache = cache
        self.identity = "partly"
        self.calls = 0

    def _generate_uncached(self, requests, *, max_new_tokens, temperature, seed):  # type: ignore[no-untyped-def]
        self.calls += 1
        return [LLMUnavailable("HTTP 400") if "bad" in r[-1]["content"] else "7" for r in requests]


def test_one_unanswerable_item_does_not_sink_the_batch(tmp_path: Path) -> None:
    llm = PartlyDown(ModelCallCache(tmp_path / "c.sqlite"))
    msgs = [[{"role": "user", "content": c}] for c in ("ok1", "bad", "ok2")]
    outs = run_structured(llm, msgs, parse_int)
    assert [o.ok for o in outs] == [True, False, True] and "HTTP 400" in (outs[1].error or "")
    assert outs[1].raw == [] and outs[1].attempts == 1
    # the answered items were cached when the batch failed, so the second call was free
    assert llm.calls == 1 and llm.cache.count("llm.generate") == 2


def test_sample_structured_uses_one_seed_per_sample(tmp_path: Path) -> None:
    llm = Counting(ModelCallCache(tmp_path / "c.sqlite"))
    outs = sample_structured(llm, [[{"role": "user", "content": "q"}]], lambda t: t, 3, temperature=0.5)
    assert len(outs) == 1 and len(outs[0]) == 3 and all(o.ok for o in outs[0])
    assert llm.cache.count("llm.generate") == 3  # seeds 0, 1, 2 are separate entries


def test_retry_after_header() -> None:
    assert parse_retry_after("2") == 2.0 and parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0 and parse_retry_after("soon") is None
