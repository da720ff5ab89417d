"""The one scoring path (checks, family choice, judges, checkpoints, results) that the command
line and the library both end in; nothing here reads a command line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmark.api.checks import Chosen, check_run, choose_families
from benchmark.api.config import ScoringConfig
from benchmark.api.results import Results
from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families import views
from benchmark.families.base import FamilySettings, MetricFamily
from benchmark.models.profiles import JudgeProfile
from benchmark.scoring.dry_run import DryRun, planning_stack
from benchmark.scoring.dry_run import plan_jobs as plan_stages
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions, RayPool
from benchmark.scoring.run import Job
from benchmark.tasks import Task

#: a family's settings: by family id, a settings object or its field values; or a function
#: of the family (the command line's flags)
FamilySettingsArg = (
    Mapping[str, FamilySettings | Mapping[str, Any]] | Callable[[MetricFamily], FamilySettings]
)


def settings_for(family: MetricFamily, given: FamilySettingsArg | None) -> FamilySettings:
    """``family``'s settings from what the caller gave (its defaults where nothing)."""
    if callable(given):
        return given(family)
    value = (given or {}).get(family.id)
    return value if isinstance(value, FamilySettings) else family.settings_model(**dict(value or {}))


def prepare_tasks(
    tasks: Sequence[Task],
    config: ScoringConfig,
    options: RunOptions,
    *,
    settings: FamilySettingsArg | None = None,
    plan_file: str | Path | None = None,
    ray: RayOptions | None = None,
) -> tuple[JudgeProfile, Chosen]:
    """Check what a run of ``tasks`` needs before anything loads; choose each task's families."""
    check_run(config, options, plan_file=plan_file, ray=ray)
    return config.profile(), choose_families(config, list(tasks), lambda fam: settings_for(fam, settings))


def with_families(jobs: Sequence[Job], chosen: Chosen) -> list[Job]:
    return [dataclasses.replace(job, families=chosen[job.task.id]) for job in jobs]


def plan_jobs(
    jobs: Sequence[Job],
    profile: JudgeProfile,
    config: ScoringConfig,
    options: RunOptions,
    plan_file: str | Path | None = None,
) -> DryRun:
    """What scoring ``jobs`` will ask, against the checkpoints and the cache (written to
    ``plan_file`` as JSON where given); nothing is computed."""
    found = plan_stages(
        jobs,
        planning_stack(profile),
        results_root=Path(options.results_dir),
        inputs=config.inputs(),
        options=options,
    )
    if plan_file is not None:
        Path(plan_file).write_text(json.dumps(found.as_dict(), indent=2) + "\n")
    return found


def score_jobs(
    jobs: Sequence[Job],
    profile: JudgeProfile,
    config: ScoringConfig,
    options: RunOptions,
    *,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    report: bool = True,
) -> Results:
    """Score every (job, family), checkpointed per query, each result file written (and said,
    with ``report``) as it completes; a result the judge failed on too often is written but
    incomplete (:class:`IncompleteResults` unless ``raise_incomplete`` is false)."""
    from benchmark.judging.stack import JudgeStack
    from benchmark.scoring import run

    with quiet_bars(not options.progress):
        judges = JudgeStack.load(profile, progress=options.progress)
        pool = RayPool(profile, ray) if ray is not None else None
        console = Console(stderr=True)
        notes: list[str] = []

        def written(family: MetricFamily, result: TaskResult, path: Path) -> None:
            plots = save_figures(family, result, path)
            if report:
                console.print(
                    f"wrote {path} (traces: {path.stem}.traces.jsonl{', plots: ' if plots else ''}"
                    f"{', '.join(p.name for p in plots)})"
                )

        def skipped(family: MetricFamily, job: Job, reason: str) -> None:
            note = f"{family.title} · {job.task.id} · {job.model.label}: not applicable ({reason})"
            notes.append(note)
            if report:
                console.print(note)

        try:
            scored = run.score_jobs(
                jobs,
                judges,
                results_root=Path(options.results_dir),
                inputs=config.inputs(),
                options=options,
                on_result=written,
                on_skip=skipped,
                pool=pool,
            )
        finally:
            if pool is not None:
                pool.close()
    results = Results([result for result, _ in scored], paths=[path for _, path in scored], notes=notes)
    if raise_incomplete:
        results.raise_if_incomplete()
    return results


@contextlib.contextmanager
def quiet_bars(quiet: bool) -> Iterator[None]:
    """No progress bars inside, those of Hugging Face's loaders too (``Loading weights``):
    what ``progress=False`` promises a notebook or a log."""
    if not quiet:
        yield
        return
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    hub_was_off = are_progress_bars_disabled()
    loaded = sys.modules.get("transformers.utils.logging")
    transformers_was_on = loaded.is_progress_bar_enabled() if loaded is not None else True
    disable_progress_bars()  # transformers, imported later, starts from the hub's setting
    if loaded is not None:
        loaded.disable_progress_bar()
    try:
        yield
    finally:
        if not hub_was_off:
            enable_progress_bars()
        loaded = sys.modules.get("transformers.utils.logging")
        if loaded is not None and transformers_was_on:
            loaded.enable_progress_bar()


def save_figures(family: MetricFamily, result: TaskResult, path: Path) -> list[Path]:
    """The family's figures for one result, as PNGs beside the result file."""
    out = []
    for title, fig in views.figures(family, [result]).items():
        target = path.with_name(f"{path.stem}.{re.sub(r'[^a-z0-9]+', '_', title.lower()).strip('_')}.png")
        fig.savefig(target, dpi=120)
        figures.pyplot().close(fig)
        out.append(target)
    return out


def score_all(
    jobs: Sequence[Job],
    config: ScoringConfig,
    options: RunOptions,
    *,
    settings: FamilySettingsArg | None = None,
    ray: RayOptions | None = None,
    raise_incomplete: bool = True,
    report: bool = True,
) -> Results:
    """Check, choose the families, and score: a whole scoring run."""
    profile, chosen = prepare_tasks([j.task for j in jobs], config, options, settings=settings, ray=ray)
    return score_jobs(
        with_families(jobs, chosen),
        profile,
        config,
        options,
        ray=ray,
        raise_incomplete=raise_incomplete,
        report=report,
    )


def plan_all(
    jobs: Sequence[Job],
    config: ScoringConfig,
    options: RunOptions,
    *,
    settings: FamilySettingsArg | None = None,
    plan_file: str | Path | None = None,
) -> DryRun:
    """Check and choose the families as :func:`score_all` does, then plan (and write ``plan_file``)."""
    profile, chosen = prepare_tasks(
        [j.task for j in jobs], config, options, settings=settings, plan_file=plan_file
    )
    return plan_jobs(with_families(jobs, chosen), profile, config, options, plan_file)
