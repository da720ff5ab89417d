"""The run's shared embedding store: a text is encoded once per run, whichever family asks,
and what the store hands back is exactly what encoding it would give."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmark.models import embeddings
from benchmark.models.cache import ModelCallCache
from benchmark.models.embeddings import Embedder, EmbeddingStore
from benchmark.models.profiles import EmbedderSpec

torch = pytest.importorskip("torch")


class CountingModel:
    """A deterministic stand-in for a sentence-transformers model that counts the texts it encodes."""

    device = "cpu"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def tokenize(self, texts: list[str]) -> dict[str, Any]:
        n = max(len(t.split()) for t in texts)
        return {
            "attention_mask": torch.tensor([[1] * len(t.split()) + [0] * (n - len(t.split())) for t in texts])
        }

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        self.encoded.extend(texts)
        rows = [np.random.default_rng(sum(map(ord, t))).standard_normal(8) for t in texts]
        return np.stack([r / np.linalg.norm(r) for r in rows]).astype(np.float32)

    def get_sentence_embedding_dimension(self) -> int:
        return 8


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> CountingModel:
    fake = CountingModel()
    monkeypatch.setitem(embeddings._MODELS, ("counting-model", None), fake)
    return fake


SPEC = EmbedderSpec(model="counting-model", batch_size=4)
TEXTS = ["one two three", "four five", "one two three", "six"]


def test_two_families_sharing_a_store_encode_each_text_once(model: CountingModel, tmp_path: Path) -> None:
    store = EmbeddingStore()
    cache = ModelCallCache(enabled=False)  # no cache at all: only the store can spare the model
    first = Embedder(SPEC, cache, store).encode(TEXTS)
    second = Embedder(SPEC, cache, store).encode([*TEXTS[::-1], "seven eight"])
    assert sorted(model.encoded) == sorted({*TEXTS, "seven eight"})
    assert np.array_equal(second[:4][::-1], first)
    assert (store.hits, store.misses, len(store)) == (3, 4, 4)
    # without the store, the second family encodes everything again: the same vectors
    again = Embedder(SPEC, cache).encode(TEXTS)
    assert np.array_equal(again, first) and len(model.encoded) == 4 + 3


def test_the_store_keeps_embedders_of_other_identities_apart(model: CountingModel) -> None:
    store = EmbeddingStore()
    cache = ModelCallCache(enabled=False)
    Embedder(SPEC, cache, store).encode(["a text"])
    Embedder(SPEC.model_copy(update={"query_prefix": "query: "}), cache, store).encode(["a text"])
    assert model.encoded == ["a text", "query: a text"] and len(store) == 2


def test_a_dry_runs_placeholders_never_enter_the_store(model: CountingModel, tmp_path: Path) -> None:
    class Planner:
        def seen(self, namespace: str) -> None: ...

        def recall(self, keys: list[str]) -> dict[str, Any]:
            return {}

        def missed(self, namespace: str, model: str, requests: dict[str, Any]) -> dict[str, Any]:
            return {k: np.zeros(8, dtype=np.float32) for k in requests}

    cache = ModelCallCache(tmp_path / "c.sqlite")
    cache.planner = Planner()
    store = EmbeddingStore()
    Embedder(SPEC, cache, store).encode(TEXTS)
    assert len(store) == 0 and model.encoded == []
