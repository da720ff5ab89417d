"""``benchmark.evaluate``: generate answers with a model, then score them, as ``benchmark
evaluate`` does; everything scoring needs is checked before a single answer is generated.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmark.answers import read_answers
from benchmark.api.answers import answer_jobs, resolve_task
from benchmark.api.checks import check_corpus, check_outputs, scorable_queries
from benchmark.api.config import ScoringConfig
from benchmark.api.keywords import flag_problems, signature, task_problem
from benchmark.api.results import Results
from benchmark.api.run import FamilySettingsArg, plan_jobs, prepare_tasks, score_jobs, with_families
from benchmark.api.score import checked_call
from benchmark.core.errors import InputError, Problem
from benchmark.core.paths import check_writable
from benchmark.generation import plan as generation
from benchmark.generation.model_args import (
    DEFAULT_BATCH_SIZE,
    LM_EVAL_BACKENDS,
    OFFLINE_BATCH_SIZE,
    OFFLINE_MODEL,
    check_batch_size,
    check_request,
)
from benchmark.generation.plan import Request
from benchmark.models.profiles import JudgeProfile
from benchmark.scoring.dry_run import CHARS_PER_TOKEN, DryRun
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions
from benchmark.scoring.run import Job
from benchmark.tasks import Task

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "LM_EVAL_BACKENDS",
    "OFFLINE_BATCH_SIZE",
    "OFFLINE_MODEL",
    "EvaluationPlan",
    "Request",
    "Sweep",
    "check_batch_size",
    "evaluate",
    "plan_evaluation",
]


@dataclass(frozen=True)
class Sweep:
    """Which settings each task is answered under (``--rag none,bm25`` and friends)."""

    rag: str = "none"
    rag_k: int = 5
    rerank: str | None = None
    rerank_depth: int = 20
    rag_subq: str | None = None
    limit: float | None = None

    def settings(self) -> generation.Settings:
        generation.check_limit(self.limit)
        return generation.expand_settings(self.rag, self.rag_k, self.rerank, self.rerank_depth, self.rag_subq)


@dataclass
class GenerationLine:
    """One (task, setting) of a dry run: the answers still to generate and those on disk."""

    task: str
    setting: str
    to_generate: int
    already: int
    path: Path
    #: closed-book: the prompts' tokens, estimated from characters; RAG: ``None``
    prompt_tokens: int | None


@dataclass
class EvaluationPlan:
    """What :func:`evaluate` would do: the answers to generate, the scoring plan of those on disk."""

    generation: list[GenerationLine] = field(default_factory=list)
    scoring: DryRun | None = None
    #: answers not generated yet, so not in the scoring plan
    waiting: int = 0


@dataclass
class _Prepared:
    tasks: list[Task]
    settings: generation.Settings
    queries: dict[str, list[str]]
    profile: JudgeProfile
    chosen: dict[str, Any] | None


def _prepare(
    request: generation.Request,
    tasks: Sequence[str | os.PathLike[str] | Task],
    sweep: Sweep,
    config: ScoringConfig,
    options: RunOptions,
    settings: FamilySettingsArg | None,
    score: bool,
    plan_file: str | Path | None = None,
    ray: RayOptions | None = None,
) -> _Prepared:
    # the model, its arguments and batch size first: a typo fails before any task or model loads
    check_request(request.model, request.model_args, request.gen_kwargs, request.batch_size)
    expanded = sweep.settings()
    loaded = [resolve_task(t) for t in tasks]
    check_writable(request.output_dir, "--output-dir")
    chosen = None
    if not score:  # a scoring run checks these in prepare_tasks, Ray included
        check_outputs(plan_file=plan_file)
        if config.corpus:
            check_corpus(config.corpus)
        profile = config.profile()
    else:
        # the profile also gives the RAG retrievers' chunking and embedder
        profile, chosen = prepare_tasks(
            loaded, config, options, settings=settings, plan_file=plan_file, ray=ray
        )
    queries = {
        t.id: generation.limited(
            scorable_queries(config, t) if score else _generatable(config, t), sweep.limit
        )
        for t in loaded
    }
    return _Prepared(loaded, expanded, queries, profile, chosen)


def _generatable(config: ScoringConfig, task: Task) -> list[str]:
    """Without scoring: the scorable queries where the task's families say which, else all."""
    try:
        return scorable_queries(config, task)
    except InputError:
        return list(task.table("queries")["query_id"])


