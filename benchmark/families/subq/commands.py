"""``benchmark subq``: draft sub-questions, fit the hybrid's weights, compare two systems
pairwise; each action is described in its ``--help``.
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.core.errors import InputError, rel, usage_error
from benchmark.core.paths import check_writable_file
from benchmark.families.command_context import CommandContext, judge_stack, store_table
from benchmark.models.profiles import DEFAULT_PROFILE


def register(sub: argparse._SubParsersAction, context: CommandContext) -> None:
    from benchmark.families.subq.family import SubqSettings

    p = context.add_command(
        sub,
        "subq",
        help="sub-questions: draft them, fit the hybrid's weights, compare two systems pairwise",
        description=(
            "generate: decompose queries (a task's — its text and, where there is one, its description — or a "
            "TSV of id<TAB>text) into core / background / "
            "follow-up sub-questions with the judge LLM (prompt subq-decompose), written as JSONL rows of a "
            "sub_questions table with their provenance. fit-weights: the hybrid score's weights (core, "
            "background, follow-up) by grid search on --preferences, a CSV (header) or JSONL file with "
            "query_id, answer_a, answer_b, preferred (A or B) per row; prints pairwise preference accuracy "
            "for the best weights, each single type, the default weights, the longer answer and the majority "
            "label. compare: a pairwise LLM judge (prompt pairwise-answer) between --baseline and --system "
            "outputs of one task, both orders per query; the system's win rate (a tie or a split verdict "
            "counts ½) with a bootstrap CI, and a two-sided sign test on the decided queries."
        ),
        examples=[
            "benchmark subq generate --queries ../shared/data/trec-rag/topics.rag24.test.txt --limit 20 --out sq.jsonl",
            "benchmark subq fit-weights --preferences prefs.csv --task researchy-dev",
            "benchmark subq compare --task webtrack-2009-2012 --baseline outputs/a.jsonl --system outputs/b.jsonl",
        ],
    )
    p.add_argument("action", choices=["generate", "fit-weights", "compare"])
    p.add_argument("--task", help="task id")
    p.add_argument("--queries", help="generate: a TSV of query id<TAB>text instead of a task")
    p.add_argument("--limit", type=int, help="generate: only the first N queries")
    p.add_argument("--per-query", type=int, default=6, help="generate: sub-questions per query (6)")
    p.add_argument("--out", help="file to write")
    p.add_argument("--preferences", help="fit-weights: the labelled preference file")
    p.add_argument(
        "--step",
        type=grid_step,
        default=0.1,
        help="fit-weights: grid step, 1/n for a whole n from 1 to 100 (default 0.1)",
    )
    context.add_settings(
        p.add_argument_group("fit-weights: the coverage judge (as in `benchmark score`)"), SubqSettings
    )
    p.add_argument("--baseline", help="compare: outputs JSONL of the reference system")
    p.add_argument("--system", help="compare: outputs JSONL of the system compared with it")
    p.add_argument("--judge-profile", default=DEFAULT_PROFILE, help=f"the judge models ({DEFAULT_PROFILE})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--write-task",
        action="store_true",
        help="generate: also write the rows into --task as its sub_questions table; the card records how they "
        "were generated and gets a new patch version",
    )
    p.set_defaults(func=partial(run, context))


def grid_step(text: str) -> float:
    """``--step``: a step that divides the weights' range [0, 1] into whole steps (1/n, n from
    1 to 100); 0 divides nothing, above 1 leaves one point of the grid (all weights 0), 0.3
    never reaches 1, and below 0.01 the grid grows past 5,000 weight triples."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    n = round(1 / value) if 0 < value <= 1 else 0
    if not 1 <= n <= 100 or abs(n * value - 1) > 1e-6:
        raise argparse.ArgumentTypeError(
            f"{text} does not divide [0, 1] into whole steps: use 1/n for a whole n from 1 to 100 "
            "(0.5, 0.25, 0.1, 0.05, ...)"
        )
    return value


def run(context: CommandContext, args: argparse.Namespace) -> int:
    if args.out:  # checked before any model loads or any file is read
        check_writable_file(args.out, "--out")
    return {"generate": generate, "fit-weights": fit_weights, "compare": compare}[args.action](context, args)


