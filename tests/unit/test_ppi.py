"""Prediction-powered correction of a biased judge (benchmark.core.ppi).

The coverage test is the issue's: a judge with a known bias on synthetic labels, 1,000 seeded
draws, the corrected 95 % interval must hold the true mean 95 % of the time (within ±2 points);
the judge's own mean, on the same draws, almost never does — so the test fails for an
uncorrected estimate.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmark.core.ppi import corrected_mean

pytest.importorskip("ppi_py")

P_TRUE = 0.6  # share of units truly supported
FALSE_POSITIVE, FALSE_NEGATIVE = 0.30, 0.10  # a lenient judge: E[judge] = 0.6*0.9 + 0.4*0.3 = 0.66


def draw(rng: np.random.Generator, n_units: int = 2000, n_labelled: int = 300) -> tuple[np.ndarray, ...]:
    y = rng.random(n_units) < P_TRUE
    flip = np.where(y, rng.random(n_units) < FALSE_NEGATIVE, rng.random(n_units) < FALSE_POSITIVE)
    judge = (y ^ flip).astype(float)
    labelled = rng.choice(n_units, n_labelled, replace=False)
    mask = np.zeros(n_units, bool)
    mask[labelled] = True
    return y[mask].astype(float), judge[mask], judge[~mask]


def test_corrected_interval_covers_the_truth_at_its_nominal_rate() -> None:
    rng = np.random.default_rng(20261126)
    covered = raw_covered = 0
    draws = 1000
    for _ in range(draws):
        y, yhat, yhat_u = draw(rng)
        c = corrected_mean(y, yhat, yhat_u, confidence=0.95)
        covered += c.low <= P_TRUE <= c.high
        # the judge alone, with an interval of the same width around its own mean
        half = (c.high - c.low) / 2
        raw_covered += abs(c.raw - P_TRUE) <= half
    assert 0.93 <= covered / draws <= 0.97
    assert raw_covered / draws < 0.2  # the bias (+0.06) is far outside the interval


def test_weights_make_the_estimate_a_query_macro_average() -> None:
    # two queries: one with 1 unit (supported), one with 9 (none supported); the macro average is 0.5
    human = [1.0, 0.0, 0.0]
    judge_l = [1.0, 0.0, 0.0]
    judge_u = [0.0] * 7
    w_l = [1.0, 1 / 9, 1 / 9]
    w_u = [1 / 9] * 7
    c = corrected_mean(human, judge_l, judge_u, weights_labelled=w_l, weights_unlabelled=w_u)
    assert c.raw == pytest.approx(0.5)
    assert c.n_labelled == 3 and c.n_unlabelled == 7


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="2 human labels but 3"):
        corrected_mean([1, 0], [1, 0, 1], [1])
    with pytest.raises(ValueError, match="at least two labelled"):
        corrected_mean([1], [1], [1, 0])
