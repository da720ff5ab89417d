"""Why a board's models share or swap a rank: every pair of its ranked models, with the paired
test that decided, and whether the difference is one the test could have seen at all.

One place for what the Space's "Why these ranks" table, the snapshot and the board's power
line all read (:func:`board_pairs`, :func:`power_line`), so the three cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.core import power
from benchmark.core.stats import ALPHA, PairedComparison, holm_adjusted


@dataclass(frozen=True)
class Pair:
    """Two ranked models of one board, A ranked at or above B."""

    a: str
    b: str
    mean_diff: float  #: A − B over the queries both have a score for
    n_shared: int
    p: float  #: the two-sided paired permutation test's p-value
    holm_p: float  #: Holm-adjusted over B's comparisons: what B's rank was tested against α
    a_better: bool  #: A significantly better (B ranks below A for it)
    detectable: float  #: this pair's detectable difference at 80 % power (``inf``: none)

    @property
    def below_detectable(self) -> bool:
        """The observed difference is smaller than what the test detects with 80 % power."""
        return power.below(self.mean_diff, self.detectable)


def board_pairs(
    cmp: PairedComparison, order: Sequence[str], *, higher_is_better: bool = True, alpha: float = ALPHA
) -> list[Pair]:
    """Every pair of the models in ``order`` (rank order, best first) that ``cmp`` compared."""
    index = {m: i for i, m in enumerate(cmp.models)}
    adjusted = holm_adjusted(cmp)
    sign = 1.0 if higher_is_better else -1.0
    ranked = [m for m in order if m in index]
    out = []
    for pos, a in enumerate(ranked):
        for b in ranked[pos + 1 :]:
            i, j = index[a], index[b]
            diff = float(cmp.mean_diff[i, j])
            shared = int(cmp.n_shared[i, j])
            out.append(
                Pair(
                    a=a,
                    b=b,
                    mean_diff=diff,
                    n_shared=shared,
                    p=float(cmp.pvalue[i, j]),
                    holm_p=float(adjusted[j, i]),
                    a_better=bool(adjusted[j, i] < alpha and sign * diff > 0 and shared > 0),
                    detectable=power.pair_detectable(cmp, i, j, alpha),
                )
            )
    return out


def power_columns(cmp: PairedComparison | None, alpha: float = ALPHA) -> dict[str, object]:
    """A board's power as columns of each of its rows (:data:`POWER_COLUMNS`, so that every
    rendering and the snapshot carry it); all ``None`` where the board has no paired tests."""
    bp = power.board_power(cmp, alpha) if cmp is not None else None
    if bp is None or cmp is None:
        return dict.fromkeys(POWER_COLUMNS)
    below = sum(1 for p in board_pairs(cmp, cmp.models, alpha=alpha) if p.below_detectable)
    return dict(zip(POWER_COLUMNS, (bp.detectable, bp.sd, bp.n, bp.level, bp.models, below), strict=True))


POWER_COLUMNS = (
    "detectable",
    "detectable_sd",
    "detectable_n",
    "detectable_level",
    "detectable_models",
    "pairs_below_detectable",
)


def power_line(row: Mapping[str, Any], score: str, alpha: float = ALPHA) -> str | None:
    """The board's power in one sentence, from a row of its frame (:func:`power_columns`);
    ``None`` where it has no paired tests (one model, or ranks from repeated judgements)."""
    level, n, models = row.get("detectable_level"), row.get("detectable_n"), row.get("detectable_models")
    if _missing(level) or _missing(n) or _missing(models):
        return None
    models, small = int(models), int(row["pairs_below_detectable"])  # type: ignore[arg-type]
    pairs = models * (models - 1) // 2
    test = f"paired permutation test (α = {alpha:g}" + (
        f", Holm-corrected over {models - 1} comparisons: {float(level):.3g} each)" if models > 2 else ")"
    )
    detectable = float(row["detectable"]) if not _missing(row["detectable"]) else math.inf
    if math.isinf(detectable):
        return (
            f"Power: on {int(n)} shared queries the {test} cannot tell any two entries apart, whatever "
            "their difference, so all share a rank."
        )
    if detectable == 0:  # every pair's differences are the same on every query
        return (
            f"Power: on {int(n)} queries every pair differs by the same amount on every query, so the {test} "
            f"detects any difference in {score}."
        )
    return (
        f"Power: on {int(n)} queries (SD of per-query differences {float(row['detectable_sd']):.3f}) the "
        f"{test} detects a difference in {score} of {power.fmt_detectable(detectable)} or more with "
        f"{power.POWER:.0%} power; {small} of {pairs} pair{'s' if pairs != 1 else ''} differ by less: a rank "
        "shared there means 'cannot tell apart', not 'equal'."
    )


def _missing(value: object) -> bool:
    """None, NaN or pandas' NA (a board frame's empty cell)."""
    try:
        return value is None or bool(value != value)
    except TypeError:  # pd.NA has no truth value
        return True