def report_rankings(task: Task, context: Any, out: Path) -> None:
    """P@10 / nDCG@10 of the retrieved and reranked lists (RAArg), printed and saved by the outputs."""
    from benchmark.core.exports import write_csv
    from benchmark.generation.raarg import ranking_quality

    if failed := sum(len(f) for f in context.failures.values()):
        log.warning("rerank: %d window(s) kept their BM25 order after unusable replies", failed)
    if not task.has_table("qrels"):
        return
    queries = task.table("queries")
    table = ranking_quality(
        context.rankings,
        task.table("qrels"),
        task.table("stances") if task.has_table("stances") else None,
        dict(zip(queries["query_id"], queries["stance"], strict=True)),
    )
    target = out.with_name(f"{out.stem}.ranking.csv")
    write_csv(table, target)
    Console(stderr=True).print(table.round(3).to_string(index=False), f"\n(wrote {target})", markup=False)


def run_evaluation(
    *,
    request: generation.Request,
    tasks: Sequence[str | os.PathLike[str] | Task],
    sweep: Sweep,
    config: ScoringConfig,
    options: RunOptions,
    settings: FamilySettingsArg | None = None,
    score: bool = True,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    report: bool = True,
) -> Results:
    """Generate, then (``score``) score: what :func:`evaluate` and ``benchmark evaluate`` run;
    ``report`` says each file written (the library's ``progress=False`` keeps quiet)."""
    p = _prepare(request, tasks, sweep, config, options, settings, score, ray=ray)
    if score:
        from benchmark.judging.stack import preflight_judge

        preflight_judge(p.profile)  # a judge that is not there: one line now, not after generating
    jobs = []
    for run in generation.generate(request, p.tasks, p.settings, p.queries, p.profile):
        if run.context is not None and run.context.rankings:
            report_rankings(run.task, run.context, run.path)
        jobs.extend(answer_jobs(read_answers(run.path, run.task)))
    if not score or p.chosen is None:
        return Results([])
    return score_jobs(
        with_families(jobs, p.chosen),
        p.profile,
        config,
        options,
        ray=ray,
        raise_incomplete=raise_incomplete,
        report=report,
    )


def plan_evaluation(
    *,
    request: generation.Request,
    tasks: Sequence[str | os.PathLike[str] | Task],
    sweep: Sweep,
    config: ScoringConfig,
    options: RunOptions,
    settings: FamilySettingsArg | None = None,
    score: bool = True,
    plan_file: str | Path | None = None,
) -> EvaluationPlan:
    """``evaluate --dry-run``: the answers to generate, and the scoring plan of those on disk."""
    from benchmark.generation.harness import outputs_file
    from benchmark.generation.prompting import build_messages

    p = _prepare(request, tasks, sweep, config, options, settings, score, plan_file)
    margs, _ = check_request(request.model, request.model_args, request.gen_kwargs)
    out = EvaluationPlan()
    jobs = []
    for task in p.tasks:
        texts = task.query_texts()
        for setting in p.settings:
            path = outputs_file(request.model, margs, task, request.output_dir, setting)
            wanted = p.queries[task.id]
            answers: dict[str, str] = {}
            if path.exists():
                (found,) = read_answers(path, task)
                answers = {q: found.answers[q] for q in wanted if q in found.answers}
                if answers and score:
                    jobs.append(Job(task, answers, found.model, found.evidence))
            missing = [q for q in wanted if q not in answers]
            out.waiting += len(missing)
            tokens = None
            if setting is None:
                messages = [m for q in missing for m in build_messages(task, texts[q], q)]
                tokens = sum(math.ceil(len(m["content"]) / CHARS_PER_TOKEN) for m in messages)
            label = setting.label if setting else "closed-book"
            out.generation.append(GenerationLine(task.id, label, len(missing), len(answers), path, tokens))
    if jobs and p.chosen is not None:
        out.scoring = plan_jobs(with_families(jobs, p.chosen), p.profile, config, options, plan_file)
    if not score:
        out.waiting = 0
    return out


