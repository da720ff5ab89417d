"""ICAT scores from a trace alone, importing no model: how a published result is checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmark.families.icat import formulas
from benchmark.families.icat.trace import ICATTrace

QUERY_FAILING_STAGES = ("claims", "entailment")


def query_failed(trace: ICATTrace) -> bool:
    return any(f.split(":", 1)[0] in QUERY_FAILING_STAGES for f in trace.failures)


def _inputs(tr: ICATTrace) -> tuple[dict[str, list[str] | None], dict[str, dict[str, list[str]] | None]]:
    """Per variant, the aspect ids TQ(x) and the alignment TO(c) the trace records (``None``: not computed)."""
    stages = {f.split(":", 1)[0] for f in tr.failures}
    gold = [a.aspect_id for a in tr.aspects]
    aspects: dict[str, list[str] | None] = {
        "m": gold,
        "s": gold,
        "a": None if "aspects_a" in stages else [a.aspect_id for a in tr.generated_aspects],
    }
    alignments: dict[str, dict[str, list[str]] | None] = {}
    for v in formulas.VARIANTS:
        if v not in tr.variants or f"alignment_{v}" in stages or aspects[v] is None:
            aspects[v] = alignments[v] = None
        else:
            alignments[v] = {c.claim_id: list(getattr(c, f"aspects_{v}")) for c in tr.claims}
    return aspects, alignments


def trace_scores(tr: ICATTrace) -> dict[str, float | None]:
    """Every ICAT number of one query, from its trace alone."""
    if query_failed(tr):
        return dict.fromkeys(SCORE_KEYS)
    aspects, alignments = _inputs(tr)
    return formulas.icat_query_scores(
        [c.claim_id for c in tr.claims],
        [c.claim_id for c in tr.claims if c.grounded],
        aspects,
        alignments,
        tr.beta,
    )


def covered_counts(tr: ICATTrace) -> dict[str, int]:
    aspects, alignments = _inputs(tr)
    grounded = [c.claim_id for c in tr.claims if c.grounded]
    return {
        v: len(formulas.covered_aspects(alignments[v] or {}, grounded, aspects[v] or []))
        for v in formulas.VARIANTS
        if alignments[v] is not None
    }


SCORE_KEYS = ("s_fact", *(f"{p}_{v}" for v in formulas.VARIANTS for p in ("s_coverage", "icat")))


def units(tr: ICATTrace, key: str = "s_fact") -> list[tuple[str, float, float]] | None:
    """(claim id, 1 if grounded, 1 / claims) for S_fact of one answer (``--human-labels``);
    ``None`` where the query failed."""
    if key != "s_fact" or query_failed(tr) or not tr.claims:
        return None
    return [(c.claim_id, 1.0 if c.grounded else 0.0, 1.0 / len(tr.claims)) for c in tr.claims]


def curves(traces: Sequence[ICATTrace], settings: Any) -> dict[str, dict[str, float | None]]:
    """ICAT_β over the settings' β sweep, per variant computed."""
    return {
        f"icat_{v}_beta": formulas.beta_sweep(
            [t.scores.get("s_fact") for t in traces],
            [t.scores.get(f"s_coverage_{v}") for t in traces],
            settings.betas,
        )
        for v in formulas.VARIANTS
        if any(t.scores.get(f"s_coverage_{v}") is not None for t in traces)
    }
