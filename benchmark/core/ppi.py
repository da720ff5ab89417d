"""Judge scores corrected by a few human labels: prediction-powered inference (PPI++).

Why: an LLM or NLI judge is biased in ways no card can remove — it calls too many claims
supported, or too few nuggets covered — and its bias moves every system's score. A user who
holds a few hundred human labels for units the judge also labelled (claims, nuggets,
sentences, questions) can correct the judge's mean over *all* units and get an interval that
is valid whatever the judge's bias: the judge's mean over the unlabelled units, minus its
average error on the labelled ones (Angelopoulos et al., 2023; PPI++ tunes how much of the
judge to trust, so the interval is never wider than the human labels' own). ARES uses the
same estimator.  The arithmetic is ``ppi-python``'s (``ppi_py.ppi_mean_ci``), not ours; this
module only shapes the units, weights and result.

Weights let the corrected figure be the *same* quantity as the raw score: a family score that
is a mean over queries of a per-query fraction of units (ICAT's factuality, nugget recall)
weighs each unit 1 / (units of its query), so the weighted unit mean is the query macro-average.
Only scores that are such a weighted mean of unit labels can be corrected this way; a family
states which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Corrected:
    """A score corrected with human labels, beside the judge's own figure on the same units."""

    #: the corrected estimate and its interval
    mean: float
    low: float
    high: float
    #: the judge's uncorrected weighted mean over every unit
    raw: float
    #: units with a human label / units with only the judge's
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
    """The PPI++ estimate of the mean unit label and its two-sided interval.

    ``human[i]`` and ``judge_on_labelled[i]`` are the person's and the judge's label of the
    same unit; ``judge_on_unlabelled`` are the judge's labels of the units nobody labelled.
    Labelled units must be drawn at random from all units (the interval's guarantee rests on
    it); the caller says so to the user.
    """
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
