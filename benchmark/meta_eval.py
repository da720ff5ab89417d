"""Meta-evaluation: how well a metric agrees with people, and with another metric.

Shared by every metric family (``benchmark meta-eval``).  Pure statistics on plain
numbers — the CLI gathers them from result files and a human-judgement file:

* **query level** — Pearson, Spearman and Kendall correlation (with p-values, from
  ``scipy.stats``) between a metric's per-query scores and human scores over every
  (system, query) pair both have;
* **system level** — the same over the systems' mean scores;
* **leaderboard rank correlation** — Kendall's τ (and Spearman's ρ) between the system
  rankings two measures induce, as in the EXAM paper (Sander & Dietz, 2021, §5): systems
  whose means differ by less than a standard error (the larger of the two) are *tied* —
  here closed transitively down the ranking, so ties form groups — ties are broken at
  random, and the coefficient is averaged over 10 seeded repetitions, so that a measure
  neither gains nor loses agreement from the order in which tied systems happen to be
  listed.

Human judgements file (CSV with a header, or JSONL): one row per judged answer with
``system`` (a result's model label or model id), ``query_id`` and ``score`` (a number;
higher is better).  Several rows for one (system, query) — several assessors — are
averaged.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as st

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


def _finite(v: float | None) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def correlate(x: Sequence[float | None], y: Sequence[float | None]) -> Correlation:
    """Pearson, Spearman and Kendall (τ-b) with two-sided p-values over the pairs where
    both values exist; ``None`` where a coefficient is undefined (fewer than 3 pairs, or
    a constant side)."""
    pairs = [(a, b) for a, b in zip(x, y, strict=True) if _finite(a) and _finite(b)]
    n = len(pairs)
    if n < 3:
        return Correlation(n, None, None, None, None, None, None)
    a = np.array([p[0] for p in pairs], dtype=float)
    b = np.array([p[1] for p in pairs], dtype=float)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return Correlation(n, None, None, None, None, None, None)
    pr, sr, kt = st.pearsonr(a, b), st.spearmanr(a, b), st.kendalltau(a, b)
    return Correlation(
        n,
        float(pr.statistic),
        float(pr.pvalue),
        float(sr.statistic),
        float(sr.pvalue),
        float(kt.statistic),
        float(kt.pvalue),
    )


def mean_and_se(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and standard error (sample std / √n; 0 for a single value)."""
    v = np.array([x for x in values if _finite(x)], dtype=float)
    if v.size == 0:
        return None, None
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0


def tie_groups(means: Sequence[float], ses: Sequence[float]) -> list[int]:
    """A group number per system (0 = best): walking down the ranking, a system joins the
    group above it when the two means differ by less than the larger of their standard
    errors (ties chain, as in the EXAM paper's leaderboards)."""
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
    """Kendall's τ (and Spearman's ρ) between the rankings that measures ``a`` and ``b``
    (system -> (mean, standard error)) induce on their common systems, ties by standard
    error broken at random, over ``repetitions`` seeded repetitions."""
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
