"""``benchmark judge-card``: measure a profile's judges on public human labels; write its card."""

from __future__ import annotations

import argparse
import inspect
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.api import DEFAULT_PROFILE
from benchmark.cli import add_command

if TYPE_CHECKING:
    from benchmark.api.judge_card import JudgeCard


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "judge-card",
        description=(
            "Runs each judge of the profile that can be measured on public human-labelled sets (fetched at "
            "pinned commits and checked against their SHA-256, or read from --data-dir), next to trivial "
            "baselines on the same items (majority class, hypothesis length, word overlap, plain cosine), "
            "and writes a versioned card: per role, per set, the figure with a 95%% bootstrap interval and a "
            "verdict (informative / at chance / below a baseline / not measured here). Boards, `benchmark "
            "leaderboard` and the Space show the card's line for the judge each main score depends on."
        ),
        examples=[
            "benchmark judge-card --judge-profile offline-smollm2-minilm-sim",
            "benchmark judge-card --judge-profile offline-smollm2-minilm-sim --data-dir ./human-sets --llm-pairs 200",
            "benchmark judge-card --judge-profile paper-deberta-llama --not-measured 'its models were not "
            "available where this card was written'",
        ],
    )
    p.add_argument(
        "--judge-profile", default=DEFAULT_PROFILE, help=f"profile name or YAML ({DEFAULT_PROFILE})"
    )
    p.add_argument(
        "--sets",
        default="sick,rte",
        help="public entailment sets to measure on (default sick,rte; also anli, llm-aggrefact from the Hub)",
    )
    p.add_argument(
        "--argument-sets",
        default="ukpconvarg2",
        help="public argument-preference sets (default ukpconvarg2; also argq-30k from the Hub)",
    )
    p.add_argument("--data-dir", help="local copies of the sets (<dir>/<set>/<file>) instead of downloading")
    p.add_argument("--max-pairs", type=int, help="a seeded sample of each set (default: all of it)")
    p.add_argument(
        "--llm-pairs",
        type=int,
        default=0,
        help="also measure the LLM as a yes/no support judge (DecompScore's) on a seeded sample of this "
        "many pairs per set (slow on CPU; default 0: not measured)",
    )
    p.add_argument(
        "--argument-items",
        type=int,
        default=0,
        help="also measure the argument-quality judge on UKPConvArg2's preference pairs among a seeded "
        "sample of this many arguments (its LLM rates each once; slow on CPU; default 0: not measured)",
    )
    p.add_argument(
        "--exam-grades",
        metavar="FILE",
        help="measure the exam answerer on every judged passage (a relevance grade; ranked by a system or "
        "not) of this EXAM++ graded-paragraph file, with --exam-bank: answerability against relevance",
    )
    p.add_argument("--exam-bank", metavar="FILE", help="the EXAM++ question bank of --exam-grades")
    p.add_argument(
        "--exam-grader",
        metavar="NAME",
        help="the grader of --exam-grades whose answers the card compares with (needed when the file has "
        "several: a model, prompt class or question set that fits one of them)",
    )
    p.add_argument(
        "--exam-licence",
        default="as its owner licenses it",
        help="the licence of --exam-grades, written on the card",
    )
    p.add_argument(
        "--not-measured",
        metavar="REASON",
        help="load no model: write every role as 'not measured here', for this reason",
    )
    p.add_argument(
        "--out",
        help="card file (default: <profile>-v<version>.yaml in the current folder; a shipped card is "
        "replaced only when --out names it)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from benchmark.api.judge_card import judge_card

    names = list(inspect.signature(judge_card).parameters)[1:]  # the flags' dests, after the profile
    card, out = judge_card(args.judge_profile, **{name: getattr(args, name) for name in names})
    _print(card)
    Console(stderr=True).print(f"wrote {out}")
    return 0


def _print(card: JudgeCard) -> None:
    from benchmark.api.judge_card import best_baseline

    table = Table(title=Text(f"Judge card: {card.profile} (measured {card.created})"))
    for col in ("role", "judge", "set", "n", "figure", "95% CI", "best baseline", "verdict"):
        table.add_column(col, justify="right" if col in ("n", "figure") else "left")
    for r in card.roles:
        if not r.figures:
            table.add_row(r.role, Text(r.judge), "—", "—", "—", "—", "—", r.verdict)
        for f in r.figures:
            best = best_baseline(f.baselines)
            table.add_row(
                r.role,
                Text(r.judge),
                f.title,
                f"{f.n:,}",
                "—" if f.value is None else f"{f.metric} {f.value:.3f}",
                "—" if f.ci_low is None else f"[{f.ci_low:.3f}, {f.ci_high:.3f}]",
                "—" if best is None else f"{best[0]} {best[1]:.3f}",
                f.verdict,
            )
    Console().print(table)
