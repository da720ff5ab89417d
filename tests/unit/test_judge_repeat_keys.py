"""Repeat r of a judgement (``--judge-repeats``) is its own draw and its own cache entry; repeat 0
is the call as it was, key for key, so existing caches and published results do not move."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmark.models.cache import REPEAT_SEED_STRIDE, ModelCallCache, judge_repeat, repeat_payload
from benchmark.models.llm import NAMESPACE, _CachedLLM, call_payload
from benchmark.models.profiles import LLMSpec


class SeededLLM(_CachedLLM):
    """Replies with the seed it was asked with, and counts what it was asked."""

    def __init__(self, cache: ModelCallCache) -> None:
        self.spec = LLMSpec(model="seeded", temperature=0.7, seed=5)
        self.cache = cache
        self.identity = "seeded"
        self.asked: list[int] = []

    def _generate_uncached(
        self, requests: list[Any], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[Any]:
        self.asked += [seed] * len(requests)
        return [f"seed {seed}" for _ in requests]


def test_each_repeat_draws_its_own_seed_and_cache_entry(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "cache.sqlite")
    llm = SeededLLM(cache)
    messages = [[{"role": "user", "content": "Is it supported?"}]]
    assert llm.generate(messages) == ["seed 5"]
    # repeat 0's key is the key without repeats
    params = {"max_new_tokens": llm.spec.max_new_tokens, "temperature": 0.7, "seed": 5}
    assert cache.get(ModelCallCache.key(NAMESPACE, "seeded", call_payload(messages[0], params))) == "seed 5"
    with judge_repeat(0):
        assert llm.generate(messages) == ["seed 5"]
    for r in (1, 2):
        with judge_repeat(r):
            assert llm.generate(messages) == [f"seed {5 + r * REPEAT_SEED_STRIDE}"]
    assert llm.asked == [5, 5 + REPEAT_SEED_STRIDE, 5 + 2 * REPEAT_SEED_STRIDE]
    with judge_repeat(2):  # cached per repeat: asked nothing
        llm.generate(messages)
    assert len(llm.asked) == 3


def test_the_repeat_enters_the_payload_from_repeat_one_on() -> None:
    assert repeat_payload({"a": 1}) == {"a": 1}
    with judge_repeat(3):
        assert repeat_payload({"a": 1}) == {"a": 1, "repeat": 3}
    with pytest.raises(ValueError), judge_repeat(-1):
        pass
