"""``benchmark meta-eval``: a metric against human judgements, or against another metric."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.board.leaderboard import load_entries
from benchmark.cli import add_command
from benchmark.core.errors import InputError, Problem
from benchmark.families import REGISTRY

if TYPE_CHECKING:  # imported where used: it loads scipy.stats, which every command would pay for
    from benchmark.metaeval import measures as meta_eval

from benchmark.metaeval.systems import (
    Scores,
    align_human,
    align_systems,
    compare,
    item_lengths,
    metric_scores,
    read_human,
    read_ratings,
    rouge_against_gold,
    summarise,
    trec_against_runs,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "meta-eval",
        help="correlate a metric with human judgements, or two metrics' leaderboards",
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
    from benchmark.metaeval import rankings

    p.add_argument(
        "view",
        nargs="?",
        choices=["rankings"],
        help="rankings: a ranking card — a judge's system ranking against the human one on a public set",
    )
    rankings.add_arguments(p)
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
    p.add_argument("--judge-profile", help="only results of this judge profile (name@version)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random tie-breaking")
    p.set_defaults(func=run)


def parse_measure(text: str, flag: str) -> tuple[str, str]:
    family, _, key = text.partition(":")
    if family not in REGISTRY or not key or REGISTRY[family].column(key) is None:
        known = ", ".join(f"{f}:{c.key}" for f, fam in REGISTRY.items() for c in fam.columns)
        raise InputError(
            Problem("command line", f"{text!r} is not a family:score; known: {known}", field=flag)
        )
    return family, key


def _ratings_report(args: argparse.Namespace) -> int:
    from benchmark.metaeval import measures as meta_eval

    path = Path(args.ratings)
    by_dim = read_ratings(path, args.judge_rater)  # every row checked before anything is read from it
    lengths = item_lengths(path)
    console = Console(width=160)  # eleven columns: never wrap their headers
    table = Table(title=Text(f"judge {args.judge_rater!r} vs human raters ({path.name})"))
    for col in (
        "dimension", "items", "α humans", "α + judge", "α + length",
        "ρ judge", "p", "ρ length", "p", "partial ρ judge | length", "p",
    ):  # fmt: skip
        table.add_column(col, justify="left" if col == "dimension" else "right")
    f = lambda v, spec=".3f": "—" if v is None else format(v, spec)  # noqa: E731
    rows = [(dim, *by_dim[dim], lengths) for dim in sorted(by_dim)]
    if len(by_dim) > 1:  # every (item, dimension) a unit: the overall agreement
        pooled: dict[str, dict[str, float]] = {}
        for dim, (humans, _) in by_dim.items():
            for rater, items in humans.items():
                pooled.setdefault(rater, {}).update({f"{i}\x1f{dim}": v for i, v in items.items()})
        judged_all = {f"{i}\x1f{dim}": v for dim, (_, judged) in by_dim.items() for i, v in judged.items()}
        lengths_all = {u: lengths[u.split("\x1f")[0]] for u in judged_all if u.split("\x1f")[0] in lengths}
        rows.append(("all dimensions (pooled)", pooled, judged_all, lengths_all))
    for dim, humans, judged, lens in rows:
        a = meta_eval.rater_agreement(humans, judged, lens, dim)
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
    """The metric's systems: mean with its bootstrap CI, and the rank from paired
    permutation tests (Holm–Bonferroni over each system's comparisons)."""
    from benchmark.core import stats

    ranks = stats.paired_ranks(scores, seed=seed)
    table = Table(
        title=Text(f"{metric}: systems (95% bootstrap CI; rank = 1 + systems significantly better, Holm)")
    )
    for col in ("rank", "system", "mean", "queries"):
        table.add_column(col, justify="left" if col == "system" else "right")
    rows = []
    for system, per_query in scores.items():
        ci = stats.mean_ci(list(per_query.values()), seed=seed)
        rows.append((ranks.get(system, 0), -(ci.value or 0.0), system, ci))
    for rank, _, system, ci in sorted(rows):
        table.add_row(str(rank or "—"), Text(system), stats.fmt_score(ci.value, ci.low, ci.high), str(ci.n))
    return table


def _table(title: str, rows: dict[str, meta_eval.Correlation]) -> Table:
    table = Table(title=Text(title))
    for col in ("level", "n", "Pearson r", "p", "Spearman ρ", "p", "Kendall τ", "p"):
        table.add_column(col, justify="left" if col == "level" else "right")
    for level, c in rows.items():
        cells = []
        for coef, p in ((c.pearson, c.pearson_p), (c.spearman, c.spearman_p), (c.kendall, c.kendall_p)):
            cells += ["—", "—"] if coef is None or p is None else [f"{coef:.3f}", f"{p:.2g}"]
        table.add_row(level, str(c.n), *cells)
    return table


def run(args: argparse.Namespace) -> int:
    from benchmark.metaeval import measures as meta_eval

    if args.view == "rankings":  # ranking cards: benchmark.metaeval.rankings
        from benchmark.metaeval import rankings

        return rankings.run(args)
    if args.ratings:
        return _ratings_report(args)
    if not args.metric:
        raise InputError(
            Problem("command line", "give --metric family:score, or --ratings FILE", field="--metric")
        )
    family, key = parse_measure(args.metric, "--metric")
    if bool(args.human) == bool(args.against):
        raise InputError(
            Problem("command line", "give --human FILE or --against family:score", field="--human")
        )
    entries, _ = load_entries(args.results_dir)
    entries = [
        e
        for e in entries
        if (args.task is None or e.result.task.id == args.task)
        and (args.judge_profile is None or e.result.profile_id == args.judge_profile)
    ]
    boards = {e.board_id for e in entries if e.result.metric_family == family}
    if len(boards) > 1:
        raise InputError(
            Problem(
                args.results_dir,
                f"{len(boards)} boards hold {family} results: pick one with --task and --judge-profile",
            )
        )
    a, labels = metric_scores(entries, family, key)
    if args.human:
        b, other = align_human(read_human(Path(args.human)), labels), f"human ({Path(args.human).name})"
    elif args.against == "rouge1":
        b, other = rouge_against_gold(entries, family, args.task), "ROUGE-1 F1 vs gold articles"
    elif args.against.startswith("trec:"):
        b, other = (
            align_systems(
                trec_against_runs(args.runs, args.qrels, args.task, args.against.split(":", 1)[1]), labels
            ),
            args.against,
        )
    else:
        fam_b, key_b = parse_measure(args.against, "--against")
        b, other = metric_scores(entries, fam_b, key_b)[0], args.against
    if not set(a) & set(b):
        raise InputError(Problem("command line", f"no system has both {args.metric} and {other}"))
    console = Console()
    console.print(systems_table(args.metric, a, args.seed))
    sa, sb = summarise(a), summarise(b)
    console.print(_table(f"{args.metric} vs {other}", compare(a, b, sa, sb)))
    agree = meta_eval.rank_correlation(sa, sb, seed=args.seed)
    if agree.kendall_mean is None:
        console.print("leaderboard rank correlation: fewer than 2 common systems")
    else:
        console.print(
            f"leaderboard rank correlation over {agree.systems} systems (ties within a standard error, broken "
            f"at random, {agree.repetitions} repetitions, seed {agree.seed}): Kendall τ {agree.kendall_mean:.3f} "
            f"[{agree.kendall_min:.3f}, {agree.kendall_max:.3f}], Spearman ρ {agree.spearman_mean:.3f}"
        )
    return 0