def _queries(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.queries:
        path = Path(args.queries)
        if not path.is_file():
            raise InputError.at(rel(path), "no such file", field="--queries")
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                qid, sep, text = line.partition("\t")
                if not sep or not text.strip():
                    raise InputError.at(rel(path), "expected query id<TAB>text", line=n)
                rows.append((qid.strip(), text.strip()))
        return rows[: args.limit] if args.limit else rows
    if not args.task:
        raise usage_error("give --task or --queries", "--task")
    from benchmark.tasks import load_task

    task = load_task(args.task)
    texts = task.query_texts()
    # the information need: a TREC title ("figs") says little; its description says what is wanted
    described = task.descriptions()
    return [
        (q, f"{texts[q]} ({described[q]})" if described.get(q, "").strip() else texts[q])
        for q in task.quick_order()[: args.limit]
    ]


def generate(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.base import write_jsonl
    from benchmark.families.subq.generate import PROMPT, generate_sub_questions
    from benchmark.models.prompts import load_prompt

    if not args.out:
        raise usage_error("give --out FILE.jsonl", "--out")
    queries = _queries(args)
    stack = judge_stack(args.judge_profile)
    rows, failures = generate_sub_questions(
        stack.llm, queries, n=args.per_query, max_retries=stack.profile.llm.max_retries
    )
    provenance = f"generated: {getattr(stack.llm, 'identity', '?')} {load_prompt(PROMPT).id}"
    out = write_jsonl(Path(args.out), ({**r, "provenance": provenance} for r in rows))
    console = Console(stderr=True)
    console.print(
        f"wrote {out}: {len(rows)} sub-questions for {len(queries) - len(failures)} of {len(queries)} queries"
    )
    for f in failures:
        console.print(f"failed: {f}")
    if args.write_task:
        import pandas as pd

        from benchmark.tasks import load_task

        if not args.task:
            raise InputError.at("--write-task", "needs --task")
        note = f"sub_questions: {len(rows)} {provenance}."
        console.print(
            store_table(
                load_task(args.task),
                "sub_questions",
                pd.DataFrame(rows),
                note,
                "benchmark subq generate --write-task",
            )
        )
    return 0


def fit_weights(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.families.subq.family import SubqSettings
    from benchmark.families.subq.fitting import fit_on_preferences, read_preferences
    from benchmark.tasks import load_task

    if not (args.preferences and args.task):
        raise usage_error("fit-weights needs --preferences and --task", "--preferences")
    path = Path(args.preferences)
    prefs = read_preferences(path)
    task = load_task(args.task)
    from benchmark.families.subq.pipeline import coverage_judge

    judge = coverage_judge(judge_stack(args.judge_profile), context.settings_from_args(SubqSettings, args))
    best, rows = fit_on_preferences(prefs, task, judge, args.step, source=rel(path))
    table = Table(
        title=Text(f"pairwise preference accuracy on {len(prefs)} pairs ({path.name}); ties count ½")
    )
    table.add_column("scorer")
    table.add_column("accuracy", justify="right")
    for scorer, accuracy in rows:
        table.add_row(scorer, "—" if accuracy is None else f"{accuracy:.3f}")
    weights = ",".join(str(w) for w in best)
    Console().print(
        table,
        f"the hybrid scored none of the {len(prefs)} pairs, so no weights were fit: the default "
        f"--subq-weights {weights} are kept"
        if rows[0][1] is None  # no weights scored any pair: nothing was fit
        else f"use: --subq-weights {weights}  (fitted on these pairs: report accuracy on held-out pairs)",
        sep="\n",
    )
    return 0


def compare(context: CommandContext, args: argparse.Namespace) -> int:
    from benchmark.answers.outputs import read_outputs
    from benchmark.core import stats
    from benchmark.families.subq.pairwise import judge_pairs
    from benchmark.tasks import load_task

    if not (args.task and args.baseline and args.system):
        raise usage_error("compare needs --task, --baseline and --system", "--system")
    task = load_task(args.task)
    base = {r.query_id: r.answer for r in read_outputs(args.baseline)}
    mine = {r.query_id: r.answer for r in read_outputs(args.system)}
    shared = [q for q in task.table("queries")["query_id"].astype(str) if q in base and q in mine]
    if not shared:
        raise InputError.at(args.system, "no query answered by both systems", field="query_id")
    texts = task.query_texts()
    stack = judge_stack(args.judge_profile)
    verdicts = judge_pairs(stack.llm, [(texts[q], base[q], mine[q]) for q in shared], seed=args.seed)
    scores = {q: v.system_score for q, v in zip(shared, verdicts, strict=True)}
    ci = stats.mean_ci(list(scores.values()), seed=args.seed)
    wins = sum(v.system_score == 1.0 for v in verdicts)
    losses = sum(v.system_score == 0.0 for v in verdicts)
    failed = sum(v.system_score is None for v in verdicts)
    from scipy.stats import binomtest

    p = binomtest(wins, wins + losses).pvalue if wins + losses else None
    name = lambda p: Path(p).parent.name if Path(p).stem == task.id else Path(p).name  # noqa: E731
    Console().print(
        f"{name(args.system)} vs {name(args.baseline)} on {len(shared)} queries, judged by "
        f"{getattr(stack.llm, 'identity', '?')} in both orders: win rate {stats.fmt_score(ci.value, ci.low, ci.high)} "
        f"(wins {wins}, losses {losses}, ties or split verdicts {len(shared) - wins - losses - failed}, failed {failed}); "
        f"sign test p = {'—' if p is None else f'{p:.3g}'}"
    )
    if args.out:
        Path(args.out).write_text(
            "".join(
                json.dumps({"query_id": q, **v.as_dict()}) + "\n"
                for q, v in zip(shared, verdicts, strict=True)
            ),
            encoding="utf-8",
        )
    return 0
