"""``benchmark meta-eval`` as library calls: inputs read and checked (errors name the command's
flags), figures from :mod:`benchmark.metaeval`, so a script gets the command's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchmark.core.errors import InputError, usage_error
from benchmark.families import REGISTRY
from benchmark.metaeval.rankings import OPTIONS, RESAMPLES, TOP_K, RankingOptions, RankingRun, write_card

# imported where used: scipy.stats and the boards' readers, which every command would pay for
if TYPE_CHECKING:
    from benchmark.core.stats import Interval
    from benchmark.metaeval.measures import Correlation, DimensionAgreement, RankAgreement
    from benchmark.metaeval.reference import Scores

__all__ = [
    "OPTIONS",
    "RESAMPLES",
    "TOP_K",
    "MetricComparison",
    "RankingOptions",
    "RankingRun",
    "compare_metric",
    "parse_measure",
    "ranking_card",
    "rater_agreements",
    "system_ranks",
    "write_card",
]


def parse_measure(text: str, flag: str) -> tuple[str, str]:
    """``family:score`` -> (family, score key); anything else is an error naming ``flag``."""
    family, _, key = text.partition(":")
    if family not in REGISTRY or not key or REGISTRY[family].column(key) is None:
        known = ", ".join(f"{f}:{c.key}" for f, fam in REGISTRY.items() for c in fam.columns)
        raise usage_error(f"{text!r} is not a family:score; known: {known}", flag)
    return family, key


def rater_agreements(ratings: str | Path, judge_rater: str = "judge") -> list[tuple[str, DimensionAgreement]]:
    """Per dimension of a ratings file, the humans' agreement among themselves, with the judge
    added and with a length-only rater added; with several dimensions, last, all pooled."""
    from benchmark.metaeval import measures
    from benchmark.metaeval.systems import item_lengths, read_ratings

    path = Path(ratings)
    by_dim = read_ratings(path, judge_rater)  # every row checked before anything is read from it
    lengths = item_lengths(path)
    rows = [(dim, *by_dim[dim], lengths) for dim in sorted(by_dim)]
    if len(by_dim) > 1:  # every (item, dimension) a unit: the overall agreement
        pooled: dict[str, dict[str, float]] = {}
        for dim, (humans, _) in by_dim.items():
            for rater, items in humans.items():
                pooled.setdefault(rater, {}).update({f"{i}\x1f{dim}": v for i, v in items.items()})
        judged_all = {f"{i}\x1f{dim}": v for dim, (_, judged) in by_dim.items() for i, v in judged.items()}
        lengths_all = {u: lengths[u.split("\x1f")[0]] for u in judged_all if u.split("\x1f")[0] in lengths}
        rows.append(("all dimensions (pooled)", pooled, judged_all, lengths_all))
    return [(dim, measures.rater_agreement(humans, judged, lens, dim)) for dim, humans, judged, lens in rows]


def system_ranks(scores: Scores, seed: int = 0) -> list[tuple[int, str, Interval]]:
    """(rank, system, mean with its 95% bootstrap interval), best first: rank 1 + the systems
    significantly better (paired permutation tests, Holm); 0 where a system has no score."""
    from benchmark.core import stats

    scored = {system: s for system, s in scores.items() if any(v is not None for v in s.values())}
    ranks = stats.ranks_of(stats.paired_tests(scored, seed=seed))
    rows = []
    for system, per_query in scores.items():
        ci = stats.mean_ci(list(per_query.values()), seed=seed)
        rows.append((ranks.get(system, 0), -(ci.value or 0.0), system, ci))
    return [(rank, system, ci) for rank, _, system, ci in sorted(rows)]


@dataclass(frozen=True)
class MetricComparison:
    """A metric's systems against another measure: both sides' scores, correlations, rank agreement."""

    metric: str
    other: str
    scores: Scores
    other_scores: Scores
    correlations: dict[str, Correlation]
    agreement: RankAgreement


def compare_metric(
    metric: str,
    *,
    human: str | Path | None = None,
    against: str | None = None,
    runs: list[str] | None = None,
    qrels: str | None = None,
    results_dir: str | Path = "leaderboard/results",
    task: str | None = None,
    judge_profile: str | None = None,
    seed: int = 0,
) -> MetricComparison:
    """``metric`` (family:score) of the results under ``results_dir`` (only ``task``'s and
    ``judge_profile``'s, where given) against ``human`` judgements (system, query_id, score)
    or ``against``: another family:score, ``rouge1`` against the gold articles, or
    ``trec:<measure>`` of the TREC ``runs`` against ``qrels`` (default: the task's)."""
    from benchmark.board.leaderboard import load_entries
    from benchmark.metaeval import measures, systems

    family, key = parse_measure(metric, "--metric")
    if bool(human) == bool(against):
        raise usage_error("give --human FILE or --against family:score", "--human")
    entries, _ = load_entries(results_dir)
    entries = [
        e
        for e in entries
        if (task is None or e.result.task.id == task)
        and (judge_profile is None or e.result.profile_id == judge_profile)
    ]
    boards = {e.board_id for e in entries if e.result.metric_family == family}
    if len(boards) > 1:
        raise InputError.at(
            str(results_dir),
            f"{len(boards)} boards hold {family} results: pick one with --task and --judge-profile",
        )
    a, labels = systems.metric_scores(entries, family, key)
    if human:
        b, other = systems.align_human(systems.read_human(Path(human)), labels), f"human ({Path(human).name})"
    elif against == "rouge1":
        b, other = systems.rouge_against_gold(entries, family, task), "ROUGE-1 F1 vs gold articles"
    elif against.startswith("trec:"):  # type: ignore[union-attr]
        trec = systems.trec_against_runs(runs, qrels, task, against.split(":", 1)[1])  # type: ignore[union-attr]
        b, other = systems.align_systems(trec, labels), str(against)
    else:
        fam_b, key_b = parse_measure(str(against), "--against")
        b, other = systems.metric_scores(entries, fam_b, key_b)[0], str(against)
    if not set(a) & set(b):
        raise usage_error(f"no system has both {metric} and {other}")
    sa, sb = systems.summarise(a), systems.summarise(b)
    return MetricComparison(
        metric, other, a, b, systems.compare(a, b, sa, sb), measures.rank_correlation(sa, sb, seed=seed)
    )


def ranking_card(options: RankingOptions) -> RankingRun:
    """A ranking card's figures (:mod:`benchmark.metaeval.rankings`)."""
    from benchmark.metaeval import rankings

    return rankings.run(options)
