"""The int8 engine (CTranslate2) beside transformers, from one tiny checkpoint built here.

A random 2-layer Llama (SmolLM2's architecture) with a locally trained tokenizer is
converted to int8 and answers through both doors the engine has — lm-eval's registry
(``--model ctranslate2``, what ``groundcover-offline`` uses) and a profile's judge
(``llm.backend: ctranslate2``) — and transformers answers from the same folder.  Random
weights answer noise: these tests check that both engines run, that the converted copy is
built once per weights, and that the engine's calls are cached like every backend's.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchmark.answers.outputs import read_outputs
from benchmark.generation.harness import generate_outputs
from benchmark.models import int8_engine
from benchmark.models.backends import load_llm
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import LLMSpec
from benchmark.tasks import load_task
from tests.helpers import build_tiny_llama, build_tiny_task

pytestmark = pytest.mark.slow

QUERIES = [("q1", "What is a fox?"), ("q2", "Why ground answers?"), ("q3", "What is coverage?")]
CHATS = [[{"role": "user", "content": text}] for _, text in QUERIES]


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.mark.parametrize("model", ["ctranslate2", "hf"])
def test_both_engines_answer_from_one_checkpoint(
    tiny_llama: Path, model: str, tmp_path: Path, fresh_home: Path
) -> None:
    task = load_task(build_tiny_task(tmp_path / "tasks", QUERIES))
    out = generate_outputs(
        model,
        {"pretrained": str(tiny_llama)},
        task,
        tmp_path / "out.jsonl",
        batch_size=2,
        gen_kwargs="max_gen_toks=8,repetition_penalty=1.1",
        progress=False,
    )
    rows = read_outputs(out)
    assert [r.query_id for r in rows] == ["q1", "q2", "q3"]
    assert all(isinstance(r.answer, str) for r in rows) and any(r.answer for r in rows)
    assert rows[0].backend == model and rows[0].generation["chat_template"] is True
    assert rows[0].generation["repetition_penalty"] == 1.1


@pytest.mark.parametrize("backend", ["ctranslate2", "transformers"])
def test_both_engines_judge_and_a_second_judge_is_served_from_the_cache(
    tiny_llama: Path, backend: str, fresh_home: Path
) -> None:
    spec = LLMSpec(backend=backend, model=str(tiny_llama), max_new_tokens=8, batch_size=2)
    cache = ModelCallCache()
    replies = load_llm(spec, cache=cache).generate(CHATS)
    assert len(replies) == 3 and all(isinstance(r, str) for r in replies)
    again = load_llm(spec, cache=cache)
    assert again.generate(CHATS) == replies
    assert getattr(again, "_engine", None) is None and getattr(again, "_model", None) is None  # never loaded


def test_the_int8_engine_decodes_greedily_whatever_the_batch(tiny_llama: Path, fresh_home: Path) -> None:
    """A batch pads nothing away from a prompt: one by one and together, the same replies."""
    one = LLMSpec(backend="ctranslate2", model=str(tiny_llama), max_new_tokens=8, batch_size=1)
    three = one.model_copy(update={"batch_size": 3})
    off = ModelCallCache(enabled=False)
    assert load_llm(one, cache=off).generate(CHATS) == load_llm(three, cache=off).generate(CHATS)


def test_the_converted_copy_is_keyed_by_the_weights_not_their_folder(
    tiny_llama: Path, tmp_path: Path, fresh_home: Path
) -> None:
    first = int8_engine.convert(str(tiny_llama))
    moved = shutil.copytree(tiny_llama, tmp_path / "elsewhere")
    assert int8_engine.convert(str(moved)) == first  # the same bytes: converted once
    assert first.parent == fresh_home / "models" and (first / "model.bin").exists()
    assert int8_engine.converted_path(str(moved), quantization="float32") != first  # another copy per type


def test_an_unknown_generation_setting_is_refused_not_ignored(tiny_llama: Path, tmp_path: Path) -> None:
    task = load_task(build_tiny_task(tmp_path / "tasks", QUERIES))
    with pytest.raises(ValueError, match="top_k"):
        generate_outputs(
            "ctranslate2",
            {"pretrained": str(tiny_llama)},
            task,
            tmp_path / "o.jsonl",
            gen_kwargs="max_gen_toks=4,top_k=5",
            progress=False,
        )


def test_answers_depend_on_the_sub_batches_not_on_the_workers(tiny_llama: Path, fresh_home: Path) -> None:
    """The answers' engine runs sub-batches of similar length on single-threaded workers (one per
    core); the threads must not change an answer, which is what lets every machine print the
    published numbers.  Six prompts of unequal length, sub-batches of two."""
    folder = int8_engine.convert(str(tiny_llama))
    workers = int8_engine.generator(folder, workers=True)
    default = int8_engine.generator(folder)
    assert workers is not default and workers.generator.num_generators == (os.cpu_count() or 1)
    prompts = [("Tell me why " * n) + "foxes jump." for n in (1, 9, 2, 7, 3, 5)]
    kwargs = {"max_new_tokens": 12, "repetition_penalty": 1.1, "sub_batch": 2}
    assert workers.generate(prompts, **kwargs) == default.generate(prompts, **kwargs)
