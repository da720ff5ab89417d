"""``benchmark nuggets``: exchange nugget and assignment files with castorini's nuggetizer, score
an assignment file, generate nuggets; each action is described in its ``--help``.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.paths import check_writable, check_writable_file
from benchmark.families.command_context import CommandContext, judge_stack, store_table
from benchmark.families.nuggets.family import NuggetsSettings
from benchmark.models.profiles import DEFAULT_PROFILE


def register(sub: argparse._SubParsersAction, context: CommandContext) -> None:
    p = context.add_command(
        sub,
        "nuggets",
        help="exchange nugget and assignment files with nuggetizer; score an assignment file",
        description=(
            "export-nuggets: a task's nuggets as a nuggetizer nugget file (JSON lines: qid, query, nuggets "
            "[{text, importance}]). export-assignments: nugget result traces as a nuggetizer assignment file "
            "(qid, answer_text, run_id, nuggets [{text, importance, assignment}]). score-assignments: the "
            "TREC RAG track's four scores (vital/all, strict/partial) per run of an assignment file. To score "
            "answers against nuggets from nuggetizer or assessors: benchmark score --metrics nuggets --nuggets FILE."
        ),
        examples=[
            "benchmark nuggets export-nuggets --task webtrack-2009-2012 --out nuggets.jsonl",
            "benchmark nuggets export-assignments --results results --out assignments.jsonl",
            "benchmark nuggets export-assignments --results results --per-run --out assignments/  # a file per run",
            "benchmark nuggets score-assignments --assignments assignments.jsonl",
        ],
    )
    p.add_argument(
        "action", choices=["generate", "export-nuggets", "export-assignments", "score-assignments"]
    )
    p.add_argument("--task", help="generate, export-nuggets: task id")
    p.add_argument(
        "--candidates",
        help="generate: relevant passages per topic in nuggetizer's create-input format (JSON lines: query "
        "{qid, text}, candidates [{docid, doc {segment}}]) instead of the task's qrels and corpus",
    )
    p.add_argument(
        "--judgment-above",
        type=_threshold,
        default=0.0,
        metavar="GRADE",
        help="generate --candidates: keep the candidates judged above GRADE (default 0: judgment > 0, as "
        "nuggetizer's creation); 'none' keeps every candidate, judged or not",
    )
    p.add_argument("--limit", type=int, help="generate: only the first N topics")
    p.add_argument("--window", type=int, default=10, help="generate: passages per creation request (10)")
    p.add_argument("--max-nuggets", type=int, default=30, help="generate: nuggets per topic at most (30)")
    p.add_argument(
        "--write-task", action="store_true", help="generate: also store them as --task's nuggets table"
    )
    p.add_argument(
        "--judge-profile", default=DEFAULT_PROFILE, help=f"generate: the LLM's profile ({DEFAULT_PROFILE})"
    )
    p.add_argument("--out", help="file to write (JSON lines)")
    p.add_argument("--results", default="results", help="export-assignments: a results folder or result file")
    p.add_argument("--assignments", help="score-assignments: a nuggetizer assignment file")
    context.add_settings(p, NuggetsSettings, only=("nuggetizer_compatible",))  # as `benchmark score`
    p.add_argument(
        "--per-run",
        action="store_true",
        help="export-assignments: one file per run (--out is then a folder: <run_id>.jsonl in it)",
    )
    p.set_defaults(func=partial(run, context))


def _threshold(value: str) -> float | None:
    if value.strip().lower() == "none":
        return None
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number or 'none', not {value!r}") from None


def run(context: CommandContext, args: argparse.Namespace) -> int:
    if args.out and getattr(args, "per_run", False) and args.action == "export-assignments":
        check_writable(args.out, "--out")  # a folder, one file per run in it
    elif args.out:  # checked before any model loads or any file is read
        check_writable_file(args.out, "--out")
    return {
        "generate": generate,
        "export-nuggets": export_nuggets,
        "export-assignments": export_assignments,
        "score-assignments": score_assignments,
    }[args.action](context, args)


def export_nuggets(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.nuggets.nuggetizer_files import write_nuggets
    from benchmark.families.nuggets.pipeline import task_nuggets
    from benchmark.tasks import load_task

    context.require(args, "nuggets", "task", "out")
    task = load_task(args.task)
    if not task.has_table("nuggets"):
        raise InputError.at(task.where(), "the task has no nuggets table", field="data.tables")
    nuggets = task_nuggets(task)
    texts = task.query_texts()
    path = write_nuggets(nuggets, texts, Path(args.out))
    Console(stderr=True).print(
        f"wrote {path}: {sum(map(len, nuggets.values()))} nuggets for {len(nuggets)} queries"
    )
    return 0


def export_assignments(context: CommandContext, args: argparse.Namespace) -> int:
    """Nugget traces as nuggetizer assignment files.  A TREC RAG run file's answers carry the
    run's own ``run_id`` and the answer text as the run gave it (its sentences joined by a
    space, no citation markers); ``--per-run`` writes one file per run."""
    from benchmark.core.results import family_results, read_traces
    from benchmark.families.nuggets.family import NUGGETS
    from benchmark.families.nuggets.nuggetizer_files import Assigned, Nugget, write_assignments

    context.require(args, "nuggets", "out")
    root = Path(args.results)
    assigned: dict[str, list[Assigned]] = {}
    queries: dict[str, str] = {}
    skipped = 0
    for path, result in family_results(root, NUGGETS.id):
        gen = result.model.generation
        trec = result.model.backend == "trec-rag-run" and isinstance(gen.get("run_id"), str)
        run_id = str(gen["run_id"]) if trec else result.model.label
        for t in read_traces(path):
            nuggets = t.get("nuggets", [])
            if any(n.get("assignment") is None for n in nuggets) or (not nuggets and t.get("failures")):
                skipped += 1  # a failed judgement is not written as a label nuggetizer would count
                continue  # (an empty nugget list is written: nuggetizer writes its line too)
            queries[t["query_id"]] = t.get("query", "")
            assigned.setdefault(run_id, []).append(
                Assigned(
                    t["query_id"],
                    run_id,
                    t.get("answer", ""),
                    tuple(Nugget(t["query_id"], n["nugget_id"], n["text"], n["importance"]) for n in nuggets),
                    tuple(n["assignment"] for n in nuggets),
                )
            )
    if not assigned:
        raise InputError.at(rel(root), "holds no nugget results with judged nuggets", field="--results")
    note = f"; {skipped} answer(s) with a failed judgement left out" if skipped else ""
    console = Console(stderr=True)
    if not getattr(args, "per_run", False):
        everything = [a for rows in assigned.values() for a in rows]
        out = write_assignments(everything, queries, Path(args.out))
        console.print(f"wrote {escape(str(out))}: {len(everything)} judged answers{note}")
        return 0
    folder, names = Path(args.out), run_file_names(list(assigned))
    for run_id, rows in assigned.items():
        out = write_assignments(rows, queries, folder / names[run_id])
        console.print(f"wrote {escape(str(out))}: run {escape(run_id)}, {len(rows)} judged answers")
    if note:
        console.print(note[2:])
    return 0


def run_file_names(run_ids: list[str]) -> dict[str, str]:
    """A file name per run id: the id with anything but letters, digits, ``.``, ``_`` and
    ``-`` made ``_``, told apart by a number where two come out alike."""
    import re

    out: dict[str, str] = {}
    taken: set[str] = set()
    for run_id in run_ids:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", run_id).strip(".") or "run"
        name, k = f"{stem}.jsonl", 2
        while name.lower() in taken:
            name, k = f"{stem}-{k}.jsonl", k + 1
        taken.add(name.lower())
        out[run_id] = name
    return out


def score_assignments(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.nuggets import formulas
    from benchmark.families.nuggets.nuggetizer_files import read_assignments
    from benchmark.families.nuggets.nuggetizer_files import score_assignments as score

    context.require(args, "nuggets", "assignments")
    compatible = bool(getattr(args, "nuggetizer_compatible", False))
    assigned = read_assignments(args.assignments, nuggetizer_compatible=compatible)
    per_run = score(assigned, compatible=compatible)
    console = Console()
    if compatible:
        console.print(
            "nuggetizer-compatible: the numbers of nuggetizer's calculate_metrics.py (0 where a topic has no "
            "vital nugget or none; 'failed' counted as not supported / okay; every line a record)"
        )
    for key in formulas.SCORES:
        scores = {
            run: {q: s[key] for q, s in r.records.items() if s[key] is not None} for run, r in per_run.items()
        }
        console.print(context.systems_table(key, {r: s for r, s in scores.items() if s}, seed=0))
        for run, r in per_run.items():
            if failed := r.failed(key):
                console.print(f"{key} · {run}: {failed} answer(s) undetermined by a failed judgement (not 0)")
    if empty := sorted({a.query_id for a in assigned if not a.nuggets}):
        how = "scored 0, as nuggetizer does" if compatible else "their answers have no score (not failures)"
        console.print(
            f"{len(empty)} topic(s) with an empty nugget list ({', '.join(empty[:10])}"
            f"{', …' if len(empty) > 10 else ''}): a problem of the nugget file — {how}"
        )
    failed_labels = sum(lab == formulas.FAILED for a in assigned for lab in a.labels)
    failed_importance = sum(n.importance == formulas.FAILED for a in assigned for n in a.nuggets)
    if failed_labels or failed_importance:
        how = "counted as nuggetizer counts them" if compatible else "each a failure of its answer"
        console.print(
            f"nuggetizer's failed judgements: {failed_labels} assignment(s), {failed_importance} importance "
            f"label(s) — {how}"
        )
    return 0


def relevant_passages(task, limit: int | None = None) -> list[tuple[str, str, list[str]]]:  # type: ignore[no-untyped-def]
    """Per topic, its text and its relevant documents' texts (grade ≥ 1), in the corpus's order."""
    from benchmark.families.attribution.pipeline import relevant_documents

    if not (task.has_table("qrels") and task.has_table("corpus")):
        raise InputError.at(
            task.where(),
            "needs qrels and a corpus table to find relevant passages; or pass --candidates FILE",
            field="data.tables",
        )
    corpus = task.table("corpus")
    texts = dict(zip(corpus["doc_id"].astype(str), corpus["text"].astype(str), strict=True))
    relevant = relevant_documents(task) or {}
    wanted = {q: found for q, docs in relevant.items() if (found := docs & texts.keys())}
    queries = task.query_texts()
    order = [q for q in task.quick_order() if q in wanted][:limit]
    return [(q, queries[q], [texts[d] for d in texts if d in wanted[q]]) for q in order]


def read_candidates(
    path: Path, limit: int | None = None, above: float | None = 0.0
) -> list[tuple[str, str, list[str]]]:
    """nuggetizer's create input: per line a query {qid, text} and its candidates; as nuggetizer,
    only those judged above ``above`` count (``None``: all)."""
    from benchmark.core.untrusted import read_rows

    out, problems = [], []

    def bad(n: int, message: str, field: str) -> None:
        problems.append(Problem(rel(path), message, line=n, field=field))

    for n, row in read_rows(path, "--candidates", jsonl=True):
        q = row.get("query") if isinstance(row, dict) else None
        cands = row.get("candidates") if isinstance(row, dict) else None
        if not isinstance(q, dict) or not q.get("qid") or not isinstance(q.get("text"), str):
            bad(n, "needs query {qid, text}", "query")
            continue
        if not isinstance(cands, list):
            bad(n, "must be a list", "candidates")
            continue
        texts = []
        for i, c in enumerate(cands):
            doc = c.get("doc") if isinstance(c, dict) else None
            text = c if isinstance(c, str) else (doc or {}).get("segment")
            if not isinstance(text, str):
                bad(n, "needs doc.segment", f"candidates[{i}]")
                continue
            grade = c.get("judgment") if isinstance(c, dict) else None
            if grade is not None and (isinstance(grade, bool) or not isinstance(grade, int | float)):
                bad(n, f"must be a number, not {grade!r}", f"candidates[{i}].judgment")
                continue
            if above is not None and (grade is None or grade <= above):
                continue  # not judged relevant: nuggetizer's creation reads it not either
            texts.append(text)
        out.append((str(q["qid"]), q["text"], texts))
    if problems:
        raise InputError(problems)
    return out[:limit]


def generate(context: CommandContext, args: argparse.Namespace) -> int:
    import pandas as pd

    from benchmark.families.nuggets.generate import CREATE, IMPORTANCE, generate_nuggets
    from benchmark.families.nuggets.nuggetizer_files import Nugget, write_nuggets
    from benchmark.tasks import load_task

    context.require(args, "nuggets", "out")
    if not (args.task or args.candidates):
        raise InputError.at("--task", "generate needs --task (its qrels and corpus) or --candidates FILE")
    task = load_task(args.task) if args.task else None
    topics = (
        read_candidates(Path(args.candidates), args.limit, getattr(args, "judgment_above", 0.0))
        if args.candidates
        else relevant_passages(task, args.limit)
    )
    judges = judge_stack(args.judge_profile)
    made = generate_nuggets(
        judges.llm, topics, window=args.window, max_nuggets=args.max_nuggets,
        max_retries=judges.profile.llm.max_retries,
    )  # fmt: skip
    provenance = f"generated: {getattr(judges.llm, 'identity', '?')} {CREATE} {IMPORTANCE}"
    nuggets = {
        m.query_id: [
            Nugget(m.query_id, f"{m.query_id}/g{k}", t, imp, provenance)
            for k, (t, imp) in enumerate(zip(m.nuggets, m.importance, strict=True), start=1)
        ]
        for m in made
        if m.nuggets
    }
    texts = {q: text for q, text, _ in topics}
    path = write_nuggets(nuggets, texts, Path(args.out))
    console = Console(stderr=True)
    console.print(
        f"wrote {path}: {sum(map(len, nuggets.values()))} nuggets for {len(nuggets)} of {len(topics)} topics "
        f"({provenance})"
    )
    for m in made:
        for f in m.failures:
            console.print(f"failed, topic {m.query_id}: {f}")
    if args.write_task:
        if task is None:
            raise InputError.at("--write-task", "needs --task")
        rows = pd.DataFrame([vars(x) for xs in nuggets.values() for x in xs])
        note = f"nuggets: {len(rows)} {provenance}."
        console.print(store_table(task, "nuggets", rows, note, "benchmark nuggets generate --write-task"))
    return 0
