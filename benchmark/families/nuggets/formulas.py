"""Nugget scores of the TREC RAG track (Pradeep et al., 2024, arXiv:2411.09607) as pure
functions: per answer, the share of a topic's vital (or all) nuggets it supports, strictly or
with partial support counting ½.  Where these differ from nuggetizer's ``calculate_nugget_scores``
(no score rather than 0, a failure rather than "not supported") and what ``compatible=True``
changes is in docs/conformance.md, section nuggetizer.
"""

from __future__ import annotations

from collections.abc import Sequence

LABELS = ("support", "partial_support", "not_support")
IMPORTANCE = ("vital", "okay")
#: what nuggetizer writes for an assignment or an importance after repeated unparsable replies
FAILED = "failed"
#: what a partially supported nugget counts for in the partial scores
PARTIAL_CREDIT = 0.5
SCORES = ("vital_strict", "vital_partial", "all_strict", "all_partial")


def credit(label: str, strict: bool) -> float:
    """1 for support; ½ for partial support unless ``strict``; 0 otherwise."""
    if label == "support":
        return 1.0
    return 0.0 if strict or label != "partial_support" else PARTIAL_CREDIT


def share(labels: Sequence[str], strict: bool) -> float | None:
    """Mean credit of ``labels`` (``None`` for none)."""
    return sum(credit(lab, strict) for lab in labels) / len(labels) if labels else None


def nugget_scores(
    importance: Sequence[str], labels: Sequence[str | None], compatible: bool = False
) -> dict[str, float | None]:
    """The four scores of one answer.  A label ``None`` (our judgement failed) leaves every score
    undetermined; nuggetizer's ``"failed"`` labels and empty shares count as
    ``calculate_nugget_scores`` counts them only with ``compatible``."""
    if any(lab is None for lab in labels):
        return dict.fromkeys(SCORES)
    known = [str(lab) for lab in labels]
    if compatible:
        vital = [lab for imp, lab in zip(importance, known, strict=True) if imp == "vital"]
        zero = lambda x: 0.0 if x is None else x  # noqa: E731
        return {
            "vital_strict": zero(share(vital, strict=True)),
            "vital_partial": zero(share(vital, strict=False)),
            "all_strict": zero(share(known, strict=True)),
            "all_partial": zero(share(known, strict=False)),
        }
    if FAILED in known:
        return dict.fromkeys(SCORES)
    vital = [lab for imp, lab in zip(importance, known, strict=True) if imp == "vital"]
    unknown_importance = FAILED in importance
    return {
        "vital_strict": None if unknown_importance else share(vital, strict=True),
        "vital_partial": None if unknown_importance else share(vital, strict=False),
        "all_strict": share(known, strict=True),
        "all_partial": share(known, strict=False),
    }


def failed_judgements(importance: Sequence[str], labels: Sequence[str | None]) -> list[str]:
    """``"stage: reason"`` for nuggetizer's ``"failed"`` assignments and importance labels."""
    out = []
    if n := sum(lab == FAILED for lab in labels):
        out.append(f"assignment: {n} nugget(s) labelled {FAILED!r} (nuggetizer's judgement failed)")
    if n := sum(imp == FAILED for imp in importance):
        out.append(f"importance: {n} nugget(s) of importance {FAILED!r} (nuggetizer's judgement failed)")
    return out
