"""Planning and running answer generation: which settings, which queries, one backend.

``benchmark evaluate`` parses flags into a :class:`Request` and calls :func:`generate`;
the settings (closed-book, RAG, RAArg, sub-question-augmented RAG) expand here, so the
command line holds no generation logic.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core.errors import usage_error
from benchmark.core.results import RAGSetting
from benchmark.generation.model_args import default_batch_size
from benchmark.generation.rag import RAGContext
from benchmark.tasks import Task

Settings = list[RAGSetting | None]


def raarg_settings(settings: Settings, rerank: str, depth: int) -> Settings:
    """``--rerank`` turns every retrieval setting into RAArg (whole documents, reranked, the
    argument prompt); it needs one."""
    from benchmark.generation.raarg import ARGUMENT_PROMPT

    if all(s is None for s in settings):
        raise usage_error("--rerank needs a retrieval setting, e.g. --rag bm25", "--rerank")
    if not 1 <= depth <= 100:
        raise usage_error("must be between 1 and 100", "--rerank-depth")
    return [
        s if s is None else s.model_copy(update={"rerank": rerank, "depth": depth, "prompt": ARGUMENT_PROMPT})
        for s in settings
    ]


def sub_question_settings(settings: Settings, value: str) -> Settings:
    """``--rag-subq none,all`` -> each retrieval setting once plain and once per mode."""
    from benchmark.generation.rag import SUBQ_PROMPT

    modes = [m.strip() for m in value.split(",") if m.strip()]
    bad = [m for m in modes if m not in ("none", "retrieval", "rerank", "prompt", "all")]
    if bad or not modes:
        raise usage_error(f"use none, retrieval, rerank, prompt or all, not {bad or value!r}", "--rag-subq")
    if all(s is None for s in settings):
        raise usage_error("--rag-subq needs a retrieval setting, e.g. --rag bm25", "--rag-subq")
    out = [s for s in settings if s is None]
    for s in (s for s in settings if s is not None):
        for m in modes:
            prompt = SUBQ_PROMPT if m in ("prompt", "all") else s.prompt
            out.append(s if m == "none" else s.model_copy(update={"sub_questions": m, "prompt": prompt}))
    return out


def expand_settings(rag: str, k: int, rerank: str | None, depth: int, sub_questions: str | None) -> Settings:
    """``--rag none,bm25`` (+ ``--rerank``, + ``--rag-subq``) -> the runs, in order."""
    from benchmark.generation.rag import parse_settings

    settings: Settings = parse_settings(rag, k)
    if rerank:
        settings = raarg_settings(settings, rerank, depth)
    if sub_questions:
        settings = sub_question_settings(settings, sub_questions)
    return settings


def check_limit(limit: float | None) -> None:
    """``--limit`` as lm_eval takes it: a count of at least 1, or a fraction above 0."""
    if limit is not None and not limit > 0:
        raise usage_error("must be a count of at least 1, or a fraction above 0", "--limit")
    if limit is not None and limit >= 1 and not float(limit).is_integer():
        raise usage_error("a count must be a whole number", "--limit")


def limited(query_ids: list[str], limit: float | None) -> list[str]:
    """The first ``limit`` queries, or that fraction of them (rounded up)."""
    if limit is None:
        return query_ids
    return query_ids[: math.ceil(len(query_ids) * limit) if limit < 1 else int(limit)]


@dataclass
class Request:
    """The model under evaluation and how to run it, as ``benchmark evaluate`` was asked."""

    model: str
    model_args: str | dict[str, Any]
    output_dir: Path
    #: ``None``: the model's default (:func:`benchmark.generation.model_args.default_batch_size`)
    batch_size: str | int | None = None
    gen_kwargs: str | dict[str, Any] | None = None
    #: prompt through the model's chat template where it has one (``--apply-chat-template``)
    apply_chat_template: bool = True
    corpus: str | None = None
    lucene_index: str | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        if self.batch_size is None:
            self.batch_size = default_batch_size(self.model)


@dataclass
class Run:
    """One generated outputs file: the task, its setting's context (``None``: closed-book)."""

    task: Task
    path: Path
    context: RAGContext | None


def generate(
    request: Request, tasks: Sequence[Task], settings: Settings, queries: dict[str, list[str]], profile: Any
) -> Iterator[Run]:
    """Answer each task's ``queries`` under every setting, one outputs file per (task, setting);
    one backend, loaded on first use, serves RAArg's reranking and the writing of every task."""
    from benchmark.generation import harness, rag
    from benchmark.generation.model_args import check_endpoint, check_request
    from benchmark.generation.raarg import BackendLLM

    margs, _ = check_request(request.model, request.model_args, request.gen_kwargs)
    check_endpoint(request.model, margs)  # a server that is down: one line now, before any retrieval
    backend = (
        harness.make_backend(
            request.model, margs, request.batch_size, apply_chat_template=request.apply_chat_template
        )
        if any(s is not None and s.rerank for s in settings)
        else None
    )
    for task in tasks:
        for setting in settings:
            context = (
                None
                if setting is None
                else rag.prepare(
                    task,
                    setting,
                    queries[task.id],
                    profile=profile,
                    corpus=request.corpus,
                    lucene_index=request.lucene_index,
                    progress=request.progress,
                    rerank_llm=BackendLLM(backend) if setting.rerank else None,
                )
            )
            out = harness.generate_outputs(
                request.model,
                request.model_args,
                task,
                request.output_dir,
                batch_size=request.batch_size,
                gen_kwargs=request.gen_kwargs,
                query_ids=queries[task.id],
                progress=request.progress,
                rag=context,
                apply_chat_template=request.apply_chat_template,
                backend=backend,
            )
            yield Run(task, out, context)
