"""``benchmark exam``: draft a question bank, and exchange banks and grades with EXAM++; each
action is described in its ``--help``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.core.errors import InputError, rel
from benchmark.core.paths import check_writable_file
from benchmark.families.command_context import CommandContext, judge_stack, store_table
from benchmark.families.exam.formulas import DEFAULT_MIN_RATING, RANK_CUTOFF
from benchmark.models.profiles import DEFAULT_PROFILE


def register(sub: argparse._SubParsersAction, context: CommandContext) -> None:
    p = context.add_command(
        sub,
        "exam",
        help="draft an EXAM question bank; exchange banks and grades with EXAM++",
        description=(
            "generate: draft multiple-choice exam questions from each query's aspects with the judge LLM "
            "(prompt exam-generate), written as an EXAM++ question bank (JSONL, .gz allowed) whose questions "
            "are marked as generated; score answers on it with `benchmark score --metrics exam --exam-bank FILE`. "
            "export-bank: a task's own exam in EXAM++'s question-bank format. export-grades: EXAM result "
            "traces as EXAM++ graded paragraphs. score-grades: EXAM per system from an EXAM++ graded-paragraph "
            "file, computed as EXAM++ does, for each of the file's graders in turn (or the one --grader names; "
            "graders are never merged): a question counts when a paragraph in the system's top --rank-cutoff "
            "(20) has a self-rating reaching --min-rating, or, for a grader that does not self-rate, when the "
            "grader marked it correct; every judged passage (a relevance grade; ranked by a system or not) is "
            "compared with its relevance label, as EXAM++'s qrels mode validates its grader."
        ),
        examples=[
            "benchmark exam generate --task webtrack-2013-2014 --limit 5 --out bank.jsonl.gz",
            "benchmark exam export-bank --task webtrack-2009-2012 --out webtrack-bank.jsonl.gz",
            "benchmark exam export-grades --results results --out grades.jsonl.gz",
            "benchmark exam score-grades --grades grades.jsonl.gz --task webtrack-2009-2012",
            "benchmark exam score-grades --grades dl19-graded.jsonl.gz --grader google/flan-t5-large --relevant-from 2",
        ],
    )
    p.add_argument("action", choices=["generate", "export-bank", "export-grades", "score-grades"])
    p.add_argument(
        "--task", help="task id (generate, export-bank; score-grades: its exam is the denominator)"
    )
    p.add_argument("--out", help="file to write (.jsonl or .jsonl.gz)")
    p.add_argument("--limit", type=int, help="generate: only the first N queries")
    p.add_argument("--per-aspect", type=int, default=2, help="generate: questions per aspect (default 2)")
    p.add_argument(
        "--judge-profile", default=DEFAULT_PROFILE, help=f"generate: the LLM's profile ({DEFAULT_PROFILE})"
    )
    p.add_argument("--results", default="results", help="export-grades: a results folder or EXAM result file")
    p.add_argument("--grades", help="score-grades: an EXAM++ graded-paragraph file")
    p.add_argument(
        "--exam-bank", help="score-grades: an EXAM++ bank as the denominator instead of the task's"
    )
    p.add_argument(
        "--min-rating",
        type=_min_rating,
        default=DEFAULT_MIN_RATING,
        help=f"score-grades: least self-rating that answers ({DEFAULT_MIN_RATING}, as --exam-min-rating) for a "
        "grader that self-rates; 'none' counts every grader's correctAnswered (EXAM++ without --use-ratings)",
    )
    p.add_argument(
        "--grader",
        help="score-grades: the file's grader to report (its name as printed, or words of it that fit no other "
        "grader: a model, a prompt class, a question set); default: each grader, one after another, never merged",
    )
    p.add_argument(
        "--rank-cutoff",
        type=int,
        default=RANK_CUTOFF,
        help=f"score-grades: a system's paragraphs ranked deeper than this count for no EXAM ({RANK_CUTOFF}, "
        "EXAM++'s default)",
    )
    p.add_argument(
        "--relevant-from",
        type=int,
        default=1,
        help="score-grades: least relevance grade of a relevant judged passage (1, as EXAM++'s "
        "--min-relevant-judgment; 2 for TREC DL)",
    )
    p.add_argument(
        "--skip-unranked-queries",
        action="store_true",
        help="score-grades: average a system over the queries it ranked a paragraph for (EXAM++'s way); "
        "default: a query it ranked nothing for counts 0",
    )
    p.add_argument(
        "--write-task",
        action="store_true",
        help="generate: also store the bank as --task's exam_questions table; the card records how it was "
        "generated and gets a new patch version",
    )
    p.set_defaults(func=partial(run, context))


def run(context: CommandContext, args: argparse.Namespace) -> int:
    if args.out:  # checked before any model loads or any file is read
        check_writable_file(args.out, "--out")
    return {
        "generate": generate,
        "export-bank": export_bank,
        "export-grades": export_grades,
        "score-grades": score_grades,
    }[args.action](context, args)


def export_bank(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.exam.bank import task_bank
    from benchmark.families.exam.exampp import write_bank
    from benchmark.tasks import load_task

    context.require(args, "exam", "task", "out")
    task = load_task(args.task)
    bank = task_bank(task)
    if not bank:
        raise InputError.at(task.where(), "the task has no exam_questions table", field="data.tables")
    texts = task.query_texts()
    path = write_bank(bank, texts, Path(args.out), test_collection=f"{task.id}@{task.card.version}")
    Console(stderr=True).print(
        f"wrote {path}: {sum(map(len, bank.values()))} questions for {len(bank)} queries"
    )
    return 0


def export_grades(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.core.results import family_results, read_traces
    from benchmark.families.exam.exampp import write_grades
    from benchmark.families.exam.family import EXAM

    context.require(args, "exam", "out")
    root = Path(args.results)
    systems: dict[str, list[dict[str, object]]] = {}
    for path, result in family_results(root, EXAM.id):
        systems.setdefault(result.model.label, []).extend(read_traces(path))
    if not systems:
        raise InputError.at(rel(root), "holds no EXAM results", field="--results")
    out = write_grades(systems, Path(args.out))
    Console(stderr=True).print(f"wrote {out}: {len(systems)} system(s)")
    return 0


def _min_rating(value: str) -> int | None:
    return None if value.lower() == "none" else int(value)


def score_grades(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.exam.bank import task_bank
    from benchmark.families.exam.exampp import choose_graders, read_bank, read_grades
    from benchmark.tasks import load_task

    context.require(args, "exam", "grades")
    if args.rank_cutoff < 1:
        raise InputError.at("--rank-cutoff", "must be 1 or more")
    bank = (
        read_bank(Path(args.exam_bank))
        if args.exam_bank
        else (task_bank(load_task(args.task)) if args.task else None)
    )
    source = Path(args.grades)
    paragraphs = read_grades(source)
    chosen = choose_graders(paragraphs, args.grader, rel(source))
    console = Console()
    console.print(
        Text(
            f"Grades reported: those stored in {source.name} by its grader"
            f"{'s' if len(chosen) != 1 else ''} ({'; '.join(chosen) or 'none'}), read as they are — not "
            "groundcover's answerer, which reads no passage here (`benchmark judge-card --exam-grades` "
            "measures that)."
        )
    )
    report = {g: got for g in chosen if (got := _grader_report(context, args, paragraphs, g, bank, console))}
    if not report:
        raise InputError.at(
            rel(source), "holds neither graded system paragraphs nor graded judged passages", field="--grades"
        )
    if args.out:
        out = {
            "grades": source.name,
            "rank_cutoff": args.rank_cutoff,
            "relevant_from": args.relevant_from,
            "skip_unranked_queries": args.skip_unranked_queries,
            "graders": report,
        }
        Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True), encoding="utf-8")
    return 0


def _grader_report(
    context: CommandContext,
    args: argparse.Namespace,
    paragraphs: Any,
    grader: str,
    bank: Any,
    console: Console,
) -> dict[str, Any] | None:
    """One grader's EXAM per system and qrels-mode agreement, printed and returned."""
    from benchmark.families.exam.exampp import counted, counting, exam_from_grades, judged_passages

    source = Path(args.grades)
    rule = counted(counting(paragraphs, grader, args.min_rating))
    per_system = exam_from_grades(
        paragraphs, grader, bank, min_rating=args.min_rating, rank_cutoff=args.rank_cutoff
    )
    if args.skip_unranked_queries:  # EXAM++: a system's mean is over the queries it ranked
        scores = per_system
    else:  # a query a system ranked nothing for counts 0, as EXAM counts a skipped query
        queries = sorted(bank) if bank else sorted({q for s in per_system.values() for q in s})
        scores = {system: {q: per.get(q, 0.0) for q in queries} for system, per in per_system.items()}
    if scores:
        console.print(
            context.systems_table(
                f"EXAM from {source.name}, graded by {grader} (the file's grader, not groundcover's "
                f"answerer; counted: {rule}; each system's top {args.rank_cutoff})",
                scores,
                seed=0,
            )
        )
    agreement = context.answerability_vs_relevance(
        [
            context.judged_passage(p.query_id, answered, p.relevance or 0, p.text)
            for p, answered in judged_passages(paragraphs, grader, args.min_rating)
        ],
        relevant_at=args.relevant_from,
    )
    if agreement is not None:
        console.print(agreement_table(agreement, grader, rule, args.relevant_from))
    if not scores and agreement is None:
        return None
    return {
        "graded_by": f"the file's grader ({grader}), not groundcover's answerer",
        "counted": rule,
        "exam": scores,
        **({"qrels_mode": asdict(agreement)} if agreement is not None else {}),
    }


