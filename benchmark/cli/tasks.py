"""``benchmark tasks``: list tasks, show a task card, export tasks for lm-eval."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from benchmark.cli import add_command
from benchmark.tasks import list_tasks, load_task


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "tasks",
        help="list tasks or show a task card",
        description="List the available tasks, show one task's card and table sizes, or export tasks for lm-eval.",
        examples=[
            "benchmark tasks",
            "benchmark tasks show webtrack-2009-2012",
            "benchmark tasks export-lm-eval --out lm_eval_tasks/",
            "lm_eval --include_path lm_eval_tasks/ --tasks groundcover_webtrack-2009-2012 --log_samples ...",
        ],
    )
    p.add_argument("action", nargs="?", choices=["list", "show", "export-lm-eval"], default="list")
    p.add_argument("task", nargs="?", help="task id (for show)")
    p.add_argument("--out", default="lm_eval_tasks", help="output directory for export-lm-eval")
    p.add_argument("--tasks", help="comma-separated task ids to export (default: all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.action == "show":
        if not args.task:
            console.print("error: `benchmark tasks show TASK` needs a task id")
            return 2
        task = load_task(args.task)
        console.print_json(task.card.model_dump_json())
        table = Table(title=f"{task.id} tables")
        table.add_column("table")
        table.add_column("rows", justify="right")
        for name in task.card.data.tables:
            table.add_row(name, str(len(task.table(name))))
        console.print(table)
        console.print(f"data fingerprint: {task.data_fingerprint}")
        return 0
    if args.action == "export-lm-eval":
        from benchmark.lm_eval_export import export_tasks

        ids = args.tasks.split(",") if args.tasks else None
        for path in export_tasks(args.out, ids):
            console.print(f"wrote {path}")
        return 0
    table = Table(title="groundcover tasks")
    for col in ("id", "version", "metrics", "corpus", "licence"):
        table.add_column(col)
    for card in list_tasks():
        table.add_row(
            card.id,
            card.version,
            ",".join(card.metrics),
            card.corpus.label or card.corpus.kind,
            card.license[:40],
        )
    console.print(table)
    return 0
