"""DecompScore's arithmetic (Wanner et al., 2024, §3.2) as pure functions of plain verdicts:
each subclaim is judged against the sentence it was decomposed from; per passage the supported
count (DecompScore), their share (coherence) and, with a corpus, the effect on S_fact of
dropping the unsupported ones (docs/decompscore.md).  An undetermined verdict leaves the
counts it would change undetermined, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdicts:
    """One subclaim: supported (LLM), entailed (NLI), grounded (``None``: not judged)."""

    supported: bool | None
    entailed: bool | None = None
    grounded: bool | None = None


def _count(values: Sequence[bool | None]) -> int | None:
    return None if any(v is None for v in values) else sum(bool(v) for v in values)


def _share(hits: int | None, n: int) -> float | None:
    return None if hits is None or n == 0 else hits / n


def passage_scores(units: Sequence[Sequence[Verdicts]], *, grounded: bool = False) -> dict[str, float | None]:
    """Scores of one passage from its units' subclaim verdicts (see module docstring)."""
    flat = [v for unit in units for v in unit]
    supported = _count([v.supported for v in flat])
    scores: dict[str, float | None] = {
        "decompscore": None if supported is None else float(supported),
        "decompscore_nli": None if (e := _count([v.entailed for v in flat])) is None else float(e),
        "coherence": _share(supported, len(flat)),
        "subclaims_per_unit": len(flat) / len(units) if units else None,
        "subclaims": float(len(flat)),
    }
    if grounded:
        s_all = _share(_count([v.grounded for v in flat]), len(flat))
        kept = [v for v in flat if v.supported]
        s_kept = None if supported is None else _share(_count([v.grounded for v in kept]), len(kept))
        scores |= {
            "s_fact_all": s_all,
            "s_fact_coherent": s_kept,
            "s_fact_change": None if s_all is None or s_kept is None else s_kept - s_all,
        }
    return scores
