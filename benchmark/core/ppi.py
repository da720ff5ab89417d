"""Judge scores corrected by a few human labels: prediction-powered inference (PPI++,
Angelopoulos et al., 2023; as ARES uses it), valid whatever the judge's bias.

The arithmetic is ``ppi-python``'s (``ppi_py.ppi_mean_ci``); this module shapes the units,
weights and result.  Each unit weighs 1 / (units of its query), so the corrected figure is
the same query macro-average as the raw score (docs/human-labels.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Corrected:
    """A score corrected with human labels, beside the judge's own (``raw``) on the same units."""

    mean: float
    low: float
    high: float
    raw: float
    n_labelled: int
    n_unlabelled: int
    confidence: float


def _weights(w: Sequence[float] | None, n: int) -> np.ndarray:
    """ppi-python wants weights that average 1 within each set (it normalises by their sum)."""
    arr = np.ones(n) if w is None else np.asarray(w, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{len(arr)} weights for {n} units")
    if (arr < 0).any() or arr.sum() <= 0:
        raise ValueError("unit weights must be non-negative and not all zero")
    return arr / arr.mean()


def corrected_mean(
    human: Sequence[float],
    judge_on_labelled: Sequence[float],
    judge_on_unlabelled: Sequence[float],
    *,
    weights_labelled: Sequence[float] | None = None,
    weights_unlabelled: Sequence[float] | None = None,
    confidence: float = 0.95,
) -> Corrected:
    """The PPI++ estimate of the mean unit label and its two-sided interval: ``human[i]`` and
    ``judge_on_labelled[i]`` label the same unit.  The labelled units must be a random sample
    (the interval's guarantee rests on it); the caller says so to the user."""
    y = np.asarray(human, dtype=float)
    yhat = np.asarray(judge_on_labelled, dtype=float)
    yhat_u = np.asarray(judge_on_unlabelled, dtype=float)
    if len(y) != len(yhat):
        raise ValueError(f"{len(y)} human labels but {len(yhat)} judge labels for them")
    if len(y) < 2 or len(yhat_u) < 1:
        raise ValueError("need at least two labelled units and one unlabelled unit")
    w = _weights(weights_labelled, len(y))
    w_u = _weights(weights_unlabelled, len(yhat_u))
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # numba-compiled: imported only when used

    alpha = 1.0 - confidence
    point = float(np.atleast_1d(ppi_mean_pointestimate(y, yhat, yhat_u, w=w, w_unlabeled=w_u))[0])
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, w=w, w_unlabeled=w_u)
    # the raw figure weighs labelled and unlabelled units alike, as the uncorrected score does
    raw_w = np.concatenate(
        [
            np.ones(len(y)) if weights_labelled is None else np.asarray(weights_labelled, float),
            np.ones(len(yhat_u)) if weights_unlabelled is None else np.asarray(weights_unlabelled, float),
        ]
    )
    raw = float(np.average(np.concatenate([yhat, yhat_u]), weights=raw_w))
    return Corrected(
        mean=point,
        low=float(np.atleast_1d(low)[0]),
        high=float(np.atleast_1d(high)[0]),
        raw=raw,
        n_labelled=len(y),
        n_unlabelled=len(yhat_u),
        confidence=confidence,
    )
