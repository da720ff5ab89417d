"""``benchmark evaluate``: generate answers with a model (closed-book and/or with retrieval), then score them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmark.api import EvaluationPlan
from benchmark.api.evaluate import (
    DEFAULT_BATCH_SIZE,
    LM_EVAL_BACKENDS,
    OFFLINE_BATCH_SIZE,
    OFFLINE_MODEL,
)
from benchmark.cli import add_command
from benchmark.cli.common import (
    add_scoring_args,
    family_settings,
    plan_file,
    print_plan,
    ray_options,
    run_options,
    scoring_config,
    task_list,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "evaluate",
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


def _dict_action() -> type[argparse.Action]:
    """lm-eval's own parser for ``key=value`` lists (values as Python literals, so
    ``until=["\\n\\n","</s>"]`` is a list), or, without lm-eval, the text kept as given."""
    try:
        from lm_eval._cli.utils import MergeDictAction
    except ImportError:

        class _Joined(argparse.Action):
            def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
                setattr(namespace, self.dest, ",".join(values))

        return _Joined

    class _Checked(MergeDictAction):  # type: ignore[misc, valid-type]
        """lm-eval's parser, whose complaint about ``{bad`` is a usage error naming the flag."""

        def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
            try:
                super().__call__(parser, namespace, values, option_string)
            except (ValueError, SyntaxError, TypeError) as exc:
                raise argparse.ArgumentError(self, str(exc) or "expected key=value pairs") from None

    return _Checked


def batch_size(text: str) -> str:
    """``--batch-size``: :func:`~benchmark.generation.model_args.check_batch_size`, as a flag's type."""
    from benchmark.api.evaluate import check_batch_size

    try:
        return str(check_batch_size(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_model_args(p: argparse.ArgumentParser) -> None:
    """The model options, spelled as in lm-evaluation-harness 0.4 (``--model_args``,
    ``--gen_kwargs``, ``--batch_size``, ``--apply_chat_template``) or with dashes."""
    g = p.add_argument_group("model under evaluation (lm-eval conventions)")
    g.add_argument(
        "--model",
        required=True,
        help=f"lm-eval backend ({', '.join(LM_EVAL_BACKENDS)}) or {OFFLINE_MODEL} (offline default model)",
    )
    g.add_argument(
        "--model-args",
        "--model_args",
        "-a",
        dest="model_args",
        nargs="+",
        action=_dict_action(),
        default=None,
        help="key=value pairs as for lm_eval (comma- or space-separated, or one JSON object), "
        "e.g. pretrained=org/name,revision=main",
    )
    g.add_argument(
        "--batch-size",
        "--batch_size",
        "-b",
        dest="batch_size",
        default=None,
        type=batch_size,
        help="generation batch size (a whole number of at least 1), or 'auto' / 'auto:N' (hf); "
        f"default {DEFAULT_BATCH_SIZE}, {OFFLINE_BATCH_SIZE} for {OFFLINE_MODEL}",
    )
    g.add_argument(
        "--gen-kwargs",
        "--gen_kwargs",
        dest="gen_kwargs",
        nargs="+",
        action=_dict_action(),
        default=None,
        help="generation settings as for lm_eval, e.g. max_gen_toks=512 temperature=0 'until=[\"\\n\\n\"]'",
    )
    g.add_argument(
        "--apply_chat_template",
        "--apply-chat-template",
        dest="apply_chat_template",
        action="store_true",
        default=True,
        help="prompt through the model's chat template when it has one: groundcover's default, because "
        "the answers of instruction-tuned models are what is evaluated (lm_eval's default is off)",
    )
    g.add_argument(
        "--no-apply-chat-template",
        dest="apply_chat_template",
        action="store_false",
        help="plain prompts, as lm_eval without --apply_chat_template",
    )


def run(args: argparse.Namespace) -> int:
    from benchmark.api import Sweep, plan_evaluation, run_evaluation
    from benchmark.api.evaluate import Request

    options, config = run_options(args), scoring_config(args)
    request = Request(
        model=args.model,
        model_args=args.model_args or {},
        output_dir=Path(args.output_dir),
        batch_size=args.batch_size,
        gen_kwargs=args.gen_kwargs,
        apply_chat_template=args.apply_chat_template,
        corpus=config.corpus,
        lucene_index=config.lucene_index,
        progress=options.progress,
    )
    common = {
        "request": request,
        "tasks": task_list(args.tasks),
        "sweep": Sweep(args.rag, args.rag_k, args.rerank, args.rerank_depth, args.rag_subq, args.limit),
        "config": config,
        "options": options,
        "settings": family_settings(args),
        "score": not args.no_score,
    }
    if args.dry_run:
        found = plan_evaluation(**common, plan_file=plan_file(args))
        _print_generation_plan(found, args)
        return 0
    results = run_evaluation(**common, ray=ray_options(args), raise_incomplete=False)
    if args.no_score:
        return 0
    results.print()
    results.raise_if_incomplete()
    if len(results) > 1:
        from rich.console import Console

        from benchmark.board.render import print_leaderboard

        console = Console(width=200)
        console.rule("the runs of this command, ranked")
        print_leaderboard(results.leaderboard(), console, legend=True, skip_empty=True)
    return 0


def _print_generation_plan(found: EvaluationPlan, args: argparse.Namespace) -> None:
    from rich.console import Console

    console = Console()
    for line in found.generation:
        if line.prompt_tokens is not None:
            prompts = f", about {line.prompt_tokens:,} prompt tokens (est.)"
        else:
            prompts = ", their prompts hold the passages retrieved for them"
        console.print(
            f"generate · {line.task} · {line.setting}: {line.to_generate} answers "
            f"to generate{prompts if line.to_generate else ''} ({line.already} already in {line.path})"
        )
    if found.scoring is not None:
        print_plan(found.scoring, args)
    if found.waiting:
        console.print(
            f"The scoring of the {found.waiting} answers not generated yet is not in the plan: what it asks "
            "depends on their text (run --dry-run again once they exist, e.g. after `evaluate --no-score`)."
        )
