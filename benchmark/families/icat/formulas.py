"""ICAT's equations as pure functions (Samarinas et al., "Beyond Factual Accuracy"); the only
implementation of these numbers.  ``S_fact = |C_T| / |C|``; ``S_coverage`` counts the aspects
covered by *grounded* claims only; ``ICAT_β`` is their F_β.  The edge cases the paper leaves
open (no claims: S_fact 0; no aspects: no coverage) are decided here, in docs/icat.md and in
the unit tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

DEFAULT_BETAS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)


def s_fact(n_grounded: int, n_claims: int) -> float:
    """Factuality score ``|C_T| / |C|``; 0 when the answer has no claims."""
    if n_claims < 0 or n_grounded < 0 or n_grounded > n_claims:
        raise ValueError(f"invalid counts: {n_grounded} grounded of {n_claims} claims")
    return 0.0 if n_claims == 0 else n_grounded / n_claims


def covered_aspects(
    alignment: Mapping[str, Iterable[str]], grounded: Iterable[str], aspects: Iterable[str]
) -> set[str]:
    """Aspects of the query covered by at least one *grounded* claim (invented aspect ids drop
    out of the intersection)."""
    tq = set(aspects)
    out: set[str] = set()
    for cid in grounded:
        out.update(a for a in alignment.get(cid, ()) if a in tq)
    return out


def s_coverage(n_covered: int, n_aspects: int) -> float | None:
    """Coverage score ``|covered ∩ TQ| / |TQ|``; ``None`` when the query has no aspects."""
    if n_aspects < 0 or n_covered < 0 or n_covered > n_aspects:
        raise ValueError(f"invalid counts: {n_covered} covered of {n_aspects} aspects")
    return None if n_aspects == 0 else n_covered / n_aspects


def icat_beta(fact: float | None, coverage: float | None, beta: float = 1.0) -> float | None:
    """Weighted harmonic mean of factuality and coverage (F-measure form)."""
    if fact is None or coverage is None:
        return None
    if beta < 0:
        raise ValueError("beta must be >= 0")
    if math.isinf(beta):
        return coverage
    b2 = beta * beta
    denom = b2 * fact + coverage
    if denom == 0:
        return 0.0 if beta > 0 or fact == 0 else fact
    return (1 + b2) * fact * coverage / denom


def query_scores(
    claim_ids: Sequence[str],
    grounded: Iterable[str],
    aspects: Sequence[str],
    alignment: Mapping[str, Iterable[str]],
    beta: float = 1.0,
) -> dict[str, float | None]:
    """All ICAT numbers for one query from its verdicts and alignment."""
    grounded = [c for c in grounded if c in set(claim_ids)]
    fact = s_fact(len(grounded), len(claim_ids))
    covered = covered_aspects(alignment, grounded, aspects)
    cov = s_coverage(len(covered), len(set(aspects)))
    return {"s_fact": fact, "s_coverage": cov, "icat": icat_beta(fact, cov, beta)}


VARIANTS: tuple[str, ...] = ("m", "s", "a")


def icat_query_scores(
    claim_ids: Sequence[str],
    grounded: Iterable[str],
    aspects: Mapping[str, Sequence[str] | None],
    alignments: Mapping[str, Mapping[str, Iterable[str]] | None],
    beta: float = 1.0,
) -> dict[str, float | None]:
    """Every ICAT number of one query: ``s_fact`` and, per variant ``v``, ``s_coverage_v`` and
    ``icat_v`` (``None`` where the variant could not be computed); ``aspects[v]`` is ``TQ(x)``
    and ``alignments[v]`` maps claim id -> ``TO(c)``."""
    grounded = list(grounded)
    out: dict[str, float | None] = {"s_fact": s_fact(len(set(grounded) & set(claim_ids)), len(claim_ids))}
    for v in VARIANTS:
        tq, to = aspects.get(v), alignments.get(v)
        if tq is None or to is None:
            out[f"s_coverage_{v}"] = out[f"icat_{v}"] = None
            continue
        scores = query_scores(claim_ids, grounded, tq, to, beta)
        out[f"s_coverage_{v}"], out[f"icat_{v}"] = scores["s_coverage"], scores["icat"]
    return out


def beta_sweep(
    facts: Sequence[float | None], coverages: Sequence[float | None], betas: Iterable[float] = DEFAULT_BETAS
) -> dict[str, float | None]:
    """Macro-averaged ICAT_β over queries for each β (queries with a ``None`` skipped)."""
    out: dict[str, float | None] = {}
    for beta in betas:
        vals = [icat_beta(f, c, beta) for f, c in zip(facts, coverages, strict=True)]
        vals = [v for v in vals if v is not None]
        out[f"{beta:g}"] = sum(vals) / len(vals) if vals else None
    return out
