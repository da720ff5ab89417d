"""The backends that turn conversations into answers: lm-eval's model registry driven with
``generate_until`` requests, or, where lm-eval's API extras are missing, groundcover's own
OpenAI-compatible client with the same ``--model-args``; answers cached by content hash.

``apply_chat_template`` is what was asked (``--apply-chat-template``); ``chat_template_applied``
what happened, recorded in every outputs row as ``generation.chat_template``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from benchmark.core.errors import usage_error
from benchmark.generation.model_args import (
    INT8_MODEL,
    OFFLINE_MODEL,
    OFFLINE_PACKAGE,
    api_root,
    missing_backend,
    public_args,
    register_models,
)
from benchmark.generation.prompting import Messages
from benchmark.models.cache import content_hash, default_cache

log = logging.getLogger(__name__)

AUTO_CHUNK = 16  # queries per checkpoint when lm-eval picks the batch size itself


def outside_event_loop(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, in a worker thread when this thread runs an event loop (a
    notebook's): lm-eval's API models call ``asyncio.run``, which refuses to start inside one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return fn(*args, **kwargs)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args, **kwargs).result()


class Backend(Protocol):
    """One way of turning conversations into answers."""

    name: str  # recorded in outputs
    chunk: int  # queries per generate call (and per checkpoint)
    #: whether the model's chat template was applied (recorded as ``generation.chat_template``)
    chat_template_applied: bool

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]: ...


def make_backend(
    model: str, margs: dict[str, Any], batch_size: str | int, *, apply_chat_template: bool = True
) -> Backend:
    """The backend for ``--model``: lm-eval's registry, or our client where lm-eval can't."""
    if model == OFFLINE_MODEL:
        from benchmark.models.int8_engine import engine_version

        return LMEvalBackend(
            INT8_MODEL,
            {"pretrained": OFFLINE_PACKAGE},
            batch_size,
            name=f"{INT8_MODEL} {engine_version()} int8 ({OFFLINE_MODEL})",
            apply_chat_template=apply_chat_template,
        )
    if model in ("local-chat-completions", "local-completions") and not _lm_eval_api_available():
        log.warning(
            "lm-eval's API backends need `pip install 'lm-eval[api]'` (tenacity); "
            "using groundcover's OpenAI-compatible client with the same --model-args"
        )
        return OpenAIBackend(model, margs, batch_size)
    return LMEvalBackend(model, margs, batch_size, apply_chat_template=apply_chat_template)


def _lm_eval_api_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("tenacity", "aiohttp", "requests"))


def _chunk(batch_size: str | int) -> int:
    return int(batch_size) if str(batch_size).isdigit() and int(batch_size) > 0 else AUTO_CHUNK


class LMEvalBackend:
    """A model from lm-eval's registry, driven with ``generate_until`` requests; answers are
    cached by content hash, secrets in ``--model-args`` kept out of the key."""

    def __init__(
        self,
        model: str,
        margs: dict[str, Any],
        batch_size: str | int,
        *,
        name: str | None = None,
        apply_chat_template: bool = True,
    ):
        self.model, self.margs = model, margs
        self.name = name or model
        self.batch_size = batch_size
        self.chunk = _chunk(batch_size)
        self.apply_chat_template = apply_chat_template
        # a name of its own (the offline default's names its engine build) is part of who answers
        who = (public_args(margs), apply_chat_template) + ((name,) if name else ())
        self.identity = f"lm-eval:{model}:{content_hash(*who)[:16]}"
        self.chat_template_applied = False
        self._lm: Any = None

    def _load(self) -> Any:
        if self._lm is None:
            from lm_eval.api.registry import get_model

            register_models()
            extra: dict[str, Any] = {"batch_size": self.batch_size}
            if self.model == "hf" and "device" not in self.margs:
                import torch

                # lm-eval's hf default is "cuda", which fails on CPU-only torch builds
                extra["device"] = "cuda" if torch.cuda.is_available() else "cpu"
            try:
                self._lm = get_model(self.model).create_from_arg_obj(dict(self.margs), extra)
            except TypeError as exc:  # an argument the backend does not take
                raise usage_error(
                    f"the {self.model} backend refused its arguments: {exc}", "--model-args"
                ) from exc
            except OSError as exc:  # a Hub id that cannot be reached offline, a broken folder
                raise usage_error(
                    f"{self.model} could not load {self.margs.get('pretrained', 'the model')}: "
                    f"{str(exc).splitlines()[0][:300]}",
                    "--model-args pretrained",
                ) from exc
            except ModuleNotFoundError as exc:
                raise missing_backend(self.model, exc) from exc
        return self._lm

    def _context(self, conversation: Messages) -> Any:
        """Chat-templated prompt when asked for and the model has a template, else the plain text."""
        ctx = None
        if self.apply_chat_template:
            try:
                ctx = self._lm.apply_chat_template(conversation, add_generation_prompt=True)
            except (AttributeError, ValueError, TypeError, NotImplementedError) as exc:
                log.debug("no chat template (%s); using the plain prompt", exc)
        self.chat_template_applied = ctx is not None
        return "\n\n".join(m["content"] for m in conversation) + "\n\n" if ctx is None else ctx

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]:
        from lm_eval.api.instance import Instance

        lm = self._load()
        contexts = [self._context(c) for c in conversations]
        gen = {**gen_kwargs, "until": list(gen_kwargs.get("until") or [])}
        payloads = [
            {"context": str(ctx), "gen": gen, "chat_template": self.chat_template_applied} for ctx in contexts
        ]
        by_text = {str(ctx): ctx for ctx in contexts}

        def compute(batch: list[dict[str, Any]]) -> list[str]:
            reqs = [
                Instance(
                    request_type="generate_until", doc={}, arguments=(by_text[p["context"]], dict(gen)), idx=i
                )
                for i, p in enumerate(batch)
            ]
            return [str(x).strip() for x in outside_event_loop(lm.generate_until, reqs, disable_tqdm=True)]

        return [
            str(x) for x in default_cache().cached_batch("harness.generate", self.identity, payloads, compute)
        ]


class OpenAIBackend:
    """``local-(chat-)completions`` through :class:`benchmark.models.llm.OpenAILLM`, taking
    lm-eval's ``--model-args`` names, so a command line works without lm-eval's API extras."""

    def __init__(self, model: str, margs: dict[str, Any], batch_size: str | int) -> None:
        from benchmark.models.llm import OpenAILLM
        from benchmark.models.profiles import LLMSpec

        chat = model == "local-chat-completions"
        args = {
            "base_url": api_root(margs)[1],
            "endpoint": "chat" if chat else "completions",
            "max_concurrency": int(margs.get("num_concurrent", 4)),
            "max_attempts": int(margs.get("max_retries", 3)) + 1,
            "timeout": float(margs.get("timeout", 300)),
        }
        if "api_key" in margs:
            args["api_key"] = margs["api_key"]
        self.spec = LLMSpec(
            backend="openai",
            model=str(margs.get("model") or margs.get("pretrained") or "default"),
            revision=str(margs["revision"]) if "revision" in margs else None,
            args=args,
            batch_size=max(_chunk(batch_size), args["max_concurrency"]),
        )
        self.llm = OpenAILLM(self.spec, cache=default_cache())
        self.name = f"{model} (groundcover client)"
        self.chunk = self.spec.batch_size
        self.chat_template_applied = chat  # the server applies the model's template to chat requests

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]:
        return self.llm.generate(
            conversations,
            max_new_tokens=int(gen_kwargs.get("max_gen_toks", 256)),
            temperature=float(gen_kwargs.get("temperature", 0.0)),
            seed=int(gen_kwargs.get("seed", 0)),
        )
