"""``benchmark score``: score an existing outputs file without generating."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from benchmark.cli import add_command
from benchmark.cli.common import Job, add_scoring_args, score_answers
from benchmark.cli.evaluate import task_list
from benchmark.core.errors import InputError, Problem
from benchmark.tasks import load_task

if TYPE_CHECKING:
    from benchmark.board.submissions import Submission
    from benchmark.scoring.dry_run import DryRun


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "score",
        help="score existing outputs (groundcover JSONL or lm-eval sample logs)",
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
        help="--trec-rag-run: refuse what groundcover reads but the track's checker refuses or the track "
        "forbids (several run ids in one file, a byte-order mark, over 100 references in 2025)",
    )
    p.add_argument(
        "--tasks", nargs="+", help="task ids, one per outputs file (with --outputs), commas or spaces"
    )
    p.add_argument("--model-name", help="model id to record when the outputs file does not say")
    add_scoring_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.generation.outputs import answers_and_model

    if (args.no_truncate or args.trec_rag_strict) and not args.trec_rag_run:
        flag = "--no-truncate" if args.no_truncate else "--trec-rag-strict"
        raise InputError(Problem("command line", "applies to --trec-rag-run only", field=flag))
    if args.submission:
        return _score_submission(args)
    if args.trec_rag_run:
        return _score_trec_rag_run(args)
    if not args.tasks:
        raise InputError(
            Problem("command line", "--outputs needs --tasks (one task per file)", field="--tasks")
        )
    task_ids = task_list(args.tasks)
    if len(task_ids) != len(args.outputs):
        raise InputError(
            Problem(
                "command line",
                f"{len(args.outputs)} outputs file(s) for {len(task_ids)} task(s); give one per task",
                field="--tasks",
            )
        )
    jobs = []
    for task_id, path in zip(task_ids, args.outputs, strict=True):
        task = load_task(task_id)
        answers, model, evidence = answers_and_model(path, task, model_name=args.model_name)
        jobs.append((task, answers, model, evidence))
    score_answers(args, jobs)
    return 0


def _score_submission(args: argparse.Namespace) -> int:
    """Score a submission the way the submission workflow does: all or nothing."""
    from benchmark.board.submissions import validate_submission

    score_answers(args, submission_jobs(validate_submission(args.submission)))
    return 0


def submission_jobs(sub: Submission) -> list[Job]:
    """A validated submission as scoring jobs, one per task: what ``score --submission``
    scores and what ``validate --budget`` plans, so the two cannot differ."""
    from benchmark.core.results import ModelInfo
    from benchmark.generation.outputs import evidence_of

    model = ModelInfo(
        id=sub.card.model_id,
        revision=sub.card.revision,
        backend="submission",
        generation=sub.card.generation,
        rag=sub.card.rag,
    )
    return [
        (load_task(task_id), {r.query_id: r.answer for r in rows}, model, evidence_of(rows))
        for task_id, rows in sorted(sub.outputs.items())
    ]


def plan_submission(sub: Submission, judge_profile: str) -> DryRun:
    """What scoring ``sub`` with ``judge_profile`` will ask, as ``score --submission … --dry-run``
    counts it, with the scoring flags at their defaults (as the workflow scores) and no
    checkpoint to skip: nothing is computed and no result is written."""
    import tempfile
    from pathlib import Path

    from benchmark.cli.common import plan, run_options, scoring_inputs
    from benchmark.scoring import run
    from benchmark.scoring.dry_run import plan_jobs, planning_stack

    parser = argparse.ArgumentParser(add_help=False)
    add_scoring_args(parser, ray=False, dry_run=False)
    jobs = submission_jobs(sub)
    with tempfile.TemporaryDirectory(prefix="groundcover-plan-") as results:
        args = parser.parse_args(
            ["--judge-profile", judge_profile, "--results-dir", results, "--no-progress"]
        )
        profile, chosen = plan(args, [task for task, *_ in jobs])
        return plan_jobs(
            [
                run.Job(task, answers, model, evidence, chosen[task.id])
                for task, answers, model, evidence in jobs
            ],
            planning_stack(profile),
            results_root=Path(results),
            inputs=scoring_inputs(args),
            options=run_options(args),
        )


def _score_trec_rag_run(args: argparse.Namespace) -> int:
    """Score a TREC RAG run file as it is: one entry per run id, the run's own sentence
    split and citations kept, its references as the evidence each answer was given; on
    trec-rag24 / trec-rag25 checked under that year's rules, over-long answers truncated as
    the track truncates them (``--no-truncate``: whole)."""
    from rich.console import Console

    from benchmark.core.results import ModelInfo, RAGSetting
    from benchmark.generation.trec_rag_run import TASK_YEARS, read_trec_rag_run

    task_ids = task_list(args.tasks or [])
    if len(task_ids) != 1:
        raise InputError(
            Problem(
                "command line", "--trec-rag-run needs exactly one task (--tasks trec-rag24)", field="--tasks"
            )
        )
    task = load_task(task_ids[0])
    year = TASK_YEARS.get(task.id)
    truncate = not args.no_truncate
    runs = read_trec_rag_run(
        args.trec_rag_run,
        year=year,
        topics=task.query_texts(),
        truncate=truncate,
        strict=args.trec_rag_strict,
    )
    console = Console(stderr=True)
    for run in runs:
        _print_warnings(console, run, "read")
    corpus = task.card.corpus.label or ("user corpus" if args.corpus or args.lucene_index else "unknown")
    jobs, split = [], []
    for run in runs:
        model = ModelInfo(
            id=f"{run.team_id}/{run.run_id}" if run.team_id else run.run_id,
            # truncated and whole answers are two entries, never mixed in one result
            revision="run" if truncate or year is None else "run-untruncated",
            backend="trec-rag-run",
            generation=run.facts() | {"rules": f"TREC RAG {year}" if year else "format only"},
            rag=RAGSetting(
                retriever="run", k=max(1, min(run.depth, 100)), prompt="(the run's own)", corpus=corpus
            ),
        )
        answers = {q: t.answer for q, t in run.topics.items()}
        evidence = {q: t.references for q, t in run.topics.items()}
        jobs.append((task, answers, model, evidence))
        split.append({q: t.sentences for q, t in run.topics.items()})
    score_answers(args, jobs, split=split)
    for run in runs:
        _print_warnings(console, run, "summary")
    return 0


def _print_warnings(console: object, run: object, when: str) -> None:
    """A run's warnings: each one as it is read, then (``summary``) counted again after the
    scores, with what truncation cut and which answers were empty."""
    from rich.markup import escape

    from benchmark.core.errors import printable
    from benchmark.generation.trec_rag_run import WORD_LIMIT, TrecRagRun

    assert isinstance(run, TrecRagRun)
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
