"""``benchmark meta-eval``: a metric against human judgements, or against another metric."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.api.meta_eval import RESAMPLES, TOP_K
from benchmark.cli import add_command, usage_error

if TYPE_CHECKING:
    from benchmark.api.meta_eval import MetricComparison, RankingRun, Scores


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "meta-eval",
        description=(
            "Query-level and system-level Pearson, Spearman and Kendall correlation (scipy, with "
            "p-values) between a metric's per-query scores and human scores, and the leaderboard rank "
            "correlation of the two, with systems within a standard error tied and ties broken at random "
            "over 10 seeded repetitions (as in the EXAM paper). --human is CSV (header) or JSONL with "
            "system, query_id, score per row; a system is a result's model label, its submission folder's name "
            "(org__name, or org__name__<setting> with retrieval), or a model id that only one result has. "
            "--against compares two metrics of the same results instead. --ratings measures a judge's "
            "ratings against human raters instead: a CSV (header) or JSONL file with item, text, dimension, "
            "rater, rating per row, the judge being the rater named by --judge-rater; per dimension it "
            "reports Krippendorff's alpha (ordinal) among the humans and with the judge added, the same for "
            "a length-only rater, Spearman with the human mean for both, and the judge's partial Spearman "
            "holding text length constant. Reference measures for --against: 'rouge1' (ROUGE-1 F1 of each "
            "result's answers against the task's gold articles) and 'trec:Rprec', 'trec:MAP', 'trec:nDCG@20' "
            "(trec_eval measures by ir_measures of the TREC run files given with --runs, one file per system "
            "named as its submission folder (org__name[__setting]), against --qrels or the task's qrels). Every report also ranks "
            "the --metric's systems: bootstrap CIs and paired permutation tests with Holm-Bonferroni correction."
        ),
        examples=[
            "benchmark meta-eval --metric icat:icat_m --human my_judgements.csv",
            "benchmark meta-eval --metric icat:icat_m --against icat:s_fact",
            "benchmark meta-eval --metric decompscore:decompscore --against decompscore:decompscore_nli",
            "benchmark meta-eval --ratings argument_ratings.csv --judge-rater listwise-judge",
            "benchmark meta-eval --metric exam:n_exam --against rouge1 --task webtrack-2009-2012",
            "benchmark meta-eval --metric exam:exam --against trec:MAP --runs runs/ --qrels qrels.txt",
            "benchmark meta-eval rankings --set dl19 --card-out dl19-ranking-card.yaml",
        ],
    )
    # -- ranking cards (benchmark.metaeval.rankings): `benchmark meta-eval rankings ...` --
    p.add_argument(
        "view",
        nargs="?",
        choices=["rankings"],
        help="rankings: a ranking card — a judge's system ranking against the human one on a public set",
    )
    p.add_argument("--set", default="dl19", help="rankings: the public set (dl19)")
    p.add_argument("--grades", help="rankings: an EXAM++ graded-paragraph file instead of --set's")
    p.add_argument("--data-dir", help="rankings: a folder with <set>/<file> copies (offline)")
    p.add_argument("--grader", help="rankings: the file's grader (as `benchmark exam score-grades --grader`)")
    p.add_argument(
        "--family",
        help="rankings: the metric family that ranks the file's runs (default: the one that reads it)",
    )
    p.add_argument(
        "--min-rating",
        type=int,
        help="rankings: least self-rating that answers (default: the set's published setting, 3 for dl19; "
        "with --grades, the family's own default, as its score-grades counts)",
    )
    p.add_argument("--rank-cutoff", type=int, default=20, help="rankings: a run's top N counts for EXAM (20)")
    p.add_argument("--top-k", type=int, default=TOP_K, help=f"rankings: k of the top-k overlap ({TOP_K})")
    p.add_argument(
        "--resamples", type=int, default=RESAMPLES, help=f"rankings: bootstrap resamples ({RESAMPLES})"
    )
    p.add_argument("--autojudge-python", help="rankings: a Python with autojudge-evaluate, for τ_AP")
    p.add_argument("--card-out", help="rankings: write the ranking card (YAML) here")
    p.add_argument(
        "--topics",
        type=int,
        help="rankings with --judge-profile: grade the first N topics of the file only (a stated subset)",
    )
    p.add_argument(
        "--bank",
        help="rankings with --judge-profile and --grades: the question bank the file's grader was asked",
    )
    p.add_argument(
        "--answerer",
        choices=("entailment", "llm", "similarity"),
        help="rankings with --judge-profile: the profile's reader of the file's questions (default: its "
        "default answerer where that reads them, else its LLM reader)",
    )
    # -- end of ranking cards --
    p.add_argument("--metric", help="family:score, e.g. icat:icat_m")
    p.add_argument(
        "--ratings", help="ratings of items by humans and a judge (item, text, dimension, rater, rating)"
    )
    p.add_argument(
        "--judge-rater", default="judge", help="the judge's rater name in --ratings (default: judge)"
    )
    p.add_argument("--human", help="human judgements (CSV or JSONL: system, query_id, score)")
    p.add_argument(
        "--against", help="another family:score of the same results, rouge1, or trec:Rprec|MAP|nDCG@20"
    )
    p.add_argument("--runs", nargs="+", help="TREC run files (or folders of them) for --against trec:…")
    p.add_argument("--qrels", help="TREC qrels for --against trec:… (default: the --task's qrels)")
    p.add_argument("--results-dir", default="leaderboard/results", help="default: the published results")
    p.add_argument("--task", help="only results on this task id")
    p.add_argument(
        "--judge-profile",
        help="only results of this judge profile (name@version); rankings: grade the runs again with this "
        "profile's own judge instead of the file's grader",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random tie-breaking")
    p.set_defaults(func=run)


def _ratings_report(args: argparse.Namespace) -> int:
    from benchmark.api.meta_eval import rater_agreements

    rows = rater_agreements(args.ratings, args.judge_rater)
    console = Console(width=160)  # eleven columns: never wrap their headers
    table = Table(title=Text(f"judge {args.judge_rater!r} vs human raters ({Path(args.ratings).name})"))
    for col in (
        "dimension", "items", "α humans", "α + judge", "α + length",
        "ρ judge", "p", "ρ length", "p", "partial ρ judge | length", "p",
    ):  # fmt: skip
        table.add_column(col, justify="left" if col == "dimension" else "right")
    f = lambda v, spec=".3f": "—" if v is None else format(v, spec)  # noqa: E731
    for dim, a in rows:
        table.add_row(
            dim, str(a.items), f(a.alpha_humans), f(a.alpha_with_judge), f(a.alpha_with_length),
            f(a.spearman_judge.spearman), f(a.spearman_judge.spearman_p, ".2g"),
            f(a.spearman_length.spearman), f(a.spearman_length.spearman_p, ".2g"),
            f(a.partial_judge), f(a.partial_judge_p, ".2g"),
        )  # fmt: skip
    console.print(table)
    console.print(
        "A judge is worth more than length only where its ρ and α beat the length rater's and its partial ρ "
        "(length held constant) stays clearly above 0."
    )
    return 0


def systems_table(metric: str, scores: Scores, seed: int) -> Table:
    """The metric's systems: mean with its bootstrap CI, and the rank (paired tests, Holm)."""
    from benchmark.api.meta_eval import system_ranks
    from benchmark.core import stats

    table = Table(
        title=Text(f"{metric}: systems (95% bootstrap CI; rank = 1 + systems significantly better, Holm)")
    )
    for col in ("rank", "system", "mean", "queries"):
        table.add_column(col, justify="left" if col == "system" else "right")
    for rank, system, ci in system_ranks(scores, seed):
        table.add_row(str(rank or "—"), Text(system), stats.fmt_score(ci.value, ci.low, ci.high), str(ci.n))
    return table


