"""``benchmark judge-check`` as a library call: the same answers scored at every level of every
perturbation, and each score's trend fitted (:mod:`benchmark.metaeval.judge_check`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from benchmark.api.answers import Answers, answers_job, resolve_task
from benchmark.api.checks import scorable_queries
from benchmark.api.config import ScoringConfig
from benchmark.api.run import FamilySettingsArg, prepare_tasks
from benchmark.core.errors import usage_error
from benchmark.scoring.options import RunOptions
from benchmark.scoring.run import Job
from benchmark.tasks import Task

if TYPE_CHECKING:
    from benchmark.metaeval.judge_check import Trend

__all__ = ["judge_check", "parse_levels"]


def parse_levels(text: str, flag: str) -> list[float]:
    """``0,10,50`` -> the levels; ``none`` -> none; percentages stay within 0..100."""
    if text.strip().lower() == "none":
        return []
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise usage_error(f"not a list of numbers: {text!r}", flag) from exc
    if any(v < 0 for v in out) or (flag == "--irrelevant" and any(v > 100 for v in out)):
        raise usage_error(f"levels out of range: {text!r}", flag)
    return out


def judge_check(
    answers: Answers,
    *,
    task: str | os.PathLike[str] | Task,
    perturbations: Mapping[str, list[float]],
    config: ScoringConfig,
    options: RunOptions,
    settings: FamilySettingsArg | None = None,
    limit: int | None = None,
) -> dict[str, tuple[list[float], dict[tuple[str, str], Trend], list[str]]]:
    """Per perturbation kind: the levels, each (family, score)'s trend and the notes."""
    from benchmark.judging.stack import JudgeStack
    from benchmark.metaeval import judge_check as check
    from benchmark.scoring import run

    found = resolve_task(task)
    if not any(perturbations.values()):
        raise usage_error("no perturbation levels", "--irrelevant")
    job = answers_job(answers, found)
    qids = [q for q in scorable_queries(config, found) if q in job.answers][: limit or None]
    texts = {q: job.answers[q] for q in qids}
    profile, chosen = prepare_tasks([found], config, options, settings=settings)
    judges = JudgeStack.load(profile, progress=options.progress)
    return check.check(
        judges,
        score_jobs=lambda stack, given, out: run.score_jobs(
            [Job(found, given, job.model, None, chosen[found.id])],
            stack,
            results_root=out,
            inputs=config.inputs(),
            options=options,
        ),
        answers=texts,
        perturbations=dict(perturbations),
        results_root=options.results_dir,
        seed=options.seed,
    )
