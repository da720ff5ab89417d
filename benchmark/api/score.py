"""``benchmark.score`` and ``benchmark.plan``: answers you already hold, scored or planned as
``benchmark score`` does; keywords are the flags' names (``judge_profile=``), checked first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.answers import Answers, read_answers
from benchmark.api.answers import answer_jobs, resolve_task
from benchmark.api.config import ScoringConfig
from benchmark.api.keywords import (
    family_settings,
    flag_problems,
    input_files,
    scoring_keywords,
    signature,
    task_problem,
)
from benchmark.api.results import Results
from benchmark.api.run import FamilySettingsArg, plan_all, score_all
from benchmark.core.errors import InputError, Problem
from benchmark.scoring.dry_run import DryRun
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions
from benchmark.scoring.run import Job
from benchmark.tasks import Task


@dataclass(frozen=True)
class Call:
    """An API call's arguments, checked."""

    config: ScoringConfig
    options: RunOptions
    settings: FamilySettingsArg | None
    ray: RayOptions | None


def checked_call(
    where: str,
    keywords: Mapping[str, Any],
    *,
    options: Any,
    settings: Any,
    ray: Any,
    problems: list[Problem] | None = None,
) -> Call:
    """The scoring arguments every API door shares, checked; every problem raised together."""
    from benchmark.families import REGISTRY

    problems = list(problems or [])
    config = opts = checked_settings = None
    try:
        config, opts = scoring_keywords(where, keywords, options)
        input_files(where, config, REGISTRY)
    except InputError as exc:
        problems += exc.problems
    try:
        checked_settings = family_settings(where, settings, REGISTRY)
    except InputError as exc:
        problems += exc.problems
    if ray is not None and not isinstance(ray, RayOptions):
        problems.append(Problem(where, f"ray must be a RayOptions, not a {type(ray).__name__}", field="ray"))
    if problems or config is None or opts is None:
        raise InputError(problems)
    return Call(config, opts, checked_settings, ray)


def _checked_jobs(
    where: str,
    answers: Answers,
    task: Any,
    model_name: Any,
    flags: Mapping[str, Any],
    keywords: Mapping[str, Any],
    options: Any,
    settings: Any,
    ray: Any,
    problems: Sequence[Problem] = (),
) -> tuple[Call, list[Job]]:
    """The arguments of :func:`score` and :func:`plan`, checked, and the answers as jobs."""
    found = [p for p in (task_problem(where, task),) if p is not None]
    if model_name is not None and not (isinstance(model_name, str) and model_name.strip()):
        found.append(Problem(where, f"model_name must be a model id, not {model_name!r}", field="model_name"))
    found += flag_problems(where, flags) + list(problems)
    call = checked_call(where, keywords, options=options, settings=settings, ray=ray, problems=found)
    sets = read_answers(
        answers,
        resolve_task(task),
        model_name=model_name,
        trec_rag_run=flags["trec_rag_run"],
        truncate=flags["truncate"],
        own_corpus=bool(call.config.corpus or call.config.lucene_index),
    )
    return call, answer_jobs(sets)


def score(
    answers: Answers,
    *,
    task: str | os.PathLike[str] | Task,
    model_name: str | None = None,
    settings: FamilySettingsArg | None = None,
    trec_rag_run: bool = False,
    truncate: bool = True,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    options: RunOptions | None = None,
    **keywords: Any,
) -> Results:
    """Score ``answers`` on ``task`` with the judge profile's models.

    ``answers``: a path (groundcover outputs JSONL, lm-eval ``--log_samples`` file; with
    ``trec_rag_run=True`` a TREC RAG 2024/2025 run file), a pandas DataFrame, a
    ``datasets.Dataset`` or a list of dicts with ``query_id`` and ``answer`` (and ``model``,
    or give ``model_name``); the answers of several models are scored as one entry each, and
    ``results.leaderboard()`` ranks them.  ``task``: a task id, a task folder, or a
    :class:`Task`.  ``settings``: per family id its settings (``{family_id: {field: value}}``).
    The other keywords, in the signature, are :class:`ScoringConfig`'s and :class:`RunOptions`'
    (over ``options`` where given); ``files`` are the families' input files by name.

    Result files, traces and figures are written under ``results_dir`` as the command line
    writes them, and a second call resumes from their checkpoints.  Bad input raises
    :class:`~benchmark.core.errors.InputError` before any work; an incomplete result (the judge
    failed on more than ``max_failure_rate`` of the queries) raises
    :class:`~benchmark.core.errors.IncompleteResults`, unless ``raise_incomplete`` is false."""
    flags = {"trec_rag_run": trec_rag_run, "truncate": truncate, "raise_incomplete": raise_incomplete}
    call, jobs = _checked_jobs(
        "benchmark.score", answers, task, model_name, flags, keywords, options, settings, ray
    )
    return score_all(
        jobs,
        call.config,
        call.options,
        settings=call.settings,
        ray=call.ray,
        raise_incomplete=raise_incomplete,
        report=call.options.progress,
    )


def plan(
    answers: Answers,
    *,
    task: str | os.PathLike[str] | Task,
    model_name: str | None = None,
    settings: FamilySettingsArg | None = None,
    trec_rag_run: bool = False,
    truncate: bool = True,
    plan_file: str | os.PathLike[str] | None = None,
    options: RunOptions | None = None,
    **keywords: Any,
) -> DryRun:
    """What :func:`score` with the same arguments would ask, computed from nothing, as
    ``benchmark score --dry-run`` prints it (calls, tokens, cached share, money)."""
    where = "benchmark.plan"
    bad = []
    if plan_file is not None and not isinstance(plan_file, str | os.PathLike):
        bad.append(Problem(where, f"plan_file must be a path, not {plan_file!r}", field="plan_file"))
    flags = {"trec_rag_run": trec_rag_run, "truncate": truncate}
    call, jobs = _checked_jobs(
        where, answers, task, model_name, flags, keywords, options, settings, None, bad
    )
    return plan_all(
        jobs,
        call.config,
        call.options,
        settings=call.settings,
        plan_file=Path(plan_file) if plan_file else None,
    )


score.__signature__ = signature(score, ScoringConfig, RunOptions)  # type: ignore[attr-defined]
plan.__signature__ = signature(plan, ScoringConfig, RunOptions)  # type: ignore[attr-defined]