def agreement_table(a: Any, grader: str, counted: str, relevant_from: int) -> Table:
    """EXAM++'s qrels mode as a table, next to the trivial baselines."""
    table = Table(
        title=Text(
            f"Answerability vs relevance (EXAM++ qrels mode), graded by {grader} (the file's grader; "
            f"counted: {counted}): "
            f"{a.passages} judged passages, ranked by a system or not, {a.queries} queries, "
            f"{a.relevant} relevant (grade ≥ {relevant_from})"
        )
    )
    for col in ("measure", "Spearman ρ", "Kendall τ", "Cohen κ", "accuracy"):
        table.add_column(col, justify="left" if col == "measure" else "right")

    def num(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"

    table.add_row(
        "questions answered", num(a.answered.spearman), num(a.answered.kendall), num(a.kappa), num(a.accuracy)
    )
    table.add_row("baseline: passage length", num(a.length.spearman), num(a.length.kendall), "—", "—")
    table.add_row("baseline: majority class", "—", "—", "0.000", num(a.majority))
    return table


def generate(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.exam.exampp import write_bank
    from benchmark.families.exam.generate import draft_bank
    from benchmark.tasks import load_task

    context.require(args, "exam", "task", "out")
    task = load_task(args.task)
    if not task.has_table("aspects"):
        raise InputError.at(
            task.where(), "exam generate drafts from aspects: the task has none", field="data.tables"
        )
    judges = judge_stack(args.judge_profile)
    queries = task.queries(limit=args.limit)
    bank, failures = draft_bank(
        judges.llm,
        queries,
        task.table("aspects"),
        per_aspect=args.per_aspect,
        max_retries=judges.profile.llm.max_retries,
    )
    texts = dict(zip(queries["query_id"].astype(str), queries["text"].astype(str), strict=True))
    path = write_bank(
        bank, texts, Path(args.out), test_collection=f"{task.id}@{task.card.version} (generated)"
    )
    console = Console(stderr=True)
    console.print(f"wrote {path}: {sum(map(len, bank.values()))} generated questions for {len(bank)} queries")
    if args.write_task:
        import pandas as pd

        rows = pd.DataFrame([{**vars(q), "options": list(q.options)} for qs in bank.values() for q in qs])
        made = next(iter({q.provenance for qs in bank.values() for q in qs}), "generated")
        note = f"exam_questions: {len(rows)} questions {made}."
        console.print(store_table(task, "exam_questions", rows, note, "benchmark exam generate --write-task"))
    for f in failures:
        console.print(f"failed: {f}")
    return 0
