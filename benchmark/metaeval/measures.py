"""Meta-evaluation statistics on plain numbers: a metric against people or another metric
(Pearson, Spearman, Kendall; the EXAM paper's leaderboard rank correlation, Sander & Dietz 2021,
§5, with systems within a standard error tied), and a judge's ratings against human raters.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as st

from benchmark.core.stats import missing

REPETITIONS = 10


@dataclass(frozen=True)
class Correlation:
    n: int
    pearson: float | None
    pearson_p: float | None
    spearman: float | None
    spearman_p: float | None
    kendall: float | None
    kendall_p: float | None


def correlate(x: Sequence[float | None], y: Sequence[float | None]) -> Correlation:
    """Pearson, Spearman and Kendall (τ-b) with two-sided p-values over the pairs where both
    exist; ``None`` where undefined (fewer than 3 pairs, or a constant side)."""
    pairs = [(a, b) for a, b in zip(x, y, strict=True) if not missing(a) and not missing(b)]
    a, b = np.array(pairs, dtype=float).reshape(-1, 2).T
    if len(pairs) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return Correlation(len(pairs), *[None] * 6)
    tests = (st.pearsonr(a, b), st.spearmanr(a, b), st.kendalltau(a, b))
    return Correlation(len(pairs), *(float(x) for t in tests for x in (t.statistic, t.pvalue)))


def mean_and_se(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and standard error (sample std / √n; 0 for a single value)."""
    v = np.array([x for x in values if not missing(x)], dtype=float)
    if v.size == 0:
        return None, None
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0


def tie_groups(means: Sequence[float], ses: Sequence[float]) -> list[int]:
    """A group number per system (0 = best): down the ranking, a system joins the group above
    when the means differ by less than the larger standard error (ties chain, as in EXAM)."""
    order = sorted(range(len(means)), key=lambda i: -means[i])
    groups = [0] * len(means)
    group = 0
    for prev, cur in itertools.pairwise(order):
        if means[prev] - means[cur] >= max(ses[prev], ses[cur]):
            group += 1
        groups[cur] = group
    return groups


def ranks_breaking_ties(groups: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """Ranks 1..n: by group, tied systems in a random order."""
    keys = rng.random(len(groups))
    order = sorted(range(len(groups)), key=lambda i: (groups[i], keys[i]))
    ranks = np.empty(len(groups), dtype=int)
    ranks[order] = np.arange(1, len(groups) + 1)
    return ranks


@dataclass(frozen=True)
class RankAgreement:
    systems: int
    kendall_mean: float | None
    kendall_min: float | None
    kendall_max: float | None
    spearman_mean: float | None
    repetitions: int
    seed: int


def rank_correlation(
    a: Mapping[str, tuple[float, float]],
    b: Mapping[str, tuple[float, float]],
    *,
    repetitions: int = REPETITIONS,
    seed: int = 0,
) -> RankAgreement:
    """Kendall's τ (and Spearman's ρ) between the rankings ``a`` and ``b`` (system -> (mean,
    standard error)) induce, ties broken at random, over ``repetitions`` seeded repetitions."""
    systems = sorted(set(a) & set(b))
    if len(systems) < 2:
        return RankAgreement(len(systems), None, None, None, None, repetitions, seed)
    ga = tie_groups([a[s][0] for s in systems], [a[s][1] for s in systems])
    gb = tie_groups([b[s][0] for s in systems], [b[s][1] for s in systems])
    rng = np.random.default_rng(seed)
    taus, rhos = [], []
    for _ in range(repetitions):
        ra, rb = ranks_breaking_ties(ga, rng), ranks_breaking_ties(gb, rng)
        taus.append(float(st.kendalltau(ra, rb).statistic))
        rhos.append(float(st.spearmanr(ra, rb).statistic))
    return RankAgreement(
        len(systems), float(np.mean(taus)), min(taus), max(taus), float(np.mean(rhos)), repetitions, seed
    )


# -- a judge's ratings against human raters -------------------------------------------------


def partial_correlation(
    r_xy: float | None, r_xz: float | None, r_yz: float | None, n: int
) -> tuple[float | None, float | None]:
    """Partial correlation of x and y controlling for z from the three pairwise coefficients,
    with its p-value (t, n − 3 df): a judge whose agreement vanishes once length is held
    constant is measuring length.  ``None`` where a coefficient is."""
    if r_xy is None or r_xz is None or r_yz is None:
        return None, None
    denom = math.sqrt(max((1 - r_xz**2) * (1 - r_yz**2), 0.0))
    if denom == 0 or n < 4:
        return None, None
    r = max(-1.0, min(1.0, (r_xy - r_xz * r_yz) / denom))
    if abs(r) == 1.0:
        return r, 0.0
    t = r * math.sqrt((n - 3) / (1 - r**2))
    return r, float(2 * st.t.sf(abs(t), n - 3))


def alpha(ratings: Sequence[Sequence[float | None]], level: str = "ordinal") -> float | None:
    """Krippendorff's α for raters × items; ``None`` when nothing is pairable or all values are equal."""
    import krippendorff

    data = np.array([[np.nan if v is None else v for v in row] for row in ratings], dtype=float)
    pairable = (np.sum(~np.isnan(data), axis=0) >= 2).sum()
    values = data[~np.isnan(data)]
    if pairable == 0 or values.size == 0 or np.ptp(values) == 0:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def length_ratings(lengths: Sequence[float], levels: Sequence[float]) -> list[float]:
    """Text lengths mapped onto the rating scale by quantiles: the length-only baseline rater."""
    ranks = st.rankdata(lengths) / len(lengths)
    steps = sorted(levels)
    return [steps[min(len(steps) - 1, int(r * len(steps) - 1e-9))] for r in ranks]


@dataclass(frozen=True)
class DimensionAgreement:
    dimension: str
    items: int
    alpha_humans: float | None
    alpha_with_judge: float | None
    alpha_with_length: float | None
    spearman_judge: Correlation
    spearman_length: Correlation
    partial_judge: float | None
    partial_judge_p: float | None


def rater_agreement(
    humans: Mapping[str, Mapping[str, float]],
    judge: Mapping[str, float],
    lengths: Mapping[str, float],
    dimension: str,
) -> DimensionAgreement:
    """A judge's ratings of one dimension against human raters (rater -> item -> rating), next
    to a length-only rater: α with each added as one more rater, Spearman with the human mean,
    and the judge's partial Spearman holding length constant."""
    items = sorted({i for r in humans.values() for i in r} & set(judge) & set(lengths))
    human_rows = [[humans[r].get(i) for i in items] for r in sorted(humans)]
    mean = [float(np.mean([v for v in col if v is not None])) for col in zip(*human_rows, strict=True)]
    judged = [judge[i] for i in items]
    length = [lengths[i] for i in items]
    levels = sorted({v for row in human_rows for v in row if v is not None})
    by_length = length_ratings(length, levels) if levels and items else []
    sj, sl = correlate(judged, mean), correlate(length, mean)
    sjl = correlate(judged, length)
    partial = partial_correlation(sj.spearman, sjl.spearman, sl.spearman, len(items))
    return DimensionAgreement(
        dimension,
        len(items),
        alpha(human_rows),
        alpha([*human_rows, judged]),
        alpha([*human_rows, by_length]) if by_length else None,
        sj,
        sl,
        *partial,
    )
