"""The scoring flags of ``evaluate``, ``score`` and ``judge-check``, generated from the models
the library takes (so the two cannot differ in a default), and their translation.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from benchmark.api import RunOptions, ScoringConfig
from benchmark.cli import usage_error
from benchmark.cli.settings import add_arguments, add_families, from_args, input_files
from benchmark.families import REGISTRY

if TYPE_CHECKING:
    from benchmark.api import DryRun, Job, RayOptions
    from benchmark.api.run import FamilySettingsArg


def add_scoring_args(p: argparse.ArgumentParser, *, ray: bool = True, dry_run: bool = True) -> None:
    g = p.add_argument_group("scoring")
    add_arguments(g, ScoringConfig)
    add_arguments(g, RunOptions)
    if dry_run:
        g.add_argument(
            "--dry-run",
            nargs="?",
            const=True,
            metavar="JSON",
            help="compute nothing: print, per family and stage, the LLM calls (prompt tokens by the judge's "
            "tokenizer, completion at most), entailment pairs and retrieval queries the run will make, how many "
            "are cached, and the money where the profile prices its LLM; with a path, also write the plan as JSON",
        )
    add_families(p)
    if not ray:
        return
    r = p.add_argument_group("sharded scoring on Ray (the `ray` extra)")
    r.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="score query batches on Ray workers: alone, a new local Ray instance; 'auto' or ray://host:10001 "
        "joins a running cluster. Same checkpoints and result files as one process",
    )
    r.add_argument(
        "--ray-workers", type=int, help="workers (default: as many as the cluster's CPUs/GPUs hold)"
    )
    r.add_argument("--ray-cpus-per-worker", type=float, default=1.0, help="CPUs per worker (default 1)")
    r.add_argument(
        "--ray-gpus-per-worker", type=float, default=0.0, help="GPUs per worker, e.g. 1 or 0.5 (default 0)"
    )


def scoring_config(args: argparse.Namespace) -> ScoringConfig:
    """The judge, families and knowledge the flags name (the families' input files too)."""
    return from_args(ScoringConfig, args, files=input_files(args, REGISTRY.values()))


def run_options(args: argparse.Namespace) -> RunOptions:
    """The run options the flags give, with the command line recorded in results.  A
    command that declares its own ``--no-progress`` switch (store_true) is honoured."""
    fixed: dict[str, object] = {"command": shlex.join(["benchmark", *sys.argv[1:]])}
    if getattr(args, "no_progress", False):
        fixed["progress"] = False
    return from_args(RunOptions, args, **fixed)


def family_settings(args: argparse.Namespace) -> FamilySettingsArg:
    """Each family's settings from its flags, read only for the families a run scores."""
    return lambda family: from_args(family.settings_model, args)


def ray_options(args: argparse.Namespace) -> RayOptions | None:
    if getattr(args, "ray", None) is None:
        return None
    from benchmark.api import RayOptions

    return RayOptions(
        address=None if args.ray == "local" else args.ray,
        workers=args.ray_workers,
        cpus_per_worker=args.ray_cpus_per_worker,
        gpus_per_worker=args.ray_gpus_per_worker,
    )


def plan_file(args: argparse.Namespace) -> str | None:
    value = getattr(args, "dry_run", None)
    return value if isinstance(value, str) else None


def score_answers(args: argparse.Namespace, jobs: list[Job]) -> None:
    """Score (or plan) ``jobs`` under the flags and print; incomplete raises after printing."""
    from benchmark.api.run import plan_all, score_all

    options, config, settings = run_options(args), scoring_config(args), family_settings(args)
    if getattr(args, "dry_run", None):
        print_plan(plan_all(jobs, config, options, settings=settings, plan_file=plan_file(args)), args)
        return
    results = score_all(
        jobs, config, options, settings=settings, ray=ray_options(args), raise_incomplete=False
    )
    results.print()
    results.raise_if_incomplete()


def print_plan(found: DryRun, args: argparse.Namespace) -> None:
    from rich.console import Console

    from benchmark.api import print_plan as show_plan

    console = Console()
    show_plan(found, console if console.is_terminal else Console(width=200))
    if plan_file(args):
        Console(stderr=True).print(f"wrote {plan_file(args)}")


def task_list(values: list[str] | str) -> list[str]:
    """``--tasks a,b c`` -> [a, b, c] (commas or spaces, as lm_eval takes them)."""
    items = [values] if isinstance(values, str) else values
    ids = [t.strip() for v in items for t in v.split(",") if t.strip()]
    if not ids:
        raise usage_error("name at least one task", "--tasks")
    return ids
