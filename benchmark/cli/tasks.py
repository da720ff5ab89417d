"""``benchmark tasks``: list tasks, show a task card, export tasks for lm-eval, make a task from your data."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from benchmark.cli import add_command, usage_error

#: ``tasks new``'s files and card texts: (flag, metavar, help); each is :meth:`Task.from_records`' keyword
NEW_FLAGS = (
    ("--queries", "FILE", "query_id, text (required)"),
    ("--qrels", "FILE", "query_id, doc_id, relevance [, aspect_id]"),
    ("--nuggets", "FILE", "query_id, text, importance (vital / okay)"),
    ("--references", "FILE", "gold articles / reference answers: query_id, text"),
    ("--sub-questions", "FILE", "query_id, text, type (core / background / follow-up)"),
    ("--subtopics", "FILE", "aspects of each query: query_id, text"),
    ("--exam-questions", "FILE", "query_id, question_id, question, kind, answer [, options]"),
    ("--license", "TEXT", "the data's licence (recorded in the card)"),
    ("--source", "TEXT", "where the data comes from"),
    ("--url", "URL", "the source's address"),
    ("--name", "TEXT", "a human-readable name (default: the id)"),
    ("--description", "TEXT", "what the task is"),
    ("--instruction", "TEXT", "what the evaluated model is asked with each query"),
    ("--citation", "BIBTEX", "how to cite the data"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "tasks",
        description="List the available tasks, show one task's card and table sizes, or export tasks for lm-eval.",
        examples=[
            "benchmark tasks",
            "benchmark tasks show webtrack-2009-2012",
            "benchmark tasks card webtrack-2009-2012 --write   # the dataset card that datasets.load_dataset reads",
            "benchmark tasks export-lm-eval --out lm_eval_tasks/            # the scorable queries, closed-book",
            "benchmark tasks export-lm-eval --out lm_eval_tasks/ --rag bm25 # with 5 retrieved passages per prompt",
            "lm_eval --include_path lm_eval_tasks/ --tasks groundcover_webtrack-2009-2012 --log_samples ...",
            "benchmark tasks new my-task --out my-task/ --queries questions.csv --corpus passages.jsonl \\",
            "    --sub-questions subqs.csv --license CC-BY-4.0   # your own data as a task (docs/own-data.md)",
            "benchmark score --outputs answers.jsonl --tasks ./my-task/",
        ],
    )
    p.add_argument(
        "action", nargs="?", choices=["list", "show", "card", "export-lm-eval", "new"], default="list"
    )
    p.add_argument("task", nargs="?", help="task id (for show, card and new)")
    p.add_argument(
        "--out",
        default=None,
        help="export-lm-eval: output directory (default lm_eval_tasks); new: the task folder to write",
    )
    p.add_argument(
        "--write", action="store_true", help="card: write tasks/<id>/README.md instead of printing it"
    )
    p.add_argument("--tasks", help="comma-separated task ids to export (default: all)")
    p.add_argument(
        "--all-queries",
        action="store_true",
        help="export every query, not only those the task's corpus can score (answers to the others "
        "can only be scored with --corpus / --lucene-index)",
    )
    p.add_argument(
        "--rag",
        default="none",
        help="none (default), bm25, dense or hybrid: put retrieved passages in the prompt",
    )
    p.add_argument("--rag-k", type=int, default=5, help="passages per prompt (default 5)")
    p.add_argument(
        "--judge-profile", default=None, help="profile whose chunking (and embedder) RAG retrieval uses"
    )
    p.add_argument(
        "--corpus",
        help="new: the task's corpus table (doc_id, text); export-lm-eval with --rag: retrieve from this "
        "corpus instead of the task's",
    )
    p.add_argument("--lucene-index", help="with --rag: retrieve from this Lucene index")
    new = p.add_argument_group(
        "new: a task from your own files (CSV, TSV, JSON lines or parquet; columns in docs/own-data.md)"
    )
    for flag, metavar, text in NEW_FLAGS:
        new.add_argument(flag, metavar=metavar, help=text)
    new.add_argument(
        "--version", dest="task_version", metavar="X.Y.Z", default="1.0.0", help="the task's version (1.0.0)"
    )
    new.add_argument(
        "--metrics", metavar="A,B", help="the families to list (default: every family the inputs allow)"
    )
    new.add_argument(
        "--main-score",
        metavar="FAMILY=SCORE,...",
        help="the score a family ranks by on this task, e.g. icat=icat_m (default: the family's own)",
    )
    new.add_argument("--force", action="store_true", help="replace an existing task folder at --out")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.api import load_task
    from benchmark.api.tasks import dataset_card, list_tasks, write_dataset_card

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
    if args.action == "card":
        if not args.task:
            raise usage_error("`benchmark tasks card TASK` needs a task id", "task")
        task = load_task(args.task)
        if args.write:
            console.print(f"wrote {write_dataset_card(task)}")
        else:
            print(dataset_card(task.card))
        return 0
    if args.action == "export-lm-eval":
        return _export(args, console)
    if args.action == "new":
        return _new(args, console)
    table = Table(title="groundcover tasks")
    for col in ("id", "version", "metrics", "corpus", "licence"):
        table.add_column(col, no_wrap=col == "id")  # ids are typed back: never cut them
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


def _new(args: argparse.Namespace, console: Console) -> int:
    """`benchmark tasks new ID --out DIR --queries FILE ...`: parse, call the builder, print."""
    from rich.text import Text

    from benchmark.api import Task

    for flag, value in (("task", args.task), ("--out", args.out), ("--queries", args.queries)):
        if not value:
            raise usage_error(f"`benchmark tasks new ID --out DIR --queries FILE` needs {flag}", flag)
    dests = [flag[2:].replace("-", "_") for flag, _, _ in NEW_FLAGS]
    task = Task.from_records(
        args.task,
        out_dir=args.out,
        **{dest: getattr(args, dest) for dest in dests},
        version=args.task_version,
        metrics=[m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None,
        main_score=_pairs(args.main_score, "--main-score"),
        force=args.force,
        script="benchmark tasks new",
    )
    sizes = ", ".join(f"{name} {len(task.table(name))}" for name in task.card.data.tables)
    console.print(Text(f"wrote {task.root} ({sizes}); metric families: {', '.join(task.card.metrics)}"))
    console.print(Text(f"score answers with: benchmark score --outputs FILE --tasks {task.root}"))
    return 0


def _export(args: argparse.Namespace, console: Console) -> int:
    """`benchmark tasks export-lm-eval`, each task's line printed as it is written."""
    from rich.text import Text

    from benchmark.api.tasks import TaskExport, export_lm_eval

    def said(done: TaskExport) -> None:
        if done.skipped is not None:
            console.print(Text(f"skipped {done.task_id}: {done.skipped}"))
            return
        qids, total = done.query_ids, done.total
        scope = "all" if len(qids) == total else f"the {len(qids)} scorable of {total}"
        shown = "" if len(qids) == total else f" ({', '.join(qids[:12])}{' …' if len(qids) > 12 else ''})"
        console.print(Text(f"wrote {done.path}: {scope} queries{shown}"))

    names = ("all_queries", "rag", "rag_k", "judge_profile", "corpus", "lucene_index")
    export_lm_eval(
        args.out or "lm_eval_tasks",
        tasks=[t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None,
        **{name: getattr(args, name) for name in names},
        on_task=said,
    )
    return 0


def _pairs(text: str | None, flag: str) -> dict[str, str]:
    """``a=x,b=y`` as ``{"a": "x", "b": "y"}``."""
    out: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise usage_error(f"{item!r}: give FAMILY=SCORE", flag)
        out[key.strip()] = value.strip()
    return out
