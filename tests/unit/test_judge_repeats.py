"""Judge noise in intervals and ranks (benchmark.core.repeats).

Two systems with the same answers (the same true quality per query) are judged by a noisy judge
(Gaussian noise, sd 0.15, on each judgement). Seed 4 is a draw where one judgement per item
makes the noise alone look like a difference: the board's permutation test separates them
(p = 0.023). Asked ten times, the judge's spread is seen and they share rank 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmark.core.repeats import mean_ci_repeats, noise_share, paired_repeat_test, repeat_ranks
from benchmark.core.stats import mean_ci, paired_tests, ranks_of

QUERIES, REPEATS, NOISE = 30, 10, 0.15


def noisy_pair(seed: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    quality = rng.random(QUERIES)
    judged = [
        {str(q): list(np.clip(quality[q] + rng.normal(0, NOISE, REPEATS), 0, 1)) for q in range(QUERIES)}
        for _ in range(2)
    ]
    return judged[0], judged[1]


def test_noise_alone_separates_ranks_without_repeats_but_not_with_them() -> None:
    a, b = noisy_pair(4)
    once = {"A": {q: v[0] for q, v in a.items()}, "B": {q: v[0] for q, v in b.items()}}
    assert sorted(ranks_of(paired_tests(once)).values()) == [1, 2]  # one draw: a spurious winner
    assert repeat_ranks({"A": a, "B": b}, n_resamples=1000) == {"A": 1, "B": 1}
    c = paired_repeat_test(a, b, n_resamples=1000)
    assert c.pvalue >= 0.05 and c.low < 0 < c.high


def test_a_real_difference_still_separates_with_repeats() -> None:
    a, b = noisy_pair(4)
    better = {q: [min(1.0, v + 0.15) for v in vals] for q, vals in a.items()}
    assert repeat_ranks({"A": better, "B": b}, n_resamples=1000) == {"A": 1, "B": 2}


def test_two_level_interval_and_noise_share() -> None:
    a, _ = noisy_pair(4)
    two = mean_ci_repeats(a, n_resamples=1000)
    means = mean_ci([float(np.mean(v)) for v in a.values()], n_resamples=1000)
    assert two.method == "two-level percentile" and two.n == QUERIES
    assert two.value == means.value
    # the repeats' spread widens the interval (a share of it > 0); a deterministic judge adds nothing
    share = noise_share(a)
    assert share is not None and 0.01 < share < 0.1  # sd 0.15 / sqrt(10) against queries spread over [0, 1]
    loud = {
        q: [float(np.clip(x + d, 0, 1)) for x, d in zip(v, np.tile([-0.5, 0.5], REPEATS // 2), strict=True)]
        for q, v in a.items()
    }
    assert noise_share(loud) > share
    fixed = {q: [v[0]] * REPEATS for q, v in a.items()}
    assert noise_share(fixed) == pytest.approx(0.0, abs=1e-12)
    assert noise_share({q: v[:1] for q, v in a.items()}) is None  # no repeats: nothing to say


def test_the_two_level_interval_keeps_the_judges_noise() -> None:
    """Twenty queries of one quality, each judged 0 once and 1 once: the query means all agree,
    so an interval over queries alone (one level) has no width, while the judge's noise — each
    drawn query's two repeats resampled, a variance of 0.125 per query, a standard error of
    0.079 over twenty — gives the two-level interval a width near 2 × 1.96 × 0.079 = 0.31."""
    coin = {str(q): [0.0, 1.0] for q in range(20)}
    one = mean_ci([float(np.mean(v)) for v in coin.values()])
    assert (one.low, one.high) == (0.5, 0.5)
    two = mean_ci_repeats(coin, n_resamples=2000)
    assert two.value == 0.5 and two.low is not None and two.high is not None
    assert 0.25 < two.high - two.low < 0.4


def test_the_paired_test_resamples_both_sides_repeats() -> None:
    """A steady judge against a noisy one on twenty queries: the noisy side's repeats (0.1 or
    1.0, a mean of 0.55) are all of the spread, so the 0.05 between the means is not a
    difference whichever side is first; left out of the resampling, that side's repeats would
    leave the difference without any spread (p = 0)."""
    steady = {str(q): [0.5, 0.5] for q in range(20)}
    noisy = {str(q): [0.1, 1.0] for q in range(20)}
    for a, b in ((steady, noisy), (noisy, steady)):
        c = paired_repeat_test(a, b, n_resamples=2000)
        assert abs(c.mean_diff) == pytest.approx(0.05)
        assert c.pvalue > 0.2 and c.low < 0 < c.high
