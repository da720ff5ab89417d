"""A board's minimum detectable difference (:mod:`benchmark.core.power`), checked against the
boards' own paired permutation test: per-query differences drawn at the detectable difference
are told apart in 80 % of the draws, within a tolerance (seeded, so the same every run)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmark.core.power import (
    POWER,
    board_power,
    comparison_level,
    detectable_difference,
    pair_detectable,
    smallest_p,
)
from benchmark.core.stats import ALPHA, paired_tests, sign_flip_pvalues

#: draws per case: the rejection rate's standard error is about 0.009
DRAWS = 2000
#: how far the simulated power may be from the stated 80 %: four standard errors and the
#: permutation test's own small shortfall against the t-test at 12 queries (it rejects in
#: 77–79 % of the draws here; a normal instead of a t quantile would give 71 % at n = 12)
TOLERANCE = 0.04


@pytest.mark.parametrize(
    ("n", "models"),
    [(12, 2), (12, 6), (20, 4)],  # 12 queries: the published boards; 6 models: Holm at α/5
)
def test_the_stated_power_holds_under_the_boards_permutation_test(n: int, models: int) -> None:
    sd = 0.2
    level = comparison_level(ALPHA, models)
    delta = detectable_difference(sd, n, level)
    assert 0 < delta < 1
    rng = np.random.default_rng(n * 100 + models)
    draws = rng.normal(delta, sd, size=(DRAWS, n))
    rate = float((sign_flip_pvalues(draws, seed=1) < level).mean())
    assert abs(rate - POWER) < TOLERANCE, (n, models, delta, rate)
    # and the detectable difference is the smallest such: half of it is detected far less often
    half = float((sign_flip_pvalues(rng.normal(delta / 2, sd, size=(DRAWS, n)), seed=1) < level).mean())
    assert half < POWER - 0.3, half


def test_limits_of_the_permutation_test_are_kept() -> None:
    # 5 queries: the smallest two-sided p is 2/32 = 0.0625, so nothing is detected at 0.05
    assert smallest_p(5) == 2 / 32 and math.isinf(detectable_difference(0.1, 5, 0.05))
    assert smallest_p(20) == 2 / 5001  # more patterns than resamples: Monte Carlo p-values
    assert math.isinf(detectable_difference(0.1, 1, 0.05))
    assert detectable_difference(0.0, 12, 0.05) == 0.0  # equal differences: any is detected
    assert detectable_difference(1e-17, 12, 0.05) == 0.0  # ... and equal up to rounding
    # more queries, smaller detectable differences; a stricter level, larger ones
    assert detectable_difference(0.2, 48, 0.05) < detectable_difference(0.2, 12, 0.05)
    assert detectable_difference(0.2, 12, 0.01) > detectable_difference(0.2, 12, 0.05)


def test_board_power_pools_the_pairs() -> None:
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.8, 12)
    scores = {
        "a": dict(enumerate(base + 0.05)),
        "b": dict(enumerate(base + rng.normal(0, 0.1, 12))),
        "c": dict(enumerate(base + rng.normal(0, 0.2, 12))),
    }
    cmp = paired_tests({m: {str(q): float(v) for q, v in s.items()} for m, s in scores.items()})
    assert cmp.sd_diff is not None
    diffs = {(i, j): [scores[cmp.models[i]][q] - scores[cmp.models[j]][q] for q in range(12)]
             for i in range(3) for j in range(3) if i != j}  # fmt: skip
    for (i, j), d in diffs.items():
        assert cmp.sd_diff[i, j] == pytest.approx(np.std(d, ddof=1))
    power = board_power(cmp)
    assert power is not None and power.n == 12 and power.level == ALPHA / 2
    pooled = math.sqrt(np.mean([np.var(diffs[(i, j)], ddof=1) for i, j in ((0, 1), (0, 2), (1, 2))]))
    assert power.sd == pytest.approx(pooled)
    assert power.detectable == pytest.approx(detectable_difference(pooled, 12, ALPHA / 2))
    assert pair_detectable(cmp, 0, 1) == pytest.approx(
        detectable_difference(float(cmp.sd_diff[0, 1]), 12, ALPHA / 2)
    )
    assert board_power(paired_tests({"a": {"1": 0.5}})) is None  # one model: nothing compared
