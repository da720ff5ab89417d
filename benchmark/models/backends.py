"""Which class serves a profile's ``llm.backend`` (apart from :mod:`benchmark.models.llm`,
whose HTTP client the batch backends extend: a registry there would import its own extension)."""

from __future__ import annotations

from collections.abc import Callable

from benchmark.models.batch_api import BatchLLM, VLLMRunBatch
from benchmark.models.cache import ModelCallCache
from benchmark.models.int8_engine import CTranslate2LLM
from benchmark.models.llm import LLM, VLLMLLM, OpenAILLM, TransformersLLM
from benchmark.models.profiles import LLMSpec

BACKENDS: dict[str, Callable[..., LLM]] = {
    "transformers": TransformersLLM,
    "ctranslate2": CTranslate2LLM,
    "openai": OpenAILLM,
    "openai-batch": BatchLLM,
    "vllm": VLLMLLM,
    "vllm-batch": VLLMRunBatch,
}


def load_llm(spec: LLMSpec, cache: ModelCallCache | None = None) -> LLM:
    """The judge LLM a profile names (weights load lazily, on the first uncached call)."""
    return BACKENDS[spec.backend](spec, cache=cache)
