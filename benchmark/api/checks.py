"""Everything a scoring run needs, checked before any model loads: a typo fails in a second
with a one-line :class:`~benchmark.core.errors.InputError`, not after a model download.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from benchmark.api.config import ScoringConfig
from benchmark.core import paths
from benchmark.core.errors import InputError, Problem
from benchmark.core.paths import check_writable, check_writable_file
from benchmark.families import families_for
from benchmark.families.base import FamilySettings, MetricFamily, queries_of
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions, check_address
from benchmark.tasks import Task

#: per task id, the families that score it and their settings
Chosen = dict[str, list[tuple[MetricFamily, FamilySettings]]]


def check_corpus(path: str) -> None:
    """Read ``corpus`` whole (every bad row named) before anything is generated or loaded;
    retrieval then takes the documents from :func:`~benchmark.retrieval.load_corpus`'s cache."""
    from benchmark.retrieval import load_corpus

    try:
        load_corpus(path)
    except InputError as exc:
        raise InputError(
            [Problem(p.file, p.message, p.line, p.field or "--corpus") for p in exc.problems]
        ) from None
    except (OSError, ValueError) as exc:  # a parquet file that is not one, say
        raise InputError.at(path, f"cannot be read as a corpus ({exc})", field="--corpus") from None


def check_outputs(*, plan_file: str | Path | None = None, ray: RayOptions | None = None) -> None:
    """What a run writes or needs outside its results folder: the plan file, the home, Ray."""
    if plan_file is not None:
        check_writable_file(str(plan_file), "--dry-run")
    check_writable(paths.home(), "GROUNDCOVER_HOME")
    if ray is not None:
        check_address(ray.address)


def nothing_to_score(family: MetricFamily, task: Task, *, explicit: bool) -> None:
    """A family with no scorable query on ``task``: an error when ``metrics`` asked for it;
    otherwise a note, so listing a family a user completes with a file is no trap."""
    needs = (
        "pass " + " or ".join(f"{i.flag} FILE" for i in family.inputs)
        if family.inputs
        else f"it needs the table(s) {list(family.required_tables)}"
    )
    message = f"{family.id} can score no query of task {task.id} with these inputs; {needs}"
    if explicit:
        raise InputError.at("--metrics", message)
    Console(stderr=True).print(f"[yellow]note:[/] {message}. Skipped; the card's other families are scored.")


def choose_families(
    config: ScoringConfig, tasks: list[Task], settings_of: Callable[[MetricFamily], FamilySettings]
) -> Chosen:
    """Each task's families, with their settings; one asked for that cannot score a task is an error."""
    requested, inputs = config.requested(), config.inputs()
    chosen: Chosen = {}
    for task in tasks:
        chosen[task.id] = []
        for fam in families_for(task, requested):
            # resolves the corpus and the family's files: fails early
            if queries_of(fam, task, inputs) == []:
                nothing_to_score(fam, task, explicit=bool(requested))
                continue
            chosen[task.id].append((fam, settings_of(fam)))
        if not chosen[task.id]:
            raise InputError.at(
                task.where(),
                "none of the families its card lists can score a query with these inputs (see the "
                "notes above)",
                field="metrics",
            )
    return chosen


def check_run(
    config: ScoringConfig,
    options: RunOptions,
    *,
    plan_file: str | Path | None = None,
    ray: RayOptions | None = None,
) -> None:
    """The checks of a scoring run that need no task: results folder, home, plan file, Ray, corpus."""
    check_writable(options.results_dir, "--results-dir")
    check_outputs(plan_file=plan_file, ray=ray)
    if config.corpus and not config.corpus.startswith("irds:"):
        check_corpus(config.corpus)


def scorable_queries(config: ScoringConfig, task: Task) -> list[str]:
    """The queries the requested families can score on ``task`` with the given inputs."""
    from benchmark import families

    return families.scorable_queries(task, config.inputs(), config.requested())
