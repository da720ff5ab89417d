"""``benchmark evaluate``: generate answers with a model, then score them."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmark.cli import add_command
from benchmark.cli.common import add_scoring_args, score_answers
from benchmark.evaluation import queries_to_score
from benchmark.tasks import load_task


def register(sub: argparse._SubParsersAction) -> None:
    from benchmark.harness import add_model_args

    p = add_command(
        sub,
        "evaluate",
        help="generate answers with a model and score them",
        description=(
            "Generate answers for each task's queries with a model from lm-eval's registry "
            "(hf, vllm, local-completions, local-chat-completions) or the offline default "
            "`groundcover-offline`, then score them with the judge profile. Generation and "
            "scoring checkpoint per query: re-run the same command to resume."
        ),
        examples=[
            "benchmark evaluate --model groundcover-offline --tasks webtrack-2009-2012 --limit 10",
            "benchmark evaluate --model hf --model-args pretrained=Qwen/Qwen2.5-1.5B-Instruct --tasks webtrack-2009-2012",
            "benchmark evaluate --model local-chat-completions \\",
            "    --model-args model=meta-llama/Llama-3.1-8B-Instruct,base_url=http://127.0.0.1:8000/v1/chat/completions \\",
            "    --tasks webtrack-2009-2012 --judge-profile paper-deberta-llama",
        ],
    )
    add_model_args(p)
    p.add_argument("--tasks", required=True, help="comma-separated task ids")
    p.add_argument("--limit", type=int, help="only the first N (scorable) queries of each task")
    p.add_argument("--output-dir", default="outputs", help="where generated answers go (default: outputs/)")
    p.add_argument("--no-score", action="store_true", help="only generate answers")
    add_scoring_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.harness import generate_outputs
    from benchmark.outputs import answers_and_model

    jobs = []
    for task_id in [t.strip() for t in args.tasks.split(",") if t.strip()]:
        task = load_task(task_id)
        everything = dict.fromkeys(task.table("queries")["query_id"], "x")
        qids = queries_to_score(task, everything, corpus=args.corpus, lucene_index=args.lucene_index)
        if args.limit is not None:
            qids = qids[: args.limit]
        out = generate_outputs(
            args.model,
            args.model_args or "",
            task,
            Path(args.output_dir),
            batch_size=args.batch_size,
            gen_kwargs=args.gen_kwargs,
            query_ids=qids,
            progress=not args.no_progress,
        )
        answers, model = answers_and_model(out, task)
        jobs.append((task, answers, model))
    if args.no_score:
        return 0
    score_answers(args, jobs)
    return 0
