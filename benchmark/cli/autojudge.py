"""``benchmark autojudge``: groundcover as a TREC AutoJudge judge, and AutoJudge judges'
leaderboards on ranking cards (the work is :mod:`benchmark.api.autojudge`'s)."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from benchmark.cli import add_command, require
from benchmark.cli.common import add_scoring_args, family_settings, run_options, scoring_config

if TYPE_CHECKING:
    from benchmark.api.autojudge import AutoJudgeCard, AutoJudgeJudgement

FORMATS = ("ir_measures", "tot", "trec_eval", "rag4reports", "jsonl")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "autojudge",
        description=(
            "judge: read a TREC AutoJudge task in its published formats (--topics: requests as JSON lines "
            "with request_id and title; --runs: a folder of RAG run files, TREC RAG / RAGTIME layouts), score "
            "every run with the families --metrics names and the --judge-profile (their input files by their "
            "own flags, e.g. a nuggetizer nugget file), and write the leaderboard AutoJudge takes: "
            "<out>/<filebase>.eval.txt (ir_measures columns: run topic measure value, with each run's 'all' "
            "row) and its .measures.yml; each per-query score is a measure <family>_<score>. "
            "card: a leaderboard an AutoJudge judge wrote (--judge) against a human leaderboard (--human), "
            "both in an AutoJudge leaderboard format: a ranking card (Kendall's tau, Spearman's rho, tau_AP "
            "from autojudge-evaluate, top-k overlap, per-topic tau, 95% bootstrap intervals over topics), "
            "with answer length as the trivial baseline when --runs is given."
        ),
        examples=[
            "benchmark autojudge judge --topics topics.jsonl --runs runs/ --metrics nuggets --nuggets nuggets.jsonl "
            "--out judged/",
            "benchmark autojudge card --judge judged/groundcover.eval.txt --judge-measure nuggets_all_strict "
            "--human human.eval.txt --runs runs/ --card-out card.yaml",
        ],
    )
    p.add_argument("action", choices=["judge", "card"])
    p.add_argument("--topics", help="judge: the AutoJudge requests (JSON lines)")
    p.add_argument(
        "--runs", help="the RAG runs: a folder of run files, or one file (card: for the length baseline)"
    )
    p.add_argument(
        "--out", help="judge: the folder the leaderboard (and the task built from --topics) goes to"
    )
    p.add_argument(
        "--filebase", default="groundcover", help="judge: the leaderboard's file stem (groundcover)"
    )
    p.add_argument("--format", default="ir_measures", choices=FORMATS, help="judge: leaderboard format")
    p.add_argument("--judge", help="card: the AutoJudge judge's leaderboard")
    p.add_argument("--human", help="card: the human leaderboard")
    p.add_argument("--judge-measure", help="card: the judge's measure (default: its only one)")
    p.add_argument("--human-measure", help="card: the human leaderboard's measure (default: its only one)")
    p.add_argument("--judge-format", default="ir_measures", choices=FORMATS, help="card: --judge's format")
    p.add_argument("--human-format", default="ir_measures", choices=FORMATS, help="card: --human's format")
    p.add_argument("--top-k", type=int, default=10, help="card: k of the top-k overlap (10)")
    p.add_argument("--resamples", type=int, default=1000, help="card: bootstrap resamples (1000)")
    p.add_argument("--autojudge-python", help="card: a Python with autojudge-evaluate, for tau_AP")
    p.add_argument("--card-out", help="card: write the ranking card (YAML) here")
    add_scoring_args(p, ray=False, dry_run=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.api.autojudge import autojudge_card, autojudge_judge

    console = Console(width=160)
    if args.action == "judge":
        require(args, "benchmark autojudge", "topics", "runs", "out")
        judged = autojudge_judge(
            args.topics,
            args.runs,
            args.out,
            config=scoring_config(args),
            options=run_options(args),
            settings=family_settings(args),
            fmt=args.format,
            filebase=args.filebase,
        )
        _print_judgement(console, judged)
        return 0
    require(args, "benchmark autojudge", "judge", "human")
    same = ("judge_measure", "human_measure", "judge_format", "human_format", "runs", "top_k", "resamples")
    card = autojudge_card(
        args.judge,
        args.human,
        **{name: getattr(args, name) for name in same},  # flags named as the parameters
        autojudge_python=args.autojudge_python,
        seed=run_options(args).seed,
        out=args.card_out,
        command=shlex.join(["benchmark", *sys.argv[1:]]),
    )
    _print_card(console, card)
    return 0


def _print_judgement(console: Console, judged: AutoJudgeJudgement) -> None:
    for family, measure in judged.primary.items():
        board = judged.boards.get(measure, {})
        table = Table(title=f"{family}: {measure} (mean over topics), as written")
        for col in ("run", "topics", measure):
            table.add_column(col, justify="left" if col == "run" else "right")
        for run_id, scores in sorted(board.items(), key=lambda kv: -sum(kv[1].values()) / len(kv[1])):
            table.add_row(run_id, str(len(scores)), f"{sum(scores.values()) / len(scores):.4f}")
        console.print(table)
    for note in judged.notes:
        console.print(f"note: {note}")
    console.print(f"leaderboard: {judged.leaderboard}\nmeasures: {judged.measures_file}")


def _print_card(console: Console, card: AutoJudgeCard) -> None:
    from benchmark.cli.meta_eval import agreement_table

    rows = [(a.name, a) for a in [card.judge, *card.baselines]]
    console.print(agreement_table(f"ranking agreement with {card.card['human_leaderboard']}", rows))
    if card.judge.tau_ap_note:
        console.print(f"note: τ_AP {card.judge.tau_ap_note}")
    console.print(f"verdict: {card.verdict}")
    if card.path:
        console.print(f"card: {card.path}")
