"""Intervals and paired tests that include the judge's own randomness (``--judge-repeats``).

A sampled LLM judge asked once folds its noise into each query's score, and on a small board
one lucky draw can separate equal systems.  Asked N times, a two-level bootstrap (queries,
then each query's repeats) gives an interval that holds the noise; :func:`noise_share` says
how much of it the noise makes.  A per-query score is the sequence of its repeats' values;
``None`` (a failed judgement) is left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchmark.core.stats import BOOTSTRAP_RESAMPLES, CI_LEVEL, Interval

Repeats = Mapping[str, Sequence[float | None]]


def _clean(scores: Repeats) -> dict[str, np.ndarray]:
    out = {}
    for q, vals in scores.items():
        arr = np.asarray([v for v in vals if v is not None and not math.isnan(v)], dtype=float)
        if arr.size:
            out[q] = arr
    return out


def _two_level(per_query: list[np.ndarray], rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` bootstrap means: queries resampled, then each drawn query's repeats."""
    k = len(per_query)
    picks = rng.integers(0, k, size=(n, k))
    out = np.empty(n)
    for b in range(n):
        out[b] = sum(_resampled_mean(per_query[i], rng) for i in picks[b]) / k
    return out


def _resampled_mean(v: np.ndarray, rng: np.random.Generator) -> float:
    return v[rng.integers(0, v.size, size=v.size)].mean()


def mean_ci_repeats(
    scores: Repeats, *, seed: int = 0, n_resamples: int = BOOTSTRAP_RESAMPLES, level: float = CI_LEVEL
) -> Interval:
    """Mean of the per-query repeat means, with a two-level percentile bootstrap interval."""
    if not (clean := _clean(scores)):
        return Interval(None, None, None, 0, None)
    per_query = list(clean.values())
    mean = float(np.mean([v.mean() for v in per_query]))
    if len(per_query) == 1 and per_query[0].size == 1:
        return Interval(mean, None, None, 1, None)
    boot = _two_level(per_query, np.random.default_rng(seed), n_resamples)
    tail = (1 - level) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return Interval(mean, float(low), float(high), len(per_query), "two-level percentile")


def noise_share(scores: Repeats) -> float | None:
    """The share of the mean's variance the judge's noise makes (0: none, 1: all; ``None``
    without repeats): each query's repeat variance over its repeat count, averaged, against
    the variance of the query means.  A variance share, not a bootstrap width ratio: the
    latter drowns small shares in resampling error."""
    per_query = list(_clean(scores).values())
    if len(per_query) < 2 or all(v.size < 2 for v in per_query):
        return None
    means = np.array([v.mean() for v in per_query])
    total = float(means.var(ddof=1))
    noise = float(np.mean([v.var(ddof=1) / v.size if v.size > 1 else 0.0 for v in per_query]))
    if total <= 0:
        return 0.0 if noise == 0 else 1.0
    return float(min(1.0, noise / total))


@dataclass(frozen=True)
class RepeatComparison:
    """One pair of systems compared on their shared queries, repeats resampled."""

    mean_diff: float
    low: float
    high: float
    pvalue: float
    n_shared: int


def paired_repeat_test(
    a: Repeats, b: Repeats, *, seed: int = 0, n_resamples: int = BOOTSTRAP_RESAMPLES, level: float = CI_LEVEL
) -> RepeatComparison:
    """Two-sided bootstrap test of mean(a) - mean(b) over shared queries (queries resampled,
    then each one's repeats of a and of b): p is twice the smaller share of draws on either
    side of zero."""
    ca, cb = _clean(a), _clean(b)
    shared = sorted(set(ca) & set(cb))
    if not shared:
        return RepeatComparison(0.0, 0.0, 0.0, 1.0, 0)
    rng = np.random.default_rng(seed)
    k = len(shared)
    va = [ca[q] for q in shared]
    vb = [cb[q] for q in shared]
    diff = float(np.mean([x.mean() - y.mean() for x, y in zip(va, vb, strict=True)]))
    picks = rng.integers(0, k, size=(n_resamples, k))
    boot = np.empty(n_resamples)
    for r in range(n_resamples):
        boot[r] = sum(_resampled_mean(va[i], rng) - _resampled_mean(vb[i], rng) for i in picks[r]) / k
    tail = (1 - level) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    p = min(1.0, 2 * min(float((boot <= 0).mean()), float((boot >= 0).mean())))
    return RepeatComparison(diff, float(low), float(high), p, k)


def repeat_ranks(
    scores: Mapping[str, Repeats],
    *,
    higher_is_better: bool = True,
    seed: int = 0,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
) -> dict[str, int]:
    """Board ranks as :func:`benchmark.core.stats.ranks_of` gives them, from :func:`paired_repeat_test`."""
    from benchmark.core.stats import PairedComparison, ranks_of

    models = list(scores)
    m = len(models)
    pvalue, mean_diff = np.ones((m, m)), np.zeros((m, m))
    n_shared = np.zeros((m, m), dtype=int)
    for i in range(m):
        for j in range(i + 1, m):
            c = paired_repeat_test(scores[models[i]], scores[models[j]], seed=seed, n_resamples=n_resamples)
            pvalue[i, j] = pvalue[j, i] = c.pvalue
            mean_diff[i, j], mean_diff[j, i] = c.mean_diff, -c.mean_diff
            n_shared[i, j] = n_shared[j, i] = c.n_shared
    return ranks_of(PairedComparison(models, pvalue, mean_diff, n_shared), higher_is_better=higher_is_better)
