"""One interface to judge LLMs, three backends, strict structured output.

The scoring stack asks LLMs to extract claims, generate aspects, align claims to
aspects and (optionally) judge entailment.  It does so only through :class:`LLM`:
``generate`` takes a batch of chat conversations and returns one text per
conversation.  Backends:

* :class:`TransformersLLM` — any local causal LM (safetensors, or GGUF dequantised by
  transformers), batched greedy decoding on CPU or GPU;
* :class:`OpenAILLM` — any OpenAI-compatible HTTP server (vLLM's server, llama.cpp's
  server, hosted APIs) with a concurrency limit, timeouts and retries with backoff;
* :class:`VLLMLLM` — vLLM's offline engine, for GPU machines (a thin wrapper).

Every call goes through the content-hash cache, so a repeated evaluation makes no
calls.  :func:`run_structured` parses replies strictly, retries failures with a
repair turn, and returns :class:`Outcome` objects that keep the raw text of failures
so they can be counted and inspected — never silently scored as zero.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from benchmark import local_models, paths
from benchmark.cache import ModelCallCache, content_hash, default_cache
from benchmark.profiles import LLMSpec

log = logging.getLogger(__name__)
T = TypeVar("T")
Messages = list[dict[str, str]]

REPAIR_INSTRUCTION = "Your reply could not be used: {error}. Reply again, in exactly the requested format and nothing else."


class LLM(Protocol):
    identity: str

    def generate(
        self,
        requests: Sequence[Messages],
        *,
        max_new_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> list[str]: ...


class _CachedLLM:
    """Shared cache plumbing: subclasses implement ``_generate_uncached``."""

    spec: LLMSpec
    cache: ModelCallCache
    identity: str

    def generate(
        self,
        requests: Sequence[Messages],
        *,
        max_new_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> list[str]:
        params = {
            "max_new_tokens": max_new_tokens or self.spec.max_new_tokens,
            "temperature": self.spec.temperature if temperature is None else temperature,
            "seed": self.spec.seed if seed is None else seed,
        }
        payloads = [{"messages": list(m), **params} for m in requests]
        return self.cache.cached_batch(
            "llm.generate",
            self.identity,
            payloads,
            lambda batch: self._generate_uncached([p["messages"] for p in batch], **params),
            batch_size=max(1, self.spec.batch_size),
        )

    def sample(self, requests: Sequence[Messages], n: int, *, temperature: float = 0.7) -> list[list[str]]:
        """``n`` seeded samples per request, for self-consistency (seeds 0..n-1)."""
        per_seed = [self.generate(requests, temperature=temperature, seed=s) for s in range(n)]
        return [list(col) for col in zip(*per_seed, strict=True)]

    def _generate_uncached(self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int) -> list[str]:
        raise NotImplementedError


# ---------------------------------------------------------------------------------
# transformers
# ---------------------------------------------------------------------------------


class TransformersLLM(_CachedLLM):
    """Local causal LM through transformers; weights load on the first uncached call.

    GGUF files are dequantised by transformers, which is slow (tens of seconds for
    135M parameters), so the dequantised model is saved once under
    ``$GROUNDCOVER_HOME/models/`` and loaded from there afterwards.
    """

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache or default_cache()
        self.path, gguf = local_models.resolve(spec.model)
        self.gguf_file = spec.args.get("gguf_file", gguf)
        self.identity = "transformers:" + content_hash(
            local_models.hub_id(spec.model), spec.revision, self.gguf_file, {k: v for k, v in spec.args.items() if k != "device"}
        )[:16] + f":{local_models.hub_id(spec.model)}"
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, kwargs = self.path, {"revision": self.spec.revision}
        if self.gguf_file:
            materialised = paths.home() / "models" / content_hash(self.path, self.gguf_file)[:16]
            if (materialised / "config.json").exists():
                source, kwargs = str(materialised), {}
            else:
                kwargs = {"gguf_file": self.gguf_file}
        log.info("loading %s from %s", self.spec.model, source)
        tok = AutoTokenizer.from_pretrained(source, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(source, dtype=self.spec.args.get("dtype", "auto"), **kwargs)
        if self.gguf_file and source == self.path and all(p.is_floating_point() for p in model.parameters()):
            # The weights are plain floats once dequantised; drop the GGUF quantizer so
            # transformers will serialise them.  Write beside, then rename: a killed save
            # never leaves a half model behind.
            model.hf_quantizer = None
            if hasattr(model.config, "quantization_config"):
                del model.config.quantization_config
            tmp = materialised.with_name(materialised.name + f".tmp{os.getpid()}")
            model.save_pretrained(tmp)
            tok.save_pretrained(tmp)
            if not materialised.exists():
                tmp.replace(materialised)
        device = self.spec.args.get("device") or ("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device).eval()
        tok.padding_side = "left"
        if tok.pad_token is None:
            tok.pad_token = tok.eos_token
        self._model, self._tok = model, tok

    def _prompt(self, messages: Messages) -> str:
        if self._tok.chat_template:
            return self._tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\n\nassistant:"

    def _generate_uncached(self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int) -> list[str]:
        import torch

        with self._lock:
            self._load()
            prompts = [self._prompt(m) for m in requests]
            enc = self._tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(self._model.device)
            torch.manual_seed(seed)
            kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "pad_token_id": self._tok.pad_token_id}
            if temperature > 0:
                kwargs.update(do_sample=True, temperature=temperature)
            else:
                kwargs.update(do_sample=False)
            rep = self.spec.args.get("repetition_penalty")
            if rep:
                kwargs["repetition_penalty"] = float(rep)
            with torch.inference_mode():
                out = self._model.generate(**enc, **kwargs)
            new = out[:, enc["input_ids"].shape[1] :]
            return [t.strip() for t in self._tok.batch_decode(new, skip_special_tokens=True)]


# ---------------------------------------------------------------------------------
# OpenAI-compatible HTTP
# ---------------------------------------------------------------------------------


class OpenAILLM(_CachedLLM):
    """Any OpenAI-compatible chat-completions server.

    ``args``: ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``), ``api_key`` (default: the
    ``OPENAI_API_KEY`` environment variable, or ``EMPTY`` for local servers),
    ``max_concurrency`` (parallel requests), ``timeout`` (seconds per request),
    ``max_attempts`` (HTTP retries for timeouts, 429 and 5xx, with exponential backoff,
    jitter, and ``Retry-After`` honoured).
    """

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache or default_cache()
        args = spec.args
        self.base_url = str(args.get("base_url", "http://127.0.0.1:8000/v1")).rstrip("/")
        self.api_key = args.get("api_key") or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.max_concurrency = int(args.get("max_concurrency", 4))
        self.timeout = float(args.get("timeout", 120))
        self.max_attempts = int(args.get("max_attempts", 5))
        self.backoff = float(args.get("backoff", 1.0))
        self.identity = f"openai:{spec.model}@{spec.revision or 'served'}"
        self.http_failures: list[str] = []

    def _generate_uncached(self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int) -> list[str]:
        import httpx

        with (
            httpx.Client(timeout=self.timeout, headers={"Authorization": f"Bearer {self.api_key}"}) as client,
            concurrent.futures.ThreadPoolExecutor(self.max_concurrency) as pool,
        ):
            futures = [
                pool.submit(self._one, client, m, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
                for m in requests
            ]
            return [f.result() for f in futures]

    def _one(self, client: Any, messages: Messages, *, max_new_tokens: int, temperature: float, seed: int) -> str:
        import httpx

        body = {"model": self.spec.model, "messages": messages, "max_tokens": max_new_tokens, "temperature": temperature, "seed": seed}
        last = ""
        for attempt in range(1, self.max_attempts + 1):
            wait = self.backoff * 2 ** (attempt - 1) * (0.5 + random.random())
            try:
                resp = client.post(f"{self.base_url}/chat/completions", json=body)
            except httpx.TimeoutException:
                last = f"timeout after {self.timeout}s"
            except httpx.TransportError as exc:
                last = f"transport error: {exc}"
            else:
                if resp.status_code == 200:
                    try:
                        return str(resp.json()["choices"][0]["message"]["content"] or "")
                    except (ValueError, KeyError, IndexError, TypeError) as exc:
                        last = f"malformed response body: {exc}"
                elif resp.status_code == 429 or resp.status_code >= 500:
                    last = f"HTTP {resp.status_code}"
                    retry_after = resp.headers.get("retry-after")
                    if retry_after and retry_after.replace(".", "", 1).isdigit():
                        wait = max(wait, float(retry_after))
                else:
                    raise RuntimeError(f"{self.base_url}: HTTP {resp.status_code}: {resp.text[:300]}")
            log.warning("%s attempt %d/%d failed (%s); retrying in %.1fs", self.base_url, attempt, self.max_attempts, last, wait)
            if attempt < self.max_attempts:
                time.sleep(wait)
        self.http_failures.append(last)
        raise LLMUnavailable(f"{self.base_url}: gave up after {self.max_attempts} attempts ({last})")


class LLMUnavailable(RuntimeError):
    """The backend could not produce a reply at all (not a formatting problem)."""


# ---------------------------------------------------------------------------------
# vLLM offline engine
# ---------------------------------------------------------------------------------


class VLLMLLM(_CachedLLM):
    """vLLM's offline engine (GPU). A thin wrapper: vLLM does batching itself."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        try:
            import vllm  # noqa: F401
        except ImportError as exc:
            raise ImportError(
                "the vllm backend needs vLLM and a CUDA GPU (pip install 'groundcover[vllm]'); on other machines "
                "serve the model with `vllm serve` elsewhere and use `backend: openai` with its base_url"
            ) from exc
        self.spec = spec
        self.cache = cache or default_cache()
        self.identity = f"vllm:{spec.model}@{spec.revision or 'main'}"
        self._engine: Any = None

    def _generate_uncached(self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int) -> list[str]:
        from vllm import LLM as Engine
        from vllm import SamplingParams

        if self._engine is None:
            self._engine = Engine(model=self.spec.model, revision=self.spec.revision, seed=seed, **self.spec.args)
        params = SamplingParams(max_tokens=max_new_tokens, temperature=temperature, seed=seed)
        outs = self._engine.chat([list(m) for m in requests], params, use_tqdm=False)
        return [o.outputs[0].text.strip() for o in outs]


