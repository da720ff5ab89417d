"""One interface to judge LLMs (:class:`LLM`: a batch of conversations in, one text each out).

Backends: :class:`TransformersLLM` (local), :class:`OpenAILLM` (any OpenAI-compatible server),
:class:`VLLMLLM` (vLLM's offline engine), and those of :mod:`benchmark.models.batch_api` and
:mod:`benchmark.models.int8_engine`; :mod:`benchmark.models.backends` maps a profile's backend
name to its class.  Every call is cached by content hash (namespace ``llm.generate``, keyed by
the backend's ``identity``), and decoding is deterministic by default (temperature 0, fixed
seed) so a score does not change between two runs of one evaluation.
"""

from __future__ import annotations

import concurrent.futures
import email.utils
import logging
import os
import random
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from benchmark.core import paths
from benchmark.models import local_models
from benchmark.models.cache import (
    REPEAT_SEED_STRIDE,
    ModelCallCache,
    canonical_json,
    content_hash,
    current_repeat,
    default_cache,
    repeat_payload,
)
from benchmark.models.profiles import LLMSpec

log = logging.getLogger(__name__)
Messages = list[dict[str, str]]
NAMESPACE = "llm.generate"
#: what a dry run's planner answers for a request the cache cannot: no model would produce it
PENDING_REPLY = "\x00(reply not known before the run)\x00"


