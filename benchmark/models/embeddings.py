"""Sentence embeddings (sentence-transformers) for dense retrieval and the offline entailment substitute.

Query-side embeddings (everything a similarity is compared with a threshold for) go through
the content-hash cache and are a function of the text alone, so a run split into shards takes
the same decisions.  Encoded the plain way they are not: padding and torch's thread count
change a vector's float rounding (all-MiniLM-L6-v2 on CPU: up to 1.3e-7 per component, in 83%
of 386 README sentences), which moves cosines in the 7th digit.  :func:`encode_invariant`
makes each vector bit for bit the one its text gets encoded alone on one thread
(``tests/integration/test_embedding_invariance.py``).  Corpus embeddings are stored with their
faiss index instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
            path, _ = local_models.resolve(model)
            log.info("loading sentence embedder %s", model)
            tokenizer = local_models.onnx_tokenizer(model)
            if tokenizer is not None:
                from benchmark.models.onnx_embedder import OnnxSentenceEncoder

                _MODELS[key] = OnnxSentenceEncoder(path, local_models.resolve(tokenizer)[0])
            else:
                from sentence_transformers import SentenceTransformer

                _MODELS[key] = SentenceTransformer(path, revision=revision, device=None)
        return _MODELS[key]


_INVARIANT_LOCK = threading.Lock()

#: MKL's sgemm sums a row of a float32 product in one of three orders, by the product's row
#: count: 1, 2–3, and 4 or more (torch 2.13, MKL 2024.2, AVX-512; 4 to 8,192 rows all alike).
#: An encoder's products have a row per token, so a text of fewer tokens is encoded alone.
ORDER_CHANGING_ROWS = 4


@contextmanager
def invariant_kernels(device: Any) -> Iterator[None]:
    """One caller at a time (torch's thread count is global) and, on CPU, one torch thread:
    a row of a product is then the same sum whatever rows are next to it, as long as the
    product keeps at least :data:`ORDER_CHANGING_ROWS` rows."""
    with _INVARIANT_LOCK:
        if not str(device).startswith("cpu"):
            yield
            return
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


def by_length(lengths: Sequence[int]) -> list[list[int]]:
    """Indices grouped by equal token length, shortest first: batches that need no padding."""
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(int(n), []).append(i)
    return [groups[n] for n in sorted(groups)]


def _encode(
    model: Any, texts: list[str], batch_size: int, normalize: bool, progress: bool = False
) -> np.ndarray:
    """sentence-transformers' own batched encoding, as float32 rows."""
    vecs = model.encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=normalize,
        convert_to_numpy=True,
        show_progress_bar=progress,
    )
    return np.asarray(vecs, dtype=np.float32)


def encode_invariant(model: Any, texts: Sequence[str], *, batch_size: int, normalize: bool) -> np.ndarray:
    """Each text's vector independent of its batch-mates and of the thread count: texts of one
    token length together (never padded), one torch thread on CPU (:func:`invariant_kernels`),
    a text of fewer than :data:`ORDER_CHANGING_ROWS` tokens alone (GPUs: not measured)."""
    texts = list(texts)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # renamed in sentence-transformers 6
    lengths = tokenize(texts)["attention_mask"].sum(dim=1).tolist()
    out: np.ndarray | None = None
    with invariant_kernels(model.device):
        groups = by_length(lengths)
        parts = [[i] for rows in groups for i in rows if lengths[i] < ORDER_CHANGING_ROWS] + [
            rows for rows in groups if lengths[rows[0]] >= ORDER_CHANGING_ROWS
        ]
        for rows in parts:
            vecs = _encode(model, [texts[i] for i in rows], batch_size, normalize)
            if out is None:
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[rows] = vecs
    assert out is not None
    return out


class EmbeddingStore:
    """The query-side vectors one run has computed, by embedder identity and text, so a text is
    encoded (or read from the cache) once whichever family asks first."""

    def __init__(self) -> None:
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._vectors)

    def known(self, identity: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those of ``texts`` already computed in this run."""
        with self._lock:
            found = {
                t: v for t in dict.fromkeys(texts) if (v := self._vectors.get((identity, t))) is not None
            }
            self.hits += len(found)
            self.misses += len(set(texts)) - len(found)
        return found

    def add(self, identity: str, texts: Sequence[str], vectors: Sequence[np.ndarray]) -> None:
        with self._lock:
            for t, v in zip(texts, vectors, strict=True):
                self._vectors[(identity, t)] = np.asarray(v, dtype=np.float32)


class Embedder:
    """Encodes queries and passages with one sentence-transformers model, loaded on first use.
    ``identity`` (the model's Hub id, so a packaged copy shares cache entries) keys the query
    cache and the faiss index folders; a corpus is encoded the plain way, once per index."""

    def __init__(
        self, spec: EmbedderSpec, cache: ModelCallCache | None = None, store: EmbeddingStore | None = None
    ) -> None:
        self.spec = spec
        self.cache = cache if cache is not None else default_cache()
        #: the run's shared query-side vectors (:class:`EmbeddingStore`); ``None``: none shared
        self.store = store
        self.model_id = local_models.hub_id(spec.model)
        parts: list[Any] = [
            self.model_id,
            spec.revision,
            spec.query_prefix,
            spec.passage_prefix,
            spec.normalize,
        ]
        runtime = ""
        if local_models.onnx_tokenizer(spec.model) is not None:  # other weights, other vectors
            runtime = ":onnx-int8" if "int8" in spec.model else ":onnx"
            parts.append(runtime)
        self.identity = f"st:{content_hash(*parts)[:16]}:{self.model_id}{runtime}"

    @property
    def model(self) -> Any:
        return load_sentence_transformer(self.spec.model, self.spec.revision)

    def _encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return encode_invariant(
            self.model, texts, batch_size=self.spec.batch_size, normalize=self.spec.normalize
        )

    def encode(
        self,
        texts: Sequence[str],
        kind: Literal["query", "passage"] = "query",
        *,
        progress: bool = False,
        cached: bool | None = None,
    ) -> np.ndarray:
        """Float32 rows (unit length when ``spec.normalize``); queries cached by default,
        passages not (a corpus's vectors live in its faiss index)."""
        prefix = self.spec.query_prefix if kind == "query" else self.spec.passage_prefix
        inputs = [prefix + t for t in texts]
        if not inputs:
            return np.zeros((0, self.dimension), dtype=np.float32)
        use_cache = cached if cached is not None else kind == "query"
        if kind == "passage" and not use_cache:
            return _encode(self.model, inputs, self.spec.batch_size, self.spec.normalize, progress)
        # a dry run's placeholders (cache.planner) are not vectors: they never enter the store
        store = self.store if kind == "query" and self.cache.planner is None else None
        found = store.known(self.identity, inputs) if store is not None else {}
        todo = [t for t in dict.fromkeys(inputs) if t not in found]
        if todo:
            if use_cache:
                rows = self.cache.cached_batch(
                    "embed",
                    self.identity,
                    todo,
                    lambda batch: list(self._encode_queries(batch)),
                    batch_size=self.spec.batch_size * 8,
                )
                vecs = [np.asarray(r, dtype=np.float32) for r in rows]
            else:
                vecs = list(self._encode_queries(todo))
            found.update(zip(todo, vecs, strict=True))
            if store is not None:
                store.add(self.identity, todo, vecs)
        return np.stack([found[t] for t in inputs])

    @property
    def dimension(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())
