"""How small a difference a board can tell apart: the minimum detectable difference of its paired test.

With a dozen queries most models share rank 1; beside the ranks, each board says how large a
difference in its ranked score its test (:func:`benchmark.core.stats.ranks_of`) would detect
with 80 % power, so *cannot tell apart* does not read as *equal*.  The power is that of the
two-sided t-test at Holm's strictest level α / (m − 1), exactly through the noncentral t,
with the permutation test's own floor on its p-value kept; docs/power.md gives the method
and how ``tests/unit/test_power.py`` checks it against the test itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchmark.core.stats import ALPHA, PERMUTATION_RESAMPLES, PairedComparison

POWER = 0.8
#: an SD of per-query differences this small is rounding, not spread: every difference is the
#: same (``0.02 * i`` apart in floating point gives ~1e-17)
SAME = 1e-9


def comparison_level(alpha: float, models: int) -> float:
    """The level Holm tests a model's most significant comparison at: α over its m − 1."""
    return alpha / max(1, models - 1)


def smallest_p(n: int, n_resamples: int = PERMUTATION_RESAMPLES) -> float:
    """The smallest two-sided p-value the sign-flip test can give on ``n`` queries."""
    if n < 1:
        return 1.0
    if n < 63 and 2**n <= n_resamples:
        return 2.0 / 2**n
    return 2.0 / (n_resamples + 1)


def detectable_difference(sd: float, n: int, level: float, power: float = POWER) -> float:
    """The smallest mean difference the paired test at ``level`` detects with ``power`` on ``n``
    queries whose differences have SD ``sd``; ``inf`` where the test cannot reach ``level``."""
    if n < 2 or math.isnan(sd) or smallest_p(n) >= level:
        return math.inf
    if sd <= SAME:
        return 0.0
    from scipy import optimize, stats

    df = n - 1
    critical = float(stats.t.ppf(1 - level / 2, df))

    def shortfall(ncp: float) -> float:
        # the far tail (a difference detected with the wrong sign) underflows to NaN: it is 0
        wrong_sign = float(stats.nct.cdf(-critical, df, ncp))
        rejects = float(stats.nct.sf(critical, df, ncp)) + (0.0 if math.isnan(wrong_sign) else wrong_sign)
        return rejects - power

    ncp = optimize.brentq(shortfall, 0.0, critical + 6.0, xtol=1e-10)  # power > 0.99 there
    return float(ncp * sd / math.sqrt(n))


@dataclass(frozen=True)
class BoardPower:
    """What one board's paired tests can tell apart."""

    detectable: float  #: in the ranked score's units; ``inf``: nothing can be told apart
    sd: float  #: pooled SD of the per-query differences of its pairs
    n: int  #: the (median) number of queries its pairs share
    level: float  #: the per-comparison level (α / (m − 1))
    models: int
    alpha: float = ALPHA
    power: float = POWER


def board_power(cmp: PairedComparison, alpha: float = ALPHA, power: float = POWER) -> BoardPower | None:
    """The board's detectable difference from its pairs' pooled variance and median shared
    queries; ``None`` under two models."""
    m = len(cmp.models)
    if m < 2 or cmp.sd_diff is None:
        return None
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    sds = [float(cmp.sd_diff[i, j]) for i, j in pairs if int(cmp.n_shared[i, j]) > 1]
    shared = sorted(int(cmp.n_shared[i, j]) for i, j in pairs)
    n = shared[len(shared) // 2]
    sd = math.sqrt(sum(s * s for s in sds) / len(sds)) if sds else math.nan
    level = comparison_level(alpha, m)
    return BoardPower(detectable_difference(sd, n, level, power), sd, n, level, m, alpha, power)


def pair_detectable(
    cmp: PairedComparison, i: int, j: int, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The detectable difference of one pair, from its own SD and shared queries."""
    if cmp.sd_diff is None:
        return math.inf
    level = comparison_level(alpha, len(cmp.models))
    return detectable_difference(float(cmp.sd_diff[i, j]), int(cmp.n_shared[i, j]), level, power)


def fmt_detectable(value: float, digits: int = 3) -> str:
    """A detectable difference as read: "0.128", or "none" where nothing can be detected."""
    return "none" if math.isinf(value) or math.isnan(value) else f"{value:.{digits}f}"


def below(difference: float, detectable: float) -> bool:
    """Whether an observed mean difference is smaller than what the test detects."""
    return abs(difference) < detectable
