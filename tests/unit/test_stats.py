"""Intervals and ranks: seeded, BCa where n allows, paired tests that see consistent differences."""

from __future__ import annotations

import numpy as np
import pytest

from benchmark.core import stats


def ranks(scores: dict, **kw: object) -> dict[str, int]:
    """A board's ranks, as the board takes them: its paired tests, then Holm per model."""
    return stats.ranks_of(stats.paired_tests(scores), **kw)  # type: ignore[arg-type]


def test_small_consistent_difference_is_ranked_apart_where_unpaired_cis_overlap() -> None:
    rng = np.random.default_rng(3)
    difficulty = rng.uniform(0.1, 0.9, size=40)  # queries differ far more than the systems do
    a = difficulty + 0.03 + rng.normal(0, 0.005, size=40)
    b = difficulty
    ci_a, ci_b = stats.mean_ci(list(a)), stats.mean_ci(list(b))
    assert ci_a.low is not None and ci_b.high is not None and ci_a.low < ci_b.high  # unpaired: overlap
    scores = {"a": dict(enumerate(a)), "b": dict(enumerate(b))}
    assert ranks({m: {str(q): v for q, v in s.items()} for m, s in scores.items()}) == {
        "a": 1,
        "b": 2,
    }


def test_noise_alone_shares_a_rank() -> None:
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, size=30)
    scores = {m: {str(q): float(v + rng.normal(0, 0.05)) for q, v in enumerate(base)} for m in "abc"}
    assert set(ranks(scores).values()) == {1}


def test_paired_tests_use_only_shared_queries() -> None:
    a = {"1": 0.9, "2": 0.8, "3": 0.7, "4": None}
    b = {"1": 0.5, "2": 0.4, "3": 0.3, "4": 0.99}
    cmp = stats.paired_tests({"a": a, "b": b})
    assert cmp.n_shared[0, 1] == 3 and cmp.mean_diff[0, 1] == pytest.approx(0.4)
    # three shared queries: 2^3 sign patterns, exact; all differences positive -> p = 2/8
    assert cmp.pvalue[0, 1] == pytest.approx(0.25)


def test_lower_is_better_reverses_ranks() -> None:
    scores = {"a": {str(q): q / 10 for q in range(12)}, "b": {str(q): q / 10 + 0.2 for q in range(12)}}
    assert ranks(scores) == {"a": 2, "b": 1}
    assert ranks(scores, higher_is_better=False) == {"a": 1, "b": 2}


def test_systems_without_scores_get_no_rank() -> None:
    from benchmark.api.meta_eval import system_ranks

    ranked = {system: rank for rank, system, _ in system_ranks({"a": {"1": 0.5}, "b": {"1": None}})}
    assert ranked == {"a": 1, "b": 0}


def test_holm_adjustment() -> None:
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_intervals_are_seeded_and_use_bca_where_n_allows() -> None:
    values = [0.1, 0.5, 0.2, 0.9, 0.4, 0.35, 0.8, 0.05, 0.6, 0.3, 0.45, 0.7]
    first, again = stats.mean_ci(values, seed=1), stats.mean_ci(values, seed=1)
    assert first == again and first.method == "BCa"
    other = stats.mean_ci(values, seed=2)
    assert (other.low, other.high) != (first.low, first.high)  # the seed is what makes them equal
    assert stats.mean_ci(values[:5]).method == "percentile"
    assert stats.mean_ci([0.5, 0.5]).method == "constant"
    one = stats.mean_ci([0.4, None])
    assert one.value == 0.4 and one.low is None and one.n == 1
    assert stats.mean_ci([None]).value is None


def test_holm_decides_a_borderline_difference() -> None:
    """Six queries, a always 0.1 above b: exact two-sided p = 2/64 ≈ 0.031 < 0.05, but b's
    family holds two comparisons, so Holm needs p < 0.025: b is not ranked below a."""
    b = {str(q): 0.1 * q for q in range(6)}
    a = {q: v + 0.1 for q, v in b.items()}
    c = {q: v + (0.3 if int(q) % 2 else -0.3) for q, v in b.items()}
    cmp = stats.paired_tests({"a": a, "b": b})
    assert cmp.pvalue[0, 1] == pytest.approx(2 / 64)
    assert ranks({"a": a, "b": b, "c": c})["b"] == 1


def test_a_missing_score_is_a_dash_and_nan_counts_as_missing() -> None:
    from benchmark.core.stats import MISSING, fmt_score, missing

    assert missing(None) and missing(float("nan")) and not missing(0.0)
    assert fmt_score(float("nan")) == MISSING and fmt_score(None) == MISSING
    assert fmt_score(0.5, float("nan"), 0.6) == "0.500" and fmt_score(0.5, 0.4, 0.6) == "0.500 [0.40, 0.60]"


def test_paired_test_and_interval_are_scipys_on_fixed_data() -> None:
    """The paired test is scipy's sign-flip permutation test of the mean difference, and the
    interval scipy's bootstrap, on the same fixed numbers and seed."""
    import numpy as np
    from scipy import stats as st

    a = {f"q{i}": v for i, v in enumerate([0.9, 0.7, 0.8, 0.6, 0.75, 0.85, 0.65, 0.7, 0.95, 0.8, 0.6, 0.7])}
    b = {
        q: v - d
        for (q, v), d in zip(
            a.items(), [0.1, 0.05, 0.2, -0.05, 0.1, 0.15, 0.0, 0.05, 0.1, 0.2, -0.1, 0.05], strict=True
        )
    }
    cmp = stats.paired_tests({"A": a, "B": b}, seed=3, n_resamples=5000)
    diffs = np.array([a[q] - b[q] for q in sorted(a)], dtype=np.float32)
    ref = st.permutation_test(
        (diffs,), np.mean, permutation_type="samples", n_resamples=5000, alternative="two-sided",
        random_state=np.random.default_rng(3),
    )  # fmt: skip
    assert cmp.pvalue[0, 1] == pytest.approx(ref.pvalue) and cmp.mean_diff[0, 1] == pytest.approx(
        diffs.mean()
    )
    values = list(a.values())
    ci = stats.mean_ci(values, seed=5, n_resamples=2000)
    boot = st.bootstrap(
        (np.array(values),), np.mean, n_resamples=2000, method="BCa", random_state=np.random.default_rng(5)
    )
    assert (ci.low, ci.high) == pytest.approx((boot.confidence_interval.low, boot.confidence_interval.high))
    assert ci.method == "BCa"
