"""``benchmark judge-check``: scores under known perturbations of evidence and answers."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.cli import add_command
from benchmark.cli.common import add_scoring_args, family_settings, run_options, scoring_config
from benchmark.core import figures

if TYPE_CHECKING:  # imported where used: it loads scipy.stats, which every command would pay for
    from benchmark.api import judge_check

KINDS = {
    "irrelevant": "% of retrieved passages replaced by irrelevant ones",
    "contradictions": "contradicting sentences injected into each answer",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "judge-check",
        description=(
            "Score the same answers again and again while replacing a share of every retrieval's hits "
            "with passages of other documents (--irrelevant, in %) and while inserting sentences that "
            "the judge LLM rewrote to state the opposite (--contradictions, per answer). For every score "
            "of every family: its value per level, Pearson's r with the level, and whether it falls "
            "monotonically; a plot per perturbation. Results of each level are ordinary result files "
            "under --results-dir/<perturbation>-<level>/ (checkpointed, cached)."
        ),
        examples=[
            "benchmark judge-check --outputs outputs/org__model/webtrack-2009-2012.jsonl --tasks webtrack-2009-2012",
            "benchmark judge-check --outputs out.jsonl --tasks webtrack-2009-2012 --irrelevant 0,50,100 "
            "--contradictions none --variants m --limit 6",
        ],
    )
    p.add_argument("--outputs", required=True, help="the answers (groundcover JSONL or lm-eval sample log)")
    p.add_argument("--tasks", required=True, help="the task the answers are for")
    p.add_argument("--irrelevant", default="0,10,20,50,70,100", help="levels in %%, or 'none'")
    p.add_argument("--contradictions", default="0,5,20", help="sentences per answer, or 'none'")
    p.add_argument("--limit", type=int, help="only the first N scorable queries")
    add_scoring_args(p, ray=False, dry_run=False)  # its perturbed retrievers live in this process
    p.set_defaults(func=run, results_dir="judge-check")


def run(args: argparse.Namespace) -> int:
    from benchmark.api.judge_check import judge_check, parse_levels

    options = run_options(args)
    checked = judge_check(
        args.outputs,
        task=args.tasks,
        perturbations={kind: parse_levels(getattr(args, kind), f"--{kind}") for kind in KINDS},
        config=scoring_config(args),
        options=options,
        settings=family_settings(args),
        limit=args.limit,
    )
    root = Path(options.results_dir)
    console = Console(width=160)
    for kind, (lv, trends, notes) in checked.items():
        console.print(_table(kind, lv, trends))
        for note in notes:
            console.print(f"note: {note}")
        plot = root / f"judge-check-{kind}.png"
        _figure(kind, trends).savefig(plot, dpi=120)
        console.print(f"plot: {plot}")
    return 0


def _table(kind: str, lv: list[float], trends: dict[tuple[str, str], judge_check.Trend]) -> Table:
    table = Table(title=Text(f"judge check: {KINDS[kind]}"))
    table.add_column("score")
    for level in lv:
        table.add_column(f"{level:g}", justify="right")
    for col in ("Pearson r", "p", "falls monotonically"):
        table.add_column(col, justify="right")
    for (fid, label), t in trends.items():
        if all(v is None for v in t.values):
            continue
        cells = ["—" if v is None else f"{v:.3f}" for v in t.values]
        r = "—" if t.pearson is None else f"{t.pearson:.3f}"
        p = "—" if t.pearson_p is None else f"{t.pearson_p:.2g}"
        mono = {True: "yes", False: "no", None: "—"}[t.monotonic_decrease]
        table.add_row(Text(f"{fid}:{label}"), *cells, r, p, mono)
    return table


def _figure(kind: str, trends: dict[tuple[str, str], judge_check.Trend]) -> Any:
    labels = [f"{fid}:{label}" for fid, label in trends]
    fig, ax = figures.new_figure(6.4, 3.6 + figures.legend_height(labels))
    for name, t in zip(labels, trends.values(), strict=True):
        if pts := [(lv, v) for lv, v in zip(t.levels, t.values, strict=True) if v is not None]:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xlabel(re.sub(r"^%", "share (%)", KINDS[kind]))
    ax.set_ylabel("score")
    figures.legend_below(fig, labels)
    return fig
