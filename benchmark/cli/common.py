"""Options and steps shared by ``evaluate`` and ``score``."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from rich.console import Console

from benchmark.evaluation import ICATOptions, Judges, evaluate_icat
from benchmark.profiles import DEFAULT_PROFILE, list_profiles, load_profile
from benchmark.report import plot_beta_sweep, print_results
from benchmark.results import ModelInfo, TaskResult
from benchmark.tasks import Task


def add_scoring_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("scoring")
    g.add_argument(
        "--judge-profile",
        default=DEFAULT_PROFILE,
        help=f"judge profile name or YAML path (shipped: {', '.join(list_profiles())}; default {DEFAULT_PROFILE})",
    )
    g.add_argument("--results-dir", default="results", help="where result files go (default: results/)")
    g.add_argument("--corpus", help="your own knowledge corpus: .jsonl or .parquet with doc_id and text")
    g.add_argument(
        "--lucene-index", help="an existing Lucene index dir, or prebuilt:<name> (pyserini, needs internet)"
    )
    g.add_argument("--variants", default="m,s,a", help="ICAT variants to compute (default: m,s,a)")
    g.add_argument("--beta", type=float, default=1.0, help="β of the reported ICAT_β (default 1)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--query-batch", type=int, default=4, help="queries scored together so models see batches")
    g.add_argument("--no-progress", action="store_true", help="hide progress bars")


def score_answers(
    args: argparse.Namespace, tasks_and_answers: list[tuple[Task, dict[str, str], ModelInfo]]
) -> list[TaskResult]:
    profile = load_profile(args.judge_profile)
    judges = Judges.load(profile)
    options = ICATOptions(
        variants=tuple(v.strip() for v in args.variants.split(",") if v.strip()),
        beta=args.beta,
        seed=args.seed,
        query_batch=args.query_batch,
        progress=not args.no_progress,
    )
    results = []
    console = Console(stderr=True)
    for task, answers, model in tasks_and_answers:
        result, path = evaluate_icat(
            task,
            answers,
            judges,
            model=model,
            results_root=Path(args.results_dir),
            corpus=args.corpus,
            lucene_index=args.lucene_index,
            options=options,
            command=shlex.join(["benchmark", *sys.argv[1:]]),
        )
        plot = plot_beta_sweep([result], path.with_name(path.stem + ".beta_sweep.png"))
        console.print(f"wrote {path} (traces: {path.stem}.traces.jsonl, plot: {plot.name})")
        results.append(result)
    print_results(results)
    return results