def load_llm(spec: LLMSpec, cache: ModelCallCache | None = None) -> LLM:
    backends: dict[str, Callable[..., LLM]] = {"transformers": TransformersLLM, "openai": OpenAILLM, "vllm": VLLMLLM}
    return backends[spec.backend](spec, cache=cache)


# ---------------------------------------------------------------------------------
# Structured output with repair retries
# ---------------------------------------------------------------------------------


@dataclass
class Outcome(Generic[T]):
    value: T | None
    ok: bool
    raw: list[str] = field(default_factory=list)
    error: str | None = None
    attempts: int = 0


def run_structured(
    llm: LLM,
    messages: Sequence[Messages],
    parse: Callable[[str], T] | Sequence[Callable[[str], T]],
    *,
    max_retries: int = 2,
    **gen_kw: Any,
) -> list[Outcome[T]]:
    """Generate, parse strictly, repair and retry; one :class:`Outcome` per request.

    ``parse`` raises ``ValueError`` on unusable output; it may be one function for all
    requests or one per request.  Every round is a single batched ``generate`` call.
    A backend that cannot answer at all (:class:`LLMUnavailable`) fails the items of
    that round with the error recorded.
    """
    parsers = list(parse) if isinstance(parse, Sequence) else [parse] * len(messages)
    if len(parsers) != len(messages):
        raise ValueError("one parser per request is needed")
    outcomes: list[Outcome[T]] = [Outcome(value=None, ok=False) for _ in messages]
    convo = [list(m) for m in messages]
    pending = list(range(len(messages)))
    for _ in range(max_retries + 1):
        if not pending:
            break
        try:
            replies = llm.generate([convo[i] for i in pending], **gen_kw)
        except LLMUnavailable as exc:
            for i in pending:
                outcomes[i].error = str(exc)
                outcomes[i].attempts += 1
            break
        still = []
        for i, reply in zip(pending, replies, strict=True):
            out = outcomes[i]
            out.raw.append(reply)
            out.attempts += 1
            try:
                out.value, out.ok, out.error = parsers[i](reply), True, None
            except ValueError as exc:
                out.error = str(exc)
                convo[i] = [*convo[i], {"role": "assistant", "content": reply}, {"role": "user", "content": REPAIR_INSTRUCTION.format(error=exc)}]
                still.append(i)
        pending = still
    return outcomes


def majority(values: Sequence[Any]) -> Any:
    """Most common value (ties: first seen) — self-consistency over samples."""
    counts: dict[Any, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=lambda v: counts[v]) if counts else None


def materialised_models() -> list[Path]:
    return sorted((paths.home() / "models").glob("*")) if (paths.home() / "models").exists() else []
