"""``benchmark evaluate``: generate answers with a model (closed-book and/or with retrieval), then score them."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from benchmark.cli import add_command
from benchmark.cli.common import (
    add_scoring_args,
    check_corpus,
    check_outputs,
    scorable_queries,
    score_answers,
)
from benchmark.core.errors import InputError, Problem
from benchmark.core.paths import check_writable
from benchmark.tasks import load_task

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    from benchmark.generation.harness import add_model_args

    p = add_command(
        sub,
        "evaluate",
        help="generate answers with a model and score them",
        description=(
            "Generate answers for each task's queries with a model from lm-eval's registry "
            "(hf, vllm, local-completions, local-chat-completions) or the offline default "
            "`groundcover-offline`, closed-book and/or retrieval-augmented (--rag), then score them "
            "with the judge profile. With several settings (e.g. --rag none,bm25) the runs are ranked "
            "against each other at the end. Generation and scoring checkpoint per query: re-run the "
            "same command to resume."
        ),
        examples=[
            "benchmark evaluate --model groundcover-offline --tasks webtrack-2009-2012 --rag none,bm25",
            "benchmark evaluate --model hf --model-args pretrained=Qwen/Qwen2.5-1.5B-Instruct --tasks webtrack-2009-2012",
            "benchmark evaluate --model local-chat-completions --rag bm25 --rag-k 5 \\",
            "    --model-args model=meta-llama/Llama-3.1-8B-Instruct,base_url=http://127.0.0.1:8000/v1/chat/completions \\",
            "    --tasks webtrack-2009-2012 --judge-profile paper-deberta-llama",
            "benchmark evaluate --model groundcover-offline --tasks arguana-debates --rag bm25 --rerank stance",
        ],
    )
    add_model_args(p)
    p.add_argument("--tasks", required=True, nargs="+", help="task ids, separated by commas or spaces")
    p.add_argument(
        "--limit",
        type=float,
        help="only the first N (scorable) queries of each task, or a fraction of them if below 1 (as lm_eval)",
    )
    p.add_argument(
        "--output-dir",
        "--output_path",
        "-o",
        dest="output_dir",
        default="outputs",
        help="where generated answers go (default: outputs/)",
    )
    p.add_argument(
        "--log_samples",
        "-s",
        action="store_true",
        help="accepted as in lm_eval: groundcover always writes every answer (and a trace of its scoring)",
    )
    p.add_argument("--no-score", action="store_true", help="only generate answers")
    g = p.add_argument_group("retrieval-augmented generation")
    g.add_argument(
        "--rag",
        default="none",
        help="comma-separated settings, each run separately: none (closed-book), bm25, dense, hybrid "
        "(retrieve --rag-k passages from the task's corpus, or --corpus/--lucene-index, number them in "
        "the prompt and ask for [n] citations); default none",
    )
    g.add_argument("--rag-k", type=int, default=5, help="passages per prompt (default 5)")
    g.add_argument(
        "--rerank",
        choices=["generic", "stance"],
        help="RAArg (argument tasks): retrieve whole documents for the topic, rerank them listwise with the "
        "model under evaluation (generic or stance-conditioned instruction), and write a cited argument; "
        "P@10 / nDCG@10 per stance are printed",
    )
    g.add_argument(
        "--rerank-depth", type=int, default=20, help="documents retrieved and reranked (default 20)"
    )
    g.add_argument(
        "--rag-subq",
        help="sub-question-augmented RAG (tasks with sub_questions): comma-separated, each a separate run, from "
        "none (plain RAG), retrieval (also retrieve for each core sub-question), rerank (order candidates by "
        "their similarity to the query and its core sub-questions), prompt (list the core sub-questions for "
        "the answer to address), all",
    )
    add_scoring_args(p)
    p.set_defaults(func=run)


def task_list(values: list[str] | str) -> list[str]:
    """``--tasks a,b c`` -> [a, b, c] (commas or spaces, as lm_eval takes them)."""
    items = [values] if isinstance(values, str) else values
    ids = [t.strip() for v in items for t in v.split(",") if t.strip()]
    if not ids:
        raise InputError(Problem("command line", "name at least one task", field="--tasks"))
    return ids


def generatable_queries(args: argparse.Namespace, task: Any) -> list[str]:
    """With --no-score: the scorable queries where the task's families say which, else all."""
    try:
        return scorable_queries(args, task)
    except InputError:
        return list(task.table("queries")["query_id"])


def report_rankings(task: Any, context: Any, out: Path) -> None:
    """P@10 / nDCG@10 of the retrieved and the reranked lists, printed and saved beside the outputs."""
    from rich.console import Console

    from benchmark.core.exports import write_csv
    from benchmark.generation.raarg import ranking_quality

    failed = sum(len(f) for f in context.failures.values())
    if failed:
        log.warning("rerank: %d window(s) kept their BM25 order after unusable replies", failed)
    if not task.has_table("qrels"):
        return
    queries = task.table("queries")
    table = ranking_quality(
        context.rankings,
        task.table("qrels"),
        task.table("stances") if task.has_table("stances") else None,
        dict(zip(queries["query_id"], queries["stance"], strict=True)),
    )
    target = out.with_name(f"{out.stem}.ranking.csv")
    write_csv(table, target)
    Console(stderr=True).print(table.round(3).to_string(index=False), f"\n(wrote {target})", markup=False)


