"""``benchmark validate``: check submission folders before anything reads them."""

from __future__ import annotations

import argparse
from collections import Counter

from rich.console import Console
from rich.markup import escape

from benchmark.cli import add_command
from benchmark.core.errors import InputError, printable

SHOWN = 20  # problems printed per folder: the first ones say what to fix


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "validate",
        help="validate submission folders (schema, ids, limits, safety)",
        description=(
            "Validate submission folders completely: model.yaml schema, every outputs line against "
            "the task, duplicates and missing queries, file count and size limits, UTF-8, no links, "
            "executables, pickles or script markup. Every problem is listed with file, line and field; "
            "a submission with any problem is rejected as a whole. Exit status 2 when any folder fails."
        ),
        examples=[
            "benchmark validate submissions/my-org__my-model",
            "benchmark validate submissions/*/",
        ],
    )
    p.add_argument("folders", nargs="+", help="submission folder(s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.board.submissions import validate_submission

    console = Console(highlight=False)
    if not console.is_terminal:  # a CI log, a pipe: one problem a line, never cut at 80 columns
        console = Console(highlight=False, soft_wrap=True)
    failed = 0
    for folder in args.folders:
        try:
            sub = validate_submission(folder)
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
    return 2 if failed else 0
