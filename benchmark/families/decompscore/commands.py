"""``benchmark decompose-compare``: several claim decomposition methods on the same texts, each
scored by the DecompScore family through the common runner as model ``decomposer/<method>``.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from rich.console import Console

from benchmark.core.errors import InputError, usage_error
from benchmark.families import REGISTRY
from benchmark.families.base import ScoringInputs
from benchmark.families.command_context import CommandContext, judge_stack
from benchmark.families.decompscore.family import DECOMPSCORE, DecompSettings
from benchmark.judging.decomposition import LLM_METHODS, METHODS, spacy_pipeline
from benchmark.models.profiles import DEFAULT_PROFILE


def register(sub: argparse._SubParsersAction, context: CommandContext) -> None:
    p = context.add_command(
        sub,
        "decompose-compare",
        help="compare claim decomposition methods on the same texts (DecompScore)",
        description=(
            "Decompose every text with each method, judge each subclaim against the sentence it came "
            "from (DecompScore, Wanner et al. 2024), print a comparison table and examples side by side, "
            "and write one result per method (model decomposer/<method>) plus a plot. --texts is JSONL "
            "with id and text per line (or query_id and answer: a `benchmark evaluate` outputs file); "
            "with --task, the ids are that task's query ids and its corpus grounds the subclaims "
            f"(the S_fact effect). Methods: {', '.join(METHODS)}."
        ),
        examples=[
            "benchmark decompose-compare --methods sentences,dependency,russellian --texts my_texts.jsonl",
            "benchmark decompose-compare --methods factscore,wice,chen,russellian \\\n"
            "    --texts outputs/webtrack-2009-2012.jsonl --task webtrack-2009-2012 --limit 6",
        ],
    )
    p.add_argument("--methods", required=True, help=f"comma-separated, from: {', '.join(METHODS)}")
    p.add_argument("--texts", required=True, help="JSONL: id and text per line (or query_id and answer)")
    p.add_argument("--task", help="the task whose query ids the texts use; its corpus grounds the subclaims")
    p.add_argument("--limit", type=int, help="only the first N texts")
    p.add_argument("--judge-profile", default=DEFAULT_PROFILE, help=f"default {DEFAULT_PROFILE}")
    p.add_argument("--results-dir", default="results", help="where result files go (default: results/)")
    p.add_argument(
        "--corpus", help="a knowledge corpus (.jsonl/.parquet, doc_id and text) for the S_fact effect"
    )
    p.add_argument("--examples", type=int, default=3, help="source sentences shown side by side (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--query-batch", type=int, default=4)
    p.add_argument("--no-progress", action="store_true")
    context.add_settings(p.add_argument_group(DECOMPSCORE.title), DecompSettings)
    p.set_defaults(func=partial(run, context))


def run(context: CommandContext, args: argparse.Namespace) -> int:
    # here, not at the top: `benchmark --help` imports this module, and these import numpy and pandas
    from benchmark.core.results import ModelInfo, read_traces
    from benchmark.families.decompscore import views
    from benchmark.families.decompscore.texts import read_texts, texts_task
    from benchmark.tasks import load_task

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise usage_error(f"name methods from: {', '.join(METHODS)}", "--methods")
    # every method's settings are checked (its name among them) before any model loads
    settings = {m: context.settings_from_args(DecompSettings, args, method=m) for m in methods}
    if "dependency" in methods:
        try:
            spacy_pipeline()
        except ImportError as exc:
            raise InputError.at("--methods dependency", str(exc)) from exc
    path = Path(args.texts)
    rows = read_texts(path)[: args.limit or None]
    task = texts_task(path, rows, load_task(args.task) if args.task else None)
    family = REGISTRY[DECOMPSCORE.id]
    judges = judge_stack(args.judge_profile, progress=not args.no_progress)
    jobs = []
    for method in methods:
        counts, chosen = "", settings[method]
        if method in LLM_METHODS and (
            chosen.static_examples is not None or chosen.retrieved_examples is not None
        ):
            counts = f"-s{chosen.static_examples}-r{chosen.retrieved_examples}"
        model = ModelInfo(id=f"decomposer/{method}", revision=f"v1{counts}", backend="decomposition")
        jobs.append(context.scoring_job(task, dict(rows), model, None, [(family, chosen)]))
    scored = context.score_jobs(
        jobs,
        judges,
        results_root=Path(args.results_dir),
        inputs=ScoringInputs(corpus=args.corpus),
        options=context.run_options(args),
        on_result=lambda fam, result, out: context.save_figures(fam, result, out) and None,
    )
    results = [result for result, _ in scored]
    paths = [out for _, out in scored]
    traces = {method: read_traces(out) for method, out in zip(methods, paths, strict=True)}
    console = Console()
    console.print(views.comparison_table(results))
    console.print(views.side_by_side(traces, args.examples))
    plot = Path(args.results_dir) / f"{task.id}.decompscore.methods.png"
    views.figure(results).savefig(plot, dpi=120)
    for out in paths:
        console.print(f"wrote {out}")
    console.print(f"plot: {plot}")
    for note in results[0].notes if results else []:
        console.print(f"note: {note}")
    return 0
