"""The one way answers are scored: every scoring command builds :class:`Job` s and calls
:func:`score_jobs`, one :func:`~benchmark.scoring.runner.score_task` per (job, family).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchmark.answers.citations import CitedSentence
from benchmark.core.results import ModelInfo, TaskResult
from benchmark.families.base import FamilySettings, MetricFamily, ScoringInputs, not_applicable
from benchmark.judging.stack import JudgeStack
from benchmark.scoring.runner import RunOptions, score_task
from benchmark.tasks import Task

if TYPE_CHECKING:
    from benchmark.scoring.ray_shards import RayPool


@dataclass
class Job:
    """What is scored: a task, answers by query id, the model that wrote them, the evidence
    each RAG answer was given (``None``: closed-book), and the families with their settings."""

    task: Task
    answers: dict[str, str]
    model: ModelInfo
    evidence: dict[str, list[str]] | None = None
    families: list[tuple[MetricFamily, FamilySettings]] = field(default_factory=list)
    #: per query, the sentences and their citations as the input split them (TREC RAG runs)
    sentences: dict[str, list[CitedSentence]] | None = None


def score_jobs(
    jobs: Sequence[Job],
    judges: JudgeStack,
    *,
    results_root: Path,
    inputs: ScoringInputs | None = None,
    options: RunOptions | None = None,
    on_result: Callable[[MetricFamily, TaskResult, Path], None] | None = None,
    on_skip: Callable[[MetricFamily, Job, str], None] | None = None,
    pool: RayPool | None = None,
) -> list[tuple[TaskResult, Path]]:
    """Score every job under every family it names; ``on_result`` sees each result as it is
    written, ``on_skip`` each (family, job) the family does not apply to, with the reason."""
    out = []
    for job, job_inputs, family, settings, reason in applicable(jobs, inputs):
        if reason is not None:
            if on_skip is not None:
                on_skip(family, job, reason)
            continue
        result, path = score_task(
            family,
            job.task,
            job.answers,
            judges,
            model=job.model,
            results_root=results_root,
            inputs=job_inputs,
            settings=settings,
            options=options,
            pool=pool,
        )
        if on_result is not None:
            on_result(family, result, path)
        out.append((result, path))
    return out


def applicable(
    jobs: Sequence[Job], inputs: ScoringInputs | None
) -> Iterator[tuple[Job, ScoringInputs, MetricFamily, FamilySettings, str | None]]:
    """Each (job, family) with the job's inputs, and why the family does not apply (``None``: it does)."""
    base = inputs or ScoringInputs()
    for job in jobs:
        job_inputs = dataclasses.replace(base, evidence=job.evidence, sentences=job.sentences)
        for family, settings in job.families:
            yield job, job_inputs, family, settings, not_applicable(family, job_inputs)