def _table(found: MetricComparison) -> Table:
    table = Table(title=Text(f"{found.metric} vs {found.other}"))
    for col in ("level", "n", "Pearson r", "p", "Spearman ρ", "p", "Kendall τ", "p"):
        table.add_column(col, justify="left" if col == "level" else "right")
    for level, c in found.correlations.items():
        cells = []
        for coef, p in ((c.pearson, c.pearson_p), (c.spearman, c.spearman_p), (c.kendall, c.kendall_p)):
            cells += ["—", "—"] if coef is None or p is None else [f"{coef:.3f}", f"{p:.2g}"]
        table.add_row(level, str(c.n), *cells)
    return table


def _rankings(args: argparse.Namespace) -> int:
    """`benchmark meta-eval rankings`: flags to a ranking card's run; its table, verdict and card."""
    from benchmark.api.meta_eval import OPTIONS, RankingOptions, ranking_card, write_card

    values = {name: getattr(args, name) for name in OPTIONS if name != "set"}
    measured = ranking_card(RankingOptions(set_id=args.set, **values))
    console = Console(width=170)
    console.print(_ranking_table(measured))
    if measured.judge.tau_ap_note:
        console.print(f"τ_AP {measured.judge.tau_ap_note}")
    console.print(f"verdict: {measured.verdict}  ({measured.seconds:.1f} s)")
    if args.card_out:
        console.print(f"wrote {write_card(measured, args.card_out)}")
    return 0