def dry_run(
    args: argparse.Namespace, request: Any, tasks: list[Any], settings: Any, queries: dict[str, list[str]]
) -> int:
    """``evaluate --dry-run``: the answers to generate, and the scoring plan of those that exist.

    An answer's scoring depends on its text, so only answers already in the outputs files
    (a resumed run) are planned; the others are counted as generation calls, with their
    closed-book prompts' tokens estimated from characters."""
    import math

    from rich.console import Console

    from benchmark.generation.harness import build_messages, check_request, outputs_file
    from benchmark.generation.outputs import answers_and_model
    from benchmark.scoring.dry_run import CHARS_PER_TOKEN

    margs, _ = check_request(request.model, request.model_args, request.gen_kwargs)
    console = Console()
    jobs, waiting = [], 0
    for task in tasks:
        texts = task.query_texts()
        for setting in settings:
            path = outputs_file(request.model, margs, task, request.output_dir, setting)
            wanted = queries[task.id]
            answers: dict[str, str] = {}
            if path.exists():
                found, model, evidence = answers_and_model(path, task)
                answers = {q: found[q] for q in wanted if q in found}
                if answers and not args.no_score:
                    jobs.append((task, answers, model, evidence))
            missing = [q for q in wanted if q not in answers]
            waiting += len(missing)
            if setting is None:
                messages = [m for q in missing for m in build_messages(task, texts[q], q)]
                tokens = sum(math.ceil(len(m["content"]) / CHARS_PER_TOKEN) for m in messages)
                prompts = f", about {tokens:,} prompt tokens (est.)"
            else:
                prompts = ", their prompts hold the passages retrieved for them"
            console.print(
                f"generate · {task.id} · {setting.label if setting else 'closed-book'}: {len(missing)} answers "
                f"to generate{prompts if missing else ''} ({len(answers)} already in {path})"
            )
    if jobs:
        score_answers(args, jobs)
    if waiting and not args.no_score:
        console.print(
            f"The scoring of the {waiting} answers not generated yet is not in the plan: what it asks depends "
            "on their text (run --dry-run again once they exist, e.g. after `evaluate --no-score`)."
        )
    return 0


def run(args: argparse.Namespace) -> int:
    from benchmark.cli.common import plan
    from benchmark.generation import plan as generation
    from benchmark.generation.outputs import answers_and_model

    settings = generation.expand_settings(args.rag, args.rag_k, args.rerank, args.rerank_depth, args.rag_subq)
    generation.check_limit(args.limit)
    tasks = [load_task(t) for t in task_list(args.tasks)]
    check_writable(args.output_dir, "--output-dir")
    if args.no_score:  # a scoring run checks these in plan(), Ray included
        check_outputs(args, ray=False)
    # everything scoring needs (profile, families, their settings, the corpus) is checked
    # before a single answer is generated; the profile also gives the RAG retrievers'
    # chunking and embedder
    if args.no_score:
        from benchmark.cli.common import judge_profile

        if args.corpus:
            check_corpus(args.corpus)
        profile = judge_profile(args)
    else:
        profile, _ = plan(args, tasks)
    request = generation.Request(
        model=args.model,
        model_args=args.model_args or {},
        output_dir=Path(args.output_dir),
        batch_size=args.batch_size,
        gen_kwargs=args.gen_kwargs,
        chat_template=args.chat_template,
        corpus=args.corpus,
        lucene_index=args.lucene_index,
        progress=not args.no_progress,
    )
    queries = {
        t.id: generation.limited(
            scorable_queries(args, t) if not args.no_score else generatable_queries(args, t), args.limit
        )
        for t in tasks
    }
    if args.dry_run:
        return dry_run(args, request, tasks, settings, queries)
    if not args.no_score:
        from benchmark.judging.stack import preflight_judge

        preflight_judge(profile)  # a judge that is not there: one line now, not after generating
    jobs = []
    for run in generation.generate(request, tasks, settings, queries, profile):
        if run.context is not None and run.context.rankings:
            report_rankings(run.task, run.context, run.path)
        jobs.append((run.task, *answers_and_model(run.path, run.task)))
    if args.no_score:
        return 0
    results = score_answers(args, jobs)
    if len(results) > 1:
        from rich.console import Console

        from benchmark.board.leaderboard import from_results
        from benchmark.board.render import print_leaderboard

        console = Console(width=200)
        console.rule("the runs of this command, ranked")
        print_leaderboard(from_results(results), console, legend=True, skip_empty=True)
    return 0