def evaluate(
    model: str,
    *,
    tasks: Sequence[str | os.PathLike[str] | Task] | str,
    model_args: str | Mapping[str, Any] | None = None,
    rag: str = "none",
    rag_k: int = 5,
    rerank: str | None = None,
    rerank_depth: int = 20,
    rag_subq: str | None = None,
    limit: float | None = None,
    output_dir: str | os.PathLike[str] = "outputs",
    batch_size: str | int | None = None,
    gen_kwargs: str | Mapping[str, Any] | None = None,
    apply_chat_template: bool = True,
    score: bool = True,
    settings: FamilySettingsArg | None = None,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    options: RunOptions | None = None,
    **keywords: Any,
) -> Results:
    """Generate answers to each task's queries with ``model`` (lm-eval's ``hf``, ``vllm``,
    ``local-completions``, ``local-chat-completions``, or ``groundcover-offline``), closed-book
    and/or retrieval-augmented (``rag="none,bm25"``), then score them as :func:`benchmark.score`
    does, with its keywords.  Everything is checked before a model loads; generation and scoring
    checkpoint per query, so calling again resumes.  ``score=False`` only generates."""
    where = "benchmark.evaluate"
    task_list = [tasks] if isinstance(tasks, str | os.PathLike | Task) else tasks
    model_args = dict(model_args) if isinstance(model_args, Mapping) else model_args
    gen_kwargs = dict(gen_kwargs) if isinstance(gen_kwargs, Mapping) else gen_kwargs
    problems = generation_problems(
        where, model, task_list, model_args, gen_kwargs, batch_size, output_dir,
        {"apply_chat_template": apply_chat_template, "score": score, "raise_incomplete": raise_incomplete},
    )  # fmt: skip
    call = checked_call(where, keywords, options=options, settings=settings, ray=ray, problems=problems)
    request = generation.Request(
        model=model,
        model_args=model_args or {},
        output_dir=Path(output_dir),
        batch_size=batch_size,
        gen_kwargs=gen_kwargs,
        apply_chat_template=apply_chat_template,
        corpus=call.config.corpus,
        lucene_index=call.config.lucene_index,
        progress=call.options.progress,
    )
    return run_evaluation(
        request=request,
        tasks=list(task_list),
        sweep=Sweep(rag, rag_k, rerank, rerank_depth, rag_subq, limit),
        config=call.config,
        options=call.options,
        settings=call.settings,
        score=score,
        ray=call.ray,
        raise_incomplete=raise_incomplete,
        report=call.options.progress,
    )


#: the flags of generation's checks, as :func:`evaluate`'s keywords
_KEYWORD_OF = {"--" + k.replace("_", "-"): k for k in ("model", "model_args", "gen_kwargs", "batch_size")}


def generation_problems(
    where: str,
    model: Any,
    tasks: Any,
    model_args: Any,
    gen_kwargs: Any,
    batch_size: Any,
    output_dir: Any,
    flags: Mapping[str, Any],
) -> list[Problem]:
    """The generation arguments of :func:`evaluate`, checked as ``benchmark evaluate``'s flags."""
    problems: list[Problem] = []
    if not isinstance(model, str) or not model.strip():
        return [Problem(where, f"model must be a backend name such as 'hf', not {model!r}", field="model")]
    if isinstance(tasks, Sequence) and not isinstance(tasks, str) and tasks:
        problems += [p for t in tasks if (p := task_problem(where, t, "tasks")) is not None]
    else:
        problems.append(
            Problem(where, f"tasks must be a task id or a list of them, not {tasks!r}", field="tasks")
        )
    for name, value in (("model_args", model_args), ("gen_kwargs", gen_kwargs)):
        if value is not None and not isinstance(value, str | Mapping):
            problems.append(
                Problem(where, f"{name} must be 'k=v,...', JSON or a dict, not {value!r}", field=name)
            )
    if not isinstance(output_dir, str | os.PathLike):
        problems.append(Problem(where, f"output_dir must be a path, not {output_dir!r}", field="output_dir"))
    problems += flag_problems(where, flags)
    if problems:
        return problems
    try:
        check_request(model, model_args or {}, gen_kwargs, batch_size)
    except InputError as exc:
        problems += [
            Problem(where, p.message, field=_KEYWORD_OF.get(p.field or "", p.field)) for p in exc.problems
        ]
    return problems


evaluate.__signature__ = signature(evaluate, ScoringConfig, RunOptions)  # type: ignore[attr-defined]