def _ranking_table(measured: RankingRun) -> Table:
    """Each leaderboard's agreement with the human one: the judge's, the others', the baselines'."""
    rows = (
        [("judge: " + measured.judge.name, measured.judge)]
        + [(a.name, a) for a in measured.other]
        + [("baseline: " + b.name, b) for b in measured.baselines]
    )
    return agreement_table(measured.title, rows)


def agreement_table(title: str, rows: list[tuple[str, Any]]) -> Table:
    """Ranking agreements, each figure with its interval."""
    t = Table(title=Text(title))
    for col in (
        "leaderboard", "systems", "topics", "Kendall τ", "τ_AP", "Spearman ρ", "top-k overlap", "per-topic τ",
    ):  # fmt: skip
        t.add_column(col, justify="left" if col == "leaderboard" else "right")

    def f(x) -> str:  # type: ignore[no-untyped-def]
        if x.value is None:
            return "—"
        ci = "" if x.low is None else f" [{x.low:.3f}, {x.high:.3f}]"
        return f"{x.value:.3f}{ci}"

    for label, a in rows:
        t.add_row(
            Text(label), str(a.systems), str(a.topics), f(a.kendall), f(a.tau_ap), f(a.spearman),
            f"{f(a.top_k)} (k={a.k})", f(a.per_topic_kendall),
        )  # fmt: skip
    return t


def run(args: argparse.Namespace) -> int:
    from benchmark.api.meta_eval import compare_metric

    if args.view == "rankings":  # ranking cards: benchmark.metaeval.rankings
        return _rankings(args)
    if args.ratings:
        return _ratings_report(args)
    if not args.metric:
        raise usage_error("give --metric family:score, or --ratings FILE", "--metric")
    names = ("human", "against", "runs", "qrels", "results_dir", "task", "judge_profile", "seed")
    found = compare_metric(args.metric, **{name: getattr(args, name) for name in names})
    console = Console()
    console.print(systems_table(args.metric, found.scores, args.seed))
    console.print(_table(found))
    agree = found.agreement
    if agree.kendall_mean is None:
        console.print("leaderboard rank correlation: fewer than 2 common systems")
    else:
        console.print(
            f"leaderboard rank correlation over {agree.systems} systems (ties within a standard error, broken "
            f"at random, {agree.repetitions} repetitions, seed {agree.seed}): Kendall τ {agree.kendall_mean:.3f} "
            f"[{agree.kendall_min:.3f}, {agree.kendall_max:.3f}], Spearman ρ {agree.spearman_mean:.3f}"
        )
    return 0
