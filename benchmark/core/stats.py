"""Confidence intervals and ranks, with scipy.stats; seeded, so the same inputs give the same numbers.

* :func:`mean_ci`: a bootstrap interval over queries, BCa where there are enough queries for
  its jackknife, percentile below that.
* :func:`paired_tests` and :func:`ranks_of`: every model on a board answered the same queries,
  so models are compared on their per-query *differences* (a paired sign-flip permutation
  test, which sees a small consistent difference that overlapping unpaired intervals hide); a
  model's rank is one plus the number of models significantly better, Holm-corrected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

CI_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000
BCA_MIN_N = 10  # BCa's jackknife acceleration is unstable below this many queries
ALPHA = 0.05
PERMUTATION_RESAMPLES = 5000
RANK_METHOD = "paired permutation test (sign flips of per-query differences), Holm-corrected per model"


@dataclass(frozen=True)
class Interval:
    value: float | None
    low: float | None
    high: float | None
    n: int
    method: str | None


def mean_ci(
    values: Sequence[float | None],
    *,
    seed: int = 0,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = CI_LEVEL,
) -> Interval:
    """Mean over the values that exist (``None``, a failed query, is never averaged in as
    zero), with a seeded bootstrap CI; a single value has none."""
    from scipy import stats

    data = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if data.size == 0:
        return Interval(None, None, None, 0, None)
    mean = float(data.mean())
    if data.size == 1:
        return Interval(mean, None, None, 1, None)
    if np.all(data == data[0]):
        return Interval(mean, mean, mean, int(data.size), "constant")
    method = "BCa" if data.size >= BCA_MIN_N else "percentile"
    low = high = math.nan
    for m in (method, "percentile"):
        res = stats.bootstrap(
            (data,),
            np.mean,
            n_resamples=n_resamples,
            confidence_level=level,
            method=m,
            random_state=np.random.default_rng(seed),
        )
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if not (math.isnan(low) or math.isnan(high)):
            method = m
            break
    return Interval(mean, low, high, int(data.size), method)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values (step-down, monotone, capped at 1)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        adjusted[idx] = running
    return adjusted.tolist()


@dataclass(frozen=True)
class PairedComparison:
    """All pairwise tests of one board: ``pvalue[i][j]`` (two-sided), and over shared queries
    the mean and SD (NaN under 2 queries: :mod:`benchmark.core.power`) of score_i − score_j."""

    models: list[str]
    pvalue: np.ndarray
    mean_diff: np.ndarray
    n_shared: np.ndarray
    sd_diff: np.ndarray | None = None


def paired_tests(
    scores: Mapping[str, Mapping[str, float | None]],
    *,
    seed: int = 0,
    n_resamples: int = PERMUTATION_RESAMPLES,
) -> PairedComparison:
    """Two-sided paired permutation tests between every pair of models (``scores``: model ->
    query id -> score), each on the queries both have: a missing difference is zero in every
    sign pattern, which leaves the test exactly that on the shared queries alone."""
    models = list(scores)
    queries = sorted({q for s in scores.values() for q in s})
    m = len(models)
    matrix = np.array(
        [
            [np.nan if scores[mod].get(q) is None else float(scores[mod][q]) for q in queries]
            for mod in models
        ],
        dtype=float,
    ).reshape(m, len(queries))
    pvalue = np.ones((m, m))
    mean_diff = np.zeros((m, m))
    n_shared = np.zeros((m, m), dtype=int)
    sd_diff = np.full((m, m), np.nan)
    if m < 2 or not queries:
        return PairedComparison(models, pvalue, mean_diff, n_shared, sd_diff)
    iu, ju = np.triu_indices(m, 1)
    diffs = matrix[iu] - matrix[ju]
    shared = ~np.isnan(diffs)
    counts = shared.sum(axis=1)
    zeroed = np.where(shared, diffs, 0.0)
    means = zeroed.sum(axis=1) / np.maximum(counts, 1)  # 0 where no query is shared
    squares = np.where(shared, (zeroed - means[:, None]) ** 2, 0.0).sum(axis=1)
    sds = np.where(counts > 1, np.sqrt(squares / np.maximum(counts - 1, 1)), np.nan)
    p = sign_flip_pvalues(zeroed, seed=seed, n_resamples=n_resamples)
    for k, (i, j) in enumerate(zip(iu, ju, strict=True)):
        pvalue[i, j] = pvalue[j, i] = p[k]
        mean_diff[i, j], mean_diff[j, i] = means[k], -means[k]
        n_shared[i, j] = n_shared[j, i] = counts[k]
        sd_diff[i, j] = sd_diff[j, i] = sds[k]
    return PairedComparison(models, pvalue, mean_diff, n_shared, sd_diff)


def sign_flip_pvalues(
    diffs: np.ndarray, *, seed: int = 0, n_resamples: int = PERMUTATION_RESAMPLES
) -> np.ndarray:
    """The two-sided paired sign-flip test of every row of ``diffs`` (one pair's per-query
    differences) at once, exact when all 2**n patterns fit in ``n_resamples``; a row of
    zeros has p = 1.  The one test the boards rank by."""
    from scipy import stats

    filled = np.asarray(diffs, dtype=np.float32).reshape(-1, np.shape(diffs)[-1])
    testable = np.any(filled != 0, axis=1)
    p = np.ones(len(filled))
    if testable.any():
        res = stats.permutation_test(
            (filled[testable],),
            np.mean,
            permutation_type="samples",
            vectorized=True,
            n_resamples=n_resamples,
            alternative="two-sided",
            axis=-1,
            batch=max(1, 200_000 // max(1, int(testable.sum()))),
            random_state=np.random.default_rng(seed),
        )
        p[testable] = np.clip(np.asarray(res.pvalue, dtype=float), 0.0, 1.0)
    return p


def holm_adjusted(cmp: PairedComparison) -> np.ndarray:
    """``adjusted[i][j]``: the p-value of i vs j, Holm-adjusted over i's comparisons with all others."""
    m = len(cmp.models)
    out = np.ones((m, m))
    for i in range(m):
        others = [j for j in range(m) if j != i]
        for j, p in zip(others, holm([cmp.pvalue[i, j] for j in others]) if others else [], strict=True):
            out[i, j] = p
    return out


def ranks_of(cmp: PairedComparison, *, higher_is_better: bool = True, alpha: float = ALPHA) -> dict[str, int]:
    """Rank = 1 + the number of models significantly better, from a board's paired tests."""
    sign = 1.0 if higher_is_better else -1.0
    adjusted = holm_adjusted(cmp)
    return {
        mod: 1
        + sum(
            1
            for j in range(len(cmp.models))
            if j != i and adjusted[i, j] < alpha and sign * cmp.mean_diff[j, i] > 0 and cmp.n_shared[i, j] > 0
        )
        for i, mod in enumerate(cmp.models)
    }


#: How a missing score is shown: never as 0.
MISSING = "—"


def fmt_score(value: object, low: object = None, high: object = None, ci: bool = True) -> str:
    """``0.412 [0.30, 0.51]``; ``—`` for a missing value; no interval where there is none."""
    if missing(value):
        return MISSING
    text = f"{float(value):.3f}"  # type: ignore[arg-type]
    if ci and not missing(low) and not missing(high):
        text += f" [{float(low):.2f}, {float(high):.2f}]"  # type: ignore[arg-type]
    return text


def missing(value: object) -> bool:
    """None or NaN: a score that does not exist (shown as —, never as 0)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
