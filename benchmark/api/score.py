"""``benchmark.score`` and ``benchmark.plan``: answers you already hold, scored or planned.

The same run as ``benchmark score``: the same checks before anything loads, the same
result files, checkpoints (a second call resumes, and reuses every cached model call) and
dry-run plan (:func:`plan`).  Keywords are the flags' names: ``judge_profile=`` is
``--judge-profile``, ``query_batch=`` is ``--query-batch``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmark.answers import Answers, read_answers
from benchmark.api.answers import answer_jobs, resolve_task
from benchmark.api.config import ScoringConfig
from benchmark.api.results import Results
from benchmark.api.run import FamilySettingsArg, plan_all, score_all
from benchmark.models.profiles import DEFAULT_PROFILE, JudgeProfile
from benchmark.scoring.dry_run import DryRun
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions
from benchmark.scoring.run import Job
from benchmark.tasks import Task


def run_options(options: RunOptions | None, values: Mapping[str, Any]) -> RunOptions:
    """``options`` with the keyword ``values`` over it (each checked, named by its flag)."""
    base = options.model_dump() if options is not None else {}
    return RunOptions(**{**base, **values})


def _jobs(
    answers: Answers,
    task: str | os.PathLike[str] | Task,
    *,
    model_name: str | None,
    trec_rag_run: bool,
    truncate: bool,
    own_corpus: bool,
) -> list[Job]:
    found = resolve_task(task)
    sets = read_answers(
        answers,
        found,
        model_name=model_name,
        trec_rag_run=trec_rag_run,
        truncate=truncate,
        own_corpus=own_corpus,
    )
    return answer_jobs(sets)


def score(
    answers: Answers,
    *,
    task: str | os.PathLike[str] | Task,
    metrics: list[str] | tuple[str, ...] | None = None,
    judge_profile: str | os.PathLike[str] | JudgeProfile = DEFAULT_PROFILE,
    judge_url: str | None = None,
    judge_model: str | None = None,
    model_name: str | None = None,
    corpus: str | None = None,
    lucene_index: str | None = None,
    files: Mapping[str, str] | None = None,
    settings: FamilySettingsArg | None = None,
    trec_rag_run: bool = False,
    truncate: bool = True,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    options: RunOptions | None = None,
    **run: Any,
) -> Results:
    """Score ``answers`` on ``task`` with the judge profile's models.

    ``answers``: a path (groundcover outputs JSONL, lm-eval ``--log_samples`` file; with
    ``trec_rag_run=True`` a TREC RAG 2024/2025 run file), a pandas DataFrame, a
    ``datasets.Dataset`` or a list of dicts with ``query_id`` and ``answer`` (and ``model``,
    or give ``model_name``).  ``task``: a task id, a task folder, or a :class:`Task`
    (e.g. from :meth:`Task.from_records`).  ``metrics``: family ids (default: the task
    card's list); ``settings``: per family id its settings (``{family_id: {field: value}}``);
    ``files``: the families' input files by name (``{name: path}``, as their flags name them).
    ``run`` keywords are :class:`RunOptions` fields (``results_dir``, ``seed``,
    ``query_batch``, ``progress``, ``max_failure_rate``).

    Result files, traces and figures are written under ``results_dir`` as the command line
    writes them, and a second call resumes from their checkpoints.  Bad input raises
    :class:`~benchmark.core.errors.InputError` with the message the command line prints;
    an incomplete result raises :class:`~benchmark.core.errors.IncompleteResults` unless
    ``raise_incomplete`` is false.
    """
    config = _config(metrics, judge_profile, judge_url, judge_model, corpus, lucene_index, files)
    opts = run_options(options, run)
    jobs = _jobs(
        answers,
        task,
        model_name=model_name,
        trec_rag_run=trec_rag_run,
        truncate=truncate,
        own_corpus=bool(corpus or lucene_index),
    )
    return score_all(jobs, config, opts, settings=settings, ray=ray, raise_incomplete=raise_incomplete)


def plan(
    answers: Answers,
    *,
    task: str | os.PathLike[str] | Task,
    metrics: list[str] | tuple[str, ...] | None = None,
    judge_profile: str | os.PathLike[str] | JudgeProfile = DEFAULT_PROFILE,
    judge_url: str | None = None,
    judge_model: str | None = None,
    model_name: str | None = None,
    corpus: str | None = None,
    lucene_index: str | None = None,
    files: Mapping[str, str] | None = None,
    settings: FamilySettingsArg | None = None,
    trec_rag_run: bool = False,
    truncate: bool = True,
    plan_file: str | os.PathLike[str] | None = None,
    options: RunOptions | None = None,
    **run: Any,
) -> DryRun:
    """What :func:`score` with the same arguments would ask, computed from nothing: per
    family and stage the LLM calls (prompt tokens by the judge's tokenizer), entailment
    pairs and retrieval queries, how many the cache and the checkpoints already hold, and
    the money where the profile prices its LLM (``benchmark score --dry-run``)."""
    config = _config(metrics, judge_profile, judge_url, judge_model, corpus, lucene_index, files)
    opts = run_options(options, run)
    jobs = _jobs(
        answers,
        task,
        model_name=model_name,
        trec_rag_run=trec_rag_run,
        truncate=truncate,
        own_corpus=bool(corpus or lucene_index),
    )
    return plan_all(jobs, config, opts, settings=settings, plan_file=Path(plan_file) if plan_file else None)


def _config(
    metrics: list[str] | tuple[str, ...] | None,
    judge_profile: str | os.PathLike[str] | JudgeProfile,
    judge_url: str | None,
    judge_model: str | None,
    corpus: str | None,
    lucene_index: str | None,
    files: Mapping[str, str] | None,
) -> ScoringConfig:
    if isinstance(metrics, str):
        metrics = metrics.split(",")
    return ScoringConfig(
        metrics=tuple(metrics) if metrics is not None else None,
        judge_profile=judge_profile if isinstance(judge_profile, JudgeProfile) else str(judge_profile),
        judge_url=judge_url,
        judge_model=judge_model,
        corpus=corpus,
        lucene_index=lucene_index,
        files=dict(files or {}),
    )
