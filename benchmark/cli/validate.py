"""``benchmark validate``: check submission folders before anything reads them."""

from __future__ import annotations

import argparse
from collections import Counter

from benchmark.api import DEFAULT_PROFILE
from benchmark.cli import add_command

SHOWN = 20  # problems printed per folder: the first ones say what to fix


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "validate",
        description=(
            "Validate submission folders completely: model.yaml schema, every outputs line against "
            "the task, duplicates and missing queries, file count and size limits, the task card's limits "
            "on an answer, at most k distinct passages per RAG row, no credentials, UTF-8, no links, "
            "executables, pickles or script markup; with --budget, what scoring it will cost. Every problem is listed with file, line and field; "
            "a submission with any problem is rejected as a whole. Exit status 2 when any folder fails."
        ),
        examples=[
            "benchmark validate submissions/my-org__my-model",
            "benchmark validate submissions/*/",
            "benchmark validate --budget submissions/my-org__my-model   # and what scoring it will cost",
            "benchmark validate --budget --budget-limits entailment_pairs=5000000 submissions/my-org__my-model",
        ],
    )
    p.add_argument("folders", nargs="+", help="submission folder(s)")
    p.add_argument(
        "--budget",
        action="store_true",
        help="also plan the scoring, as `score --submission … --dry-run` does (nothing is computed), and "
        "refuse a submission that plans more than the budget: entailment pairs 2,000,000, LLM calls 2,000, "
        "LLM prompt tokens 5,000,000, retrieval queries 50,000, embeddings 200,000",
    )
    p.add_argument(
        "--budget-limits",
        metavar="KIND=N,...",
        help="--budget with other limits for some kinds, e.g. entailment_pairs=5000000,llm_calls=500",
    )
    p.add_argument(
        "--judge-profile",
        default=DEFAULT_PROFILE,
        help=f"with --budget: the profile the plan is made for (default {DEFAULT_PROFILE}, the workflow's)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from benchmark.api.submission import parse_budget, validate_submission, within_budget
    from benchmark.core.errors import InputError, printable

    # --budget-limits given at all (an empty value too: an unset CI variable) turns the budget on
    budget = None
    if args.budget or args.budget_limits is not None:
        budget = parse_budget(args.budget_limits or "", "--budget-limits")
    console = Console(highlight=False)
    if not console.is_terminal:  # a CI log, a pipe: one problem a line, never cut at 80 columns
        console = Console(highlight=False, soft_wrap=True)
    failed = 0
    for folder in args.folders:
        try:
            sub = validate_submission(folder)
            spent = within_budget(sub, budget, args.judge_profile) if budget is not None else None
        except InputError as exc:
            failed += 1
            console.print(f"[red]✗[/] {escape(printable(folder))}: {len(exc.problems)} problem(s)")
            for problem in exc.problems[:SHOWN]:
                console.print(f"  {escape(str(problem))}")
            if len(exc.problems) > SHOWN:
                console.print(
                    f"  … and {len(exc.problems) - SHOWN} more (fix these first, then validate again)"
                )
            continue
        tasks = ", ".join(f"{t} ({len(rows)} answers)" for t, rows in sorted(sub.outputs.items()))
        console.print(
            f"[green]✓[/] {escape(printable(folder))}: {escape(sub.card.model_id)}@{escape(sub.card.revision)} — {tasks}"
        )
        origins = Counter(r.generated_by for rows in sub.outputs.values() for r in rows if r.generated_by)
        for origin, n in sorted(origins.items()):
            console.print(
                f"  note: {n} answer(s) were written by {escape(origin)} and are filed under this name"
            )
        if spent is not None:
            console.print(f"  plan: {spent} (within the budget)")
    return 2 if failed else 0
