"""Nugget scores of the TREC RAG track as pure functions of plain data.

Pradeep et al., "Initial Nugget Evaluation Results for the TREC 2024 RAG Track with the
AutoNuggetizer Framework" (2024), and the 2025 track: each topic has *nuggets* — atomic
facts a good answer contains — labelled **vital** or **okay**, and each answer is judged
per nugget as ``support``, ``partial_support`` or ``not_support``.  Per answer:

* ``vital_strict`` — share of the vital nuggets the answer supports;
* ``vital_partial`` — the same, a partially supported nugget counting ½;
* ``all_strict`` / ``all_partial`` — the same over every nugget.

These are the four scores of castorini's ``nuggetizer`` (``calculate_nugget_scores``:
strict_vital_score, vital_score, strict_all_score, all_score), with deliberate differences,
all so that a number is never made up (``docs/conformance.md``, section nuggetizer):

* a topic without vital nuggets has no vital score (``None``; nuggetizer says 0.0);
* a nugget whose assignment failed (``None``, or nuggetizer's ``"failed"``) leaves its
  answer's scores undetermined (a failure, never "not supported"; nuggetizer counts it
  as not supported);
* a nugget whose importance failed (nuggetizer's ``"failed"``) leaves the vital scores
  undetermined (nuggetizer counts it as okay); the all scores do not depend on importance;
* a topic with no nuggets has no score (nuggetizer says 0.0 for all four).

``compatible=True`` (``--nuggetizer-compatible``) computes what nuggetizer computes on
every one of these, except that a judgement of our own that failed (``None``) stays
undetermined in every mode: only nuggetizer's own ``"failed"`` labels are counted its way.

Nothing here calls a model.
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
    """The four scores of one answer, from each nugget's importance and assignment label.

    A label ``None`` (our judgement failed) leaves every score undetermined, in every mode.
    By default nuggetizer's ``"failed"`` label does the same, a ``"failed"`` importance
    leaves the vital scores undetermined, and no vital nugget (or no nugget) means no
    score; ``compatible`` counts them as nuggetizer's ``calculate_nugget_scores`` does:
    ``"failed"`` as not supported, resp. as okay, and a share of nothing as 0.0."""
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
    """``"stage: reason"`` for nuggetizer's failed judgements among an answer's nuggets:
    how many assignments, and how many importance labels, it wrote as ``"failed"``."""
    out = []
    if n := sum(lab == FAILED for lab in labels):
        out.append(f"assignment: {n} nugget(s) labelled {FAILED!r} (nuggetizer's judgement failed)")
    if n := sum(imp == FAILED for imp in importance):
        out.append(f"importance: {n} nugget(s) of importance {FAILED!r} (nuggetizer's judgement failed)")
    return out