class LLM(Protocol):
    """What the scoring stack needs from a judge LLM.  ``identity`` names everything that
    changes outputs; it keys the cache and is recorded in results."""

    identity: str

    def generate(
        self,
        requests: Sequence[Messages],
        *,
        max_new_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> list[str]:
        """One reply per chat conversation, in order; ``None`` settings use the spec's."""
        ...


class LLMUnavailable(RuntimeError):
    """The backend could not produce a reply at all (not a formatting problem).  ``failed``:
    the positions of the requests that got none (``None``: all); the others are cached."""

    def __init__(
        self, message: str, *, failed: list[int] | None = None, failed_payloads: list[Any] | None = None
    ):
        super().__init__(message)
        self.failed = failed
        self.failed_payloads = failed_payloads


def call_payload(messages: Messages, params: dict[str, Any]) -> dict[str, Any]:
    """What one generation is cached by: the conversation and the generation settings."""
    return {"messages": list(messages), **params}


class _CachedLLM:
    """Shared cache plumbing: ``_generate_uncached`` may return an :class:`LLMUnavailable` in
    place of a reply; the answered ones are cached before the error is raised."""

    spec: LLMSpec
    cache: ModelCallCache
    identity: str

    def _params(
        self, max_new_tokens: int | None, temperature: float | None, seed: int | None
    ) -> dict[str, Any]:
        # repeat r of a judgement (--judge-repeats) draws with its own seed; repeat 0 is unchanged
        return {
            "max_new_tokens": max_new_tokens or self.spec.max_new_tokens,
            "temperature": self.spec.temperature if temperature is None else temperature,
            "seed": (self.spec.seed if seed is None else seed) + current_repeat() * REPEAT_SEED_STRIDE,
        }

    def generate(
        self,
        requests: Sequence[Messages],
        *,
        max_new_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> list[str]:
        """Cached, batched generation (``spec.batch_size`` conversations per model call)."""
        params = self._params(max_new_tokens, temperature, seed)
        payloads = [repeat_payload(call_payload(m, params)) for m in requests]
        try:
            return self.cache.cached_batch(
                NAMESPACE,
                self.identity,
                payloads,
                lambda batch: self._compute(batch, params),
                batch_size=max(1, self.spec.batch_size),
            )
        except LLMUnavailable as exc:
            if exc.failed_payloads is None:
                raise
            bad = {canonical_json(p) for p in exc.failed_payloads}
            failed = [i for i, p in enumerate(payloads) if canonical_json(p) in bad]
            raise LLMUnavailable(str(exc), failed=failed) from exc

    def _compute(self, batch: list[dict[str, Any]], params: dict[str, Any]) -> list[str]:
        replies = self._generate_uncached([p["messages"] for p in batch], **params)
        failed = [p for p, r in zip(batch, replies, strict=True) if isinstance(r, BaseException)]
        if not failed:
            return [str(r) for r in replies]
        for p, r in zip(batch, replies, strict=True):
            if isinstance(r, str):
                self._keep(p, r)
        first = next(r for r in replies if isinstance(r, BaseException))
        raise LLMUnavailable(
            f"{len(failed)}/{len(batch)} requests failed; first: {first}", failed_payloads=failed
        )

    def _keep(self, payload: dict[str, Any], reply: str) -> None:
        """Cache one reply under the key :meth:`generate` looks it up by, before the rest of
        its batch is back (a partly failed batch, a Batch API's output read line by line)."""
        self.cache.put(
            ModelCallCache.key(NAMESPACE, self.identity, payload),
            reply,
            namespace=NAMESPACE,
            model=self.identity,
        )

    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        raise NotImplementedError


class TransformersLLM(_CachedLLM):
    """Local causal LM through transformers, loaded on the first uncached call; a GGUF file's
    slow dequantisation is saved once under ``$GROUNDCOVER_HOME/models/``.  ``args``:
    ``gguf_file``, ``dtype``, ``device`` (default: CUDA if available), ``repetition_penalty``."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache or default_cache()
        self.path, self.gguf_file = local_models.resolve(spec.model, spec.args.gguf_file)
        self.identity = f"transformers:{local_identity(spec, self.gguf_file)}"
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, kwargs = self._source()
        log.info("loading %s from %s", self.spec.model, source)
        tok = AutoTokenizer.from_pretrained(source, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(source, dtype=self.spec.args.dtype or "auto", **kwargs)
        if self.gguf_file and source == self.path and all(p.is_floating_point() for p in model.parameters()):
            self._materialise(model, tok, _materialised_path(self.path, self.gguf_file))
        device = self.spec.args.device or ("cuda" if torch.cuda.is_available() else "cpu")
        model.to(device).eval()
        tok.padding_side = "left"
        if tok.pad_token is None:
            tok.pad_token = tok.eos_token
        self._model, self._tok = model, tok

    def _source(self) -> tuple[str, dict[str, Any]]:
        """Where the weights load from: the dequantised copy of a GGUF file once it exists."""
        materialised = _materialised_path(self.path, self.gguf_file)
        if not self.gguf_file:
            return self.path, {"revision": self.spec.revision}
        if (materialised / "config.json").exists():
            return str(materialised), {}
        return self.path, {"gguf_file": self.gguf_file}

    def tokenizer(self) -> Any:
        """The model's tokenizer alone, without its weights (what a dry run counts with)."""
        with self._lock:
            if self._tok is None:
                from transformers import AutoTokenizer

                source, kwargs = self._source()
                self._tok = AutoTokenizer.from_pretrained(source, **kwargs)
            return self._tok

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under this model's tokenizer (cost reports, e.g. benchmarks/)."""
        return len(self.tokenizer()(text, add_special_tokens=False)["input_ids"])

    @staticmethod
    def _materialise(model: Any, tok: Any, target: Path) -> None:
        """Save dequantised GGUF weights (its quantizer dropped, so transformers serialises
        them) beside, then renamed: a killed save never leaves half a model behind."""
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        try:
            tmp.replace(target)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)

    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        import torch

        with self._lock:
            self._load()
            prompts = [chat_prompt(self._tok, m) for m in requests]
            enc = self._tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
            enc = enc.to(self._model.device)
            torch.manual_seed(seed)
            kwargs: dict[str, Any] = {
                "max_new_tokens": max_new_tokens,
                "pad_token_id": self._tok.pad_token_id,
            }
            if temperature > 0:
                kwargs.update(do_sample=True, temperature=temperature)
            else:
                kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
            if rep := self.spec.args.repetition_penalty:
                kwargs["repetition_penalty"] = float(rep)
            with torch.inference_mode():
                out = self._model.generate(**enc, **kwargs)
            new = out[:, enc["input_ids"].shape[1] :]
            return [t.strip() for t in self._tok.batch_decode(new, skip_special_tokens=True)]


def local_model_folder(ref: str) -> str:
    """A folder transformers (and lm-eval's ``hf`` backend) can load without GGUF parsing:
    ``ref`` itself, or a packaged GGUF model dequantised once (:class:`TransformersLLM`'s copy)."""
    path, gguf = local_models.resolve(ref)
    if not gguf:
        return path
    target = _materialised_path(path, gguf)
    if not (target / "config.json").exists():
        from transformers import AutoModelForCausalLM, AutoTokenizer

        log.info("dequantising %s once into %s", ref, target)
        tok = AutoTokenizer.from_pretrained(path, gguf_file=gguf)
        model = AutoModelForCausalLM.from_pretrained(path, gguf_file=gguf, dtype="auto")
        TransformersLLM._materialise(model, tok, target)
    return str(target)


def _materialised_path(path: str, gguf_file: str | None) -> Path:
    return paths.home() / "models" / content_hash(path, gguf_file)[:16]


def local_identity(spec: LLMSpec, gguf_file: str | None) -> str:
    """``<hash of what changes a local model's outputs>:<hub id>`` (the device aside)."""
    hub = local_models.hub_id(spec.model)
    settings = {k: v for k, v in spec.args.as_dict().items() if k != "device"}
    return f"{content_hash(hub, spec.revision, gguf_file, settings)[:16]}:{hub}"


def render_plain(messages: Messages) -> str:
    """Transcript prompt for models without a chat template (and the completions endpoint)."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\n\nassistant:"


def chat_prompt(tokenizer: Any, messages: Messages) -> str:
    """The conversation as a local model is prompted: its chat template, else a transcript."""
    if tokenizer.chat_template:
        return str(tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False))
    return render_plain(messages)


class OpenAILLM(_CachedLLM):
    """Any OpenAI-compatible server: vLLM's ``vllm serve``, llama.cpp's server, hosted APIs.

    Plain ``httpx``, so the retry policy is ours: timeouts, transport errors, 429, 5xx and
    malformed bodies are retried with exponential backoff and jitter, honouring ``Retry-After``;
    401/403/404 raise at once; other 4xx fail that one item.  ``args``: ``base_url`` (a list is
    a *fleet* of one model: :class:`Fleet`), ``api_key`` (default: ``OPENAI_API_KEY``, else
    ``EMPTY``), ``endpoint`` (``chat`` or ``completions``), ``max_concurrency`` (per server),
    ``timeout``, ``max_attempts``, ``backoff``, ``max_backoff``.  The identity names the model,
    never a URL."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache or default_cache()
        args = spec.args
        urls = args.base_url if args.base_url is not None else "http://127.0.0.1:8000/v1"
        self.base_urls = [str(u).rstrip("/") for u in (urls if isinstance(urls, list | tuple) else [urls])]
        if not self.base_urls:
            raise ValueError("openai backend: base_url names no server")
        self.api_key = args.api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.endpoint = str(args.endpoint or "chat")
        if self.endpoint not in ("chat", "completions"):
            raise ValueError(
                f"openai backend: endpoint must be 'chat' or 'completions', not {self.endpoint!r}"
            )
        self.max_concurrency = int(args.max_concurrency or 4)
        self.timeout = float(args.timeout or 120)
        self.max_attempts = max(1, int(args.max_attempts or 5))
        self.backoff = float(args.backoff if args.backoff is not None else 1.0)
        self.max_backoff = float(args.max_backoff if args.max_backoff is not None else 60.0)
        #: what requests name: the server's own id (a path, where its name is derived from it)
        self.served = spec.served_as or spec.model
        suffix = "" if self.endpoint == "chat" else ":completions"
        self.identity = f"openai:{spec.model}@{spec.revision or 'served'}{suffix}"
        self.http_failures: list[str] = []  # every failed attempt, for the run's record
        self.requests_sent = 0
        self.fleet = Fleet(self.base_urls, self.max_concurrency)

    #: whether the preflight asks every server, with a live completion where it lists no models
    live_preflight = True

    def preflight(self, *, what: str = "the LLM", hint: str = "its base_url") -> None:
        """One request to every server (its ``/models`` listing must name the model) before
        any work (:func:`benchmark.models.preflight.check_servers`).  In a fleet, servers that
        are down are left out of this run while at least one is ready."""
        from benchmark.models import preflight

        if preflight.skipped():
            return
        urls = self.base_urls if self.live_preflight else self.base_urls[:1]
        ready = preflight.check_servers(
            urls,
            self.served,
            what=what,
            hint=hint,
            api_key=self.api_key,
            endpoint=self.endpoint,
            completion=self.live_preflight,
            timeout=min(self.timeout, preflight.PREFLIGHT_TIMEOUT),
        )
        if ready != urls:
            self.base_urls = ready
            self.fleet = Fleet(ready, self.max_concurrency)

    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"}
        with (
            httpx.Client(timeout=self.timeout, headers=headers) as client,
            concurrent.futures.ThreadPoolExecutor(self.max_concurrency * len(self.base_urls)) as pool,
        ):
            futures = [
                pool.submit(
                    self._one, client, m, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed
                )
                for m in requests
            ]
            # a reply, or the item's LLMUnavailable (any other error raises)
            return [e if isinstance(e := f.exception(), LLMUnavailable) else f.result() for f in futures]

    def _body(self, messages: Messages, max_new_tokens: int, temperature: float, seed: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.served,
            "max_tokens": max_new_tokens,
            "temperature": temperature,
            "seed": seed,
        }
        if self.endpoint == "chat":
            body["messages"] = messages
        else:
            body["prompt"] = render_plain(messages)
        return body

    def _text(self, data: Any) -> str:
        choice = data["choices"][0]
        text = choice["message"]["content"] if self.endpoint == "chat" else choice["text"]
        if not isinstance(text, str):
            raise TypeError(f"reply text is {type(text).__name__}, not a string")
        return text.strip()

    def _one(
        self, client: Any, messages: Messages, *, max_new_tokens: int, temperature: float, seed: int
    ) -> str:
        import httpx

        path = "chat/completions" if self.endpoint == "chat" else "completions"
        body = self._body(messages, max_new_tokens, temperature, seed)
        last, failed_at = "", set()
        for attempt in range(1, self.max_attempts + 1):
            wait = min(self.max_backoff, self.backoff * 2 ** (attempt - 1)) * (0.5 + random.random())
            self.requests_sent += 1
            server = self.fleet.acquire(avoid=failed_at)
            url = f"{server}/{path}"
            try:
                resp = client.post(url, json=body)
            except httpx.TimeoutException:
                last = f"timeout after {self.timeout}s"
            except httpx.TransportError as exc:
                last = f"transport error: {exc}"
            else:
                if resp.status_code == 200:
                    try:
                        return self._text(resp.json())
                    except (ValueError, KeyError, IndexError, TypeError) as exc:
                        last = f"malformed response body: {exc}"
                elif resp.status_code in (401, 403, 404):
                    raise RuntimeError(f"{url}: HTTP {resp.status_code}: {resp.text[:300]}")
                elif resp.status_code == 429 or resp.status_code >= 500:
                    last = f"HTTP {resp.status_code}"
                    if (retry_after := parse_retry_after(resp.headers.get("retry-after"))) is not None:
                        wait = min(self.max_backoff, max(wait, retry_after))
                else:
                    last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                    self.http_failures.append(last)
                    raise LLMUnavailable(f"{url}: {last}")
            finally:
                self.fleet.release(server)
            failed_at.add(server)
            if len(failed_at) == len(self.base_urls):
                failed_at.clear()  # every server failed once: any may be tried again
            self.http_failures.append(f"{server}: {last}" if len(self.base_urls) > 1 else last)
            if attempt < self.max_attempts:
                log.warning(
                    "%s attempt %d/%d failed (%s); retrying in %.1fs",
                    url,
                    attempt,
                    self.max_attempts,
                    last,
                    wait,
                )
                time.sleep(wait)
        raise LLMUnavailable(f"{url}: gave up after {self.max_attempts} attempts ({last})")


class Fleet:
    """Servers of one model, chosen per request by least outstanding requests, each taking at
    most ``per_server`` at a time; a retry moves on from the servers in ``avoid`` while it can."""

    def __init__(self, servers: Sequence[str], per_server: int) -> None:
        self.servers = list(servers)
        self.per_server = max(1, per_server)
        self.outstanding = dict.fromkeys(self.servers, 0)
        self.sent = dict.fromkeys(self.servers, 0)
        self._free = threading.Condition()

    def acquire(self, avoid: set[str] | frozenset[str] = frozenset()) -> str:
        with self._free:
            while True:
                room = [s for s in self.servers if self.outstanding[s] < self.per_server]
                preferred = [s for s in room if s not in avoid] or room
                if preferred:
                    server = min(preferred, key=lambda s: (self.outstanding[s], self.sent[s]))
                    self.outstanding[server] += 1
                    self.sent[server] += 1
                    return server
                self._free.wait()

    def release(self, server: str) -> None:
        with self._free:
            self.outstanding[server] -= 1
            self._free.notify()


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class VLLMLLM(_CachedLLM):
    """vLLM's offline engine (GPU); ``args`` go to ``vllm.LLM`` unchanged."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        try:
            import vllm  # noqa: F401
        except ImportError as exc:
            raise ImportError(
                "the vllm judge backend needs vLLM, which is not installed, and a CUDA GPU "
                "(pip install 'groundcover[vllm]'); on other machines serve the model with "
                "`vllm serve` and use `backend: openai` with its base_url"
            ) from exc
        self.spec = spec
        self.cache = cache or default_cache()
        settings = {
            k: v
            for k, v in spec.args.as_dict().items()
            if k not in ("gpu_memory_utilization", "tensor_parallel_size")
        }
        self.identity = f"vllm:{content_hash(settings)[:8]}:{spec.model}@{spec.revision or 'main'}"
        self._engine: Any = None

    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        from vllm import LLM as Engine
        from vllm import SamplingParams

        if self._engine is None:
            self._engine = Engine(
                model=self.spec.model, revision=self.spec.revision, seed=seed, **self.spec.args.as_dict()
            )
        params = SamplingParams(max_tokens=max_new_tokens, temperature=temperature, seed=seed)
        outs = self._engine.chat([list(m) for m in requests], params, use_tqdm=False)
        return [o.outputs[0].text.strip() for o in outs]
