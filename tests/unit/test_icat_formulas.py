"""Pins the ICAT formulas, including β edge cases and empty sets."""

from __future__ import annotations

import math

import pytest

from benchmark.families.icat import formulas as icat


def test_s_fact_ratio_and_empty_answer() -> None:
    assert icat.s_fact(3, 4) == 0.75
    assert icat.s_fact(0, 0) == 0.0  # no claims: nothing verifiable, no credit
    with pytest.raises(ValueError):
        icat.s_fact(5, 4)


def test_coverage_counts_only_grounded_claims_and_known_aspects() -> None:
    alignment = {"c1": ["a1"], "c2": ["a2", "zz"], "c3": ["a3"]}
    covered = icat.covered_aspects(alignment, grounded=["c1", "c2"], aspects=["a1", "a2", "a3", "a4"])
    assert covered == {"a1", "a2"}  # c3 is not grounded; "zz" is not an aspect of the query
    assert icat.s_coverage(len(covered), 4) == 0.5


def test_coverage_undefined_without_aspects() -> None:
    assert icat.s_coverage(0, 0) is None
    assert icat.icat_beta(0.5, None) is None


@pytest.mark.parametrize(
    ("fact", "cov", "beta", "expected"),
    [
        (0.5, 0.5, 1.0, 0.5),
        (1.0, 0.5, 1.0, 2 * 0.5 / 1.5),  # harmonic mean
        (0.6, 0.3, 2.0, 5 * 0.6 * 0.3 / (4 * 0.6 + 0.3)),
        (0.6, 0.3, 0.5, 1.25 * 0.6 * 0.3 / (0.25 * 0.6 + 0.3)),
        (0.0, 0.0, 1.0, 0.0),
        (0.0, 0.7, 1.0, 0.0),
        (0.7, 0.0, 1.0, 0.0),
        (0.7, 0.4, 0.0, 0.7),  # β = 0: factuality only
        (0.7, 0.0, 0.0, 0.7),  # limit, not 0/0
        (0.7, 0.4, math.inf, 0.4),  # β → ∞: coverage only
    ],
)
def test_icat_beta(fact: float, cov: float, beta: float, expected: float) -> None:
    assert icat.icat_beta(fact, cov, beta) == pytest.approx(expected)


def test_icat_beta_weights_move_towards_the_favoured_score() -> None:
    low, high = icat.icat_beta(0.9, 0.3, 0.25), icat.icat_beta(0.9, 0.3, 4.0)
    assert low is not None and high is not None
    assert low > icat.icat_beta(0.9, 0.3, 1.0) > high  # type: ignore[operator]
    with pytest.raises(ValueError):
        icat.icat_beta(0.5, 0.5, -1)


def test_query_scores_and_sweep() -> None:
    s = icat.query_scores(
        ["c1", "c2", "c3", "c4"], ["c1", "c2"], ["a1", "a2", "a3"], {"c1": ["a1"], "c2": ["a1"], "c3": ["a2"]}
    )
    assert s == {
        "s_fact": 0.5,
        "s_coverage": pytest.approx(1 / 3),
        "icat": pytest.approx(2 * 0.5 / 3 / (0.5 + 1 / 3)),
    }
    sweep = icat.beta_sweep([0.5, 1.0, None], [0.5, 0.0, 0.3], betas=(0.0, 1.0))
    assert sweep == {"0": pytest.approx(0.75), "1": pytest.approx(0.25)}


def test_query_scores_per_variant_from_one_call() -> None:
    """The pipeline's only scoring call: variants without aspects or alignment are None."""
    out = icat.icat_query_scores(
        ["c1", "c2", "c3", "c4"],
        grounded=["c1", "c2"],
        aspects={"m": ["a1", "a2"], "s": ["a1", "a2", "a3"], "a": None},
        alignments={"m": {"c1": ["a1"], "c3": ["a2"]}, "s": {"c1": ["a1"], "c2": ["a3"]}, "a": {}},
        beta=1.0,
    )
    assert out["s_fact"] == 0.5
    assert out["s_coverage_m"] == 0.5  # c3 covers a2 but is not grounded
    assert out["icat_m"] == pytest.approx(0.5)
    assert out["s_coverage_s"] == pytest.approx(2 / 3) and out["icat_s"] == pytest.approx(
        2 * 0.5 * (2 / 3) / (0.5 + 2 / 3)
    )
    assert out["s_coverage_a"] is None and out["icat_a"] is None
