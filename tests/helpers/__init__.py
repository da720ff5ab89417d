"""Test helpers: tiny models and tasks built locally, so tests need no model hub.

A random-weight GPT-2 with a locally trained byte-level BPE tokenizer loads through
the real transformers / lm-eval code paths in well under a second, which is what the
harness and server tests need: real model plumbing, not good answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import yaml

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Grounded answers cite passages that support every claim.",
    "Coverage asks whether an answer mentions every aspect of the topic.",
    "Write a comprehensive answer to the following question.",
    "Rivers, mountains and forests shape the climate of a region.",
] * 20


def _tiny_tokenizer(path: Path, chat_template: bool) -> Any:
    """A byte-level BPE tokenizer trained here on a few sentences (400 tokens), saved to ``path``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    path.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    fast.pad_token = fast.eos_token
    if chat_template:
        fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(path)
    return fast


def build_tiny_gpt2(path: Path, *, chat_template: bool = True, seed: int = 0, n_positions: int = 512) -> Path:
    """Save a 2-layer GPT-2 (random weights) and a locally trained tokenizer to ``path``.

    ``n_positions``: RAG prompts (a few 128-word passages) need thousands of positions
    under the tiny 400-token vocabulary.
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    fast = _tiny_tokenizer(path, chat_template)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=n_positions,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=fast.eos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(path)
    return path


def build_tiny_llama(path: Path, *, seed: int = 0) -> Path:
    """A 2-layer Llama (random weights; SmolLM2's architecture) with the tokenizer above, in
    ``path``: small enough to convert to int8 and decode in a second."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    fast = _tiny_tokenizer(path, chat_template=True)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=fast.eos_token_id,
        eos_token_id=fast.eos_token_id,
        tie_word_embeddings=True,
    )
    LlamaForCausalLM(config).save_pretrained(path)
    return path


def build_tiny_task(
    root: Path,
    queries: list[tuple[str, str]],
    *,
    task_id: str = "tiny",
    tables: dict[str, pd.DataFrame] | None = None,
    **card_fields: object,
) -> Path:
    """A task folder that :func:`benchmark.tasks.load_task` reads: a card, the queries, and
    any further ``tables`` (written as parquet); ``card_fields`` replace the card's."""
    folder = root / task_id
    (folder / "data").mkdir(parents=True, exist_ok=True)
    frames = {"queries": pd.DataFrame({"query_id": [q for q, _ in queries], "text": [t for _, t in queries]})}
    frames |= tables or {}
    for name, df in frames.items():
        df.to_parquet(folder / "data" / f"{name}.parquet", index=False)
    card = {
        "id": task_id,
        "version": "0.0.1",
        "name": "tiny test task",
        "description": "queries only, for generation tests",
        "source": {"name": "tests"},
        "license": "CC0-1.0",
        "citation": "none",
        "metrics": ["icat"],
        "instruction": "Answer the question in one sentence.",
        "data": {"kind": "local", "path": "data", "tables": {n: f"{n}.parquet" for n in frames}},
        "corpus": {"kind": "none"},
        **card_fields,
    }
    (folder / "task.yaml").write_text(yaml.safe_dump(card, sort_keys=False), encoding="utf-8")
    return folder
