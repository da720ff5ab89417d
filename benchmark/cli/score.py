"""``benchmark score``: score an existing outputs file without generating."""

from __future__ import annotations

import argparse

from benchmark.api.answers import answer_jobs, answers_job, read_answers, resolve_task, submission_jobs
from benchmark.api.submission import validate_submission
from benchmark.cli import add_command, usage_error
from benchmark.cli.common import add_scoring_args, score_answers, task_list


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "score",
        description=(
            "Score answers that already exist: a groundcover outputs JSONL (what `benchmark evaluate` "
            "and submissions contain) or lm-eval's `--log_samples` files."
        ),
        examples=[
            "benchmark score --outputs outputs/org__model/webtrack-2009-2012.jsonl --tasks webtrack-2009-2012",
            "benchmark score --outputs lm_eval_out/org__model/samples_groundcover_webtrack-2009-2012_*.jsonl \\",
            "    --tasks webtrack-2009-2012 --judge-profile paper-deberta-llama",
            "benchmark score --submission submissions/org__model   # validates first, scores every task",
            "benchmark score --trec-rag-run run.jsonl --tasks trec-rag24 --corpus segments.jsonl.gz \\",
            "    --metrics attribution,nuggets --nuggets nuggets.jsonl   # a TREC RAG 2024/2025 run file as it is",
        ],
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--outputs", nargs="+", help="outputs file(s), one per task, in the order of --tasks")
    src.add_argument(
        "--submission", help="a submission folder: validated as a whole, then every task in it is scored"
    )
    src.add_argument(
        "--trec-rag-run",
        metavar="FILE",
        help="a TREC RAG run file (2024 or 2025 track format: JSON lines with references and answer "
        "sentences with citations; .jsonl or .jsonl.gz), scored on one --tasks task; each run_id in it is "
        "one entry. On trec-rag24 / trec-rag25 it is checked as the track's checker checks it "
        "(docs/conformance.md): its errors refuse the file, its warnings are printed and repeated in the "
        "run summary",
    )
    p.add_argument(
        "--no-truncate",
        action="store_true",
        help="--trec-rag-run: score answers over the track's 400-word limit whole (by default they are "
        "truncated at a sentence boundary as the track's checker does before assessment)",
    )
    p.add_argument(
        "--trec-rag-strict",
        action="store_true",
        help="--trec-rag-run: refuse every file the track's checker refuses, and what the track forbids: "
        "groundcover otherwise reads, with a warning, a compressed file, a byte-order mark, blank lines, "
        "whitespace around ids, several run ids and over 100 references in 2025 (docs/conformance.md)",
    )
    p.add_argument(
        "--tasks", nargs="+", help="task ids, one per outputs file (with --outputs), commas or spaces"
    )
    p.add_argument("--model-name", help="model id to record when the outputs file does not say")
    add_scoring_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (args.no_truncate or args.trec_rag_strict) and not args.trec_rag_run:
        flag = "--no-truncate" if args.no_truncate else "--trec-rag-strict"
        raise usage_error("applies to --trec-rag-run only", flag)
    if args.submission:
        score_answers(args, submission_jobs(validate_submission(args.submission)))
        return 0
    if args.trec_rag_run:
        return _score_trec_rag_run(args)
    if not args.tasks:
        raise usage_error("--outputs needs --tasks (one task per file)", "--tasks")
    task_ids = task_list(args.tasks)
    if len(task_ids) != len(args.outputs):
        raise usage_error(
            f"{len(args.outputs)} outputs file(s) for {len(task_ids)} task(s); give one per task", "--tasks"
        )
    jobs = [
        answers_job(path, resolve_task(task_id), model_name=args.model_name)
        for task_id, path in zip(task_ids, args.outputs, strict=True)
    ]
    score_answers(args, jobs)
    return 0


def _score_trec_rag_run(args: argparse.Namespace) -> int:
    """A TREC RAG run file as it is, its warnings printed as read and again after the scores."""
    from rich.console import Console

    task_ids = task_list(args.tasks or [])
    if len(task_ids) != 1:
        raise usage_error("--trec-rag-run needs exactly one task (--tasks trec-rag24)", "--tasks")
    sets = read_answers(
        args.trec_rag_run,
        resolve_task(task_ids[0]),
        trec_rag_run=True,
        truncate=not args.no_truncate,
        strict=args.trec_rag_strict,
        own_corpus=bool(getattr(args, "corpus", None) or getattr(args, "lucene_index", None)),
    )
    console = Console(stderr=True)
    for found in sets:
        _print_warnings(console, found.run, "read")
    score_answers(args, answer_jobs(sets))
    for found in sets:
        _print_warnings(console, found.run, "summary")
    return 0


def _print_warnings(console: object, run: object, when: str) -> None:
    """A run's warnings: each one as it is read, then (``summary``) counted again after the
    scores, with what truncation cut and which answers were empty."""
    from rich.markup import escape

    from benchmark.api.answers import WORD_LIMIT
    from benchmark.core.errors import printable

    say = console.print  # type: ignore[attr-defined]
    if when == "read":
        for w in run.warnings:
            say(f"[yellow]warning[/]: {escape(str(w))}")
        return
    facts = run.facts()
    head = f"TREC RAG run {escape(printable(run.run_id))} ({escape(run.path)}): {len(run.topics)} answer(s)"
    say(f"[bold]{head}[/], {len(run.warnings)} warning(s)")
    if facts["answers_over_limit"]:
        if run.truncated:
            say(
                f"  truncated: {facts['answers_truncated']} answer(s) over {WORD_LIMIT} words, "
                f"{facts['words_cut']} words cut at sentence boundaries (--no-truncate scores them whole)"
            )
        else:
            say(
                f"  not truncated (--no-truncate): {facts['answers_over_limit']} answer(s) over {WORD_LIMIT} words"
            )
    if facts["empty_answers"]:
        say(
            f"  empty answers (scored as saying nothing): {len(facts['empty_answers'])} "
            f"(topics {escape(printable(', '.join(facts['empty_answers'][:10])))})"
        )
    grouped: dict[str, list[str]] = {}  # the same warning on several lines is said once
    for w in run.warnings:
        key = f"{w.field}: {w.message}" if w.field else w.message
        grouped.setdefault(key, []).append(str(w.line) if w.line is not None else "-")
    for msg, lines in grouped.items():
        shown = ", ".join(lines[:8]) + (", …" if len(lines) > 8 else "")
        say(f"  [yellow]warning[/] ×{len(lines)} (line {escape(shown)}): {escape(printable(msg))}")
