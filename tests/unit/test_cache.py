"""The content-hash cache: hits, misses, batching, arrays, durability."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmark.models.cache import ModelCallCache, content_hash


def test_same_payload_same_key_and_order_independent_dicts() -> None:
    assert content_hash("ns", {"a": 1, "b": [1, 2]}) == content_hash("ns", {"b": [1, 2], "a": 1})
    assert content_hash("ns", {"a": 1}) != content_hash("ns", {"a": 2})


def test_cached_batch_computes_only_misses(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def compute(batch: list[str]) -> list[str]:
        calls.append(batch)
        return [x.upper() for x in batch]

    cache = ModelCallCache(tmp_path / "c.sqlite")
    assert cache.cached_batch("gen", "m", ["a", "b", "a"], compute) == ["A", "B", "A"]
    assert calls == [["a", "b"]]  # duplicate computed once
    assert cache.cached_batch("gen", "m", ["b", "c"], compute, batch_size=1) == ["B", "C"]
    assert calls[-1] == ["c"]
    assert cache.stats.misses == 3 and cache.stats.hits == 1
    # another model identity never shares entries
    cache.cached_batch("gen", "other-model", ["a"], compute)
    assert calls[-1] == ["a"]


def test_entries_persist_across_processes_and_arrays_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    first = ModelCallCache(path)
    vec = np.arange(6, dtype=np.float32).reshape(2, 3)
    first.cached_batch("embed", "m", ["x"], lambda b: [vec])
    first.close()
    second = ModelCallCache(path)
    out = second.cached_batch(
        "embed", "m", ["x"], lambda b: (_ for _ in ()).throw(AssertionError("recomputed"))
    )
    np.testing.assert_array_equal(out[0], vec)
    assert second.stats.misses == 0


def test_result_count_mismatch_is_an_error(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    try:
        cache.cached_batch("gen", "m", ["a", "b"], lambda b: ["only one"])
    except RuntimeError as exc:
        assert "2 inputs" in str(exc)
    else:
        raise AssertionError("expected RuntimeError")


def test_disabled_cache_always_computes(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite", enabled=False)
    n = []
    cache.cached_batch("gen", "m", ["a"], lambda b: n.append(1) or ["A"])
    cache.cached_batch("gen", "m", ["a"], lambda b: n.append(1) or ["A"])
    assert len(n) == 2


def test_time_in_model_calls_is_counted_once_where_one_model_calls_another(tmp_path: Path) -> None:
    import time

    cache = ModelCallCache(tmp_path / "c.sqlite")

    def inner(batch: list[str]) -> list[str]:
        time.sleep(0.05)
        return [x.upper() for x in batch]

    def outer(batch: list[str]) -> list[str]:
        time.sleep(0.05)
        return cache.cached_batch("llm", "m", [f"ask {x}" for x in batch], inner)

    cache.cached_batch("entail", "e", ["a", "b"], outer)
    seconds = dict(cache.stats.seconds)
    assert set(seconds) == {"entail"} and seconds["entail"] >= 0.1  # the LLM's time inside it
    assert cache.stats.as_dict()["by_namespace"]["llm"] == {"hits": 0, "misses": 2, "seconds": 0.0}
    # the inner calls are the outer model's work, counted apart from the stage's own requests
    assert set(cache.stats.by_stage) == {"(no stage)/entail", "(no stage):in-entail/llm"}
    cache.cached_batch("entail", "e", ["a", "b"], outer)  # all hits: no model call, no time
    assert cache.stats.seconds["entail"] == seconds["entail"]
