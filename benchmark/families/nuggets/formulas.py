"""Nugget scores of the TREC RAG track as pure functions of plain data.

Pradeep et al., "Initial Nugget Evaluation Results for the TREC 2024 RAG Track with the
AutoNuggetizer Framework" (2024), and the 2025 track: each topic has *nuggets* — atomic
facts a good answer contains — labelled **vital** or **okay**, and each answer is judged
per nugget as ``support``, ``partial_support`` or ``not_support``.  Per answer:

* ``vital_strict`` — share of the vital nuggets the answer supports;
* ``vital_partial`` — the same, a partially supported nugget counting ½;
* ``all_strict`` / ``all_partial`` — the same over every nugget.

These are the four scores of castorini's ``nuggetizer`` (``calculate_nugget_scores``:
strict_vital_score, vital_score, strict_all_score, all_score), with two deliberate
differences, both so that a number is never made up: a topic without vital nuggets has no
vital score (``None``; nuggetizer says 0.0), and a nugget whose judgement failed leaves
its answer's scores undetermined (a failure, never "not supported").

Nothing here calls a model.
"""

from __future__ import annotations

from collections.abc import Sequence

LABELS = ("support", "partial_support", "not_support")
IMPORTANCE = ("vital", "okay")
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


def nugget_scores(importance: Sequence[str], labels: Sequence[str | None]) -> dict[str, float | None]:
    """The four scores of one answer, from each nugget's importance and assignment label
    (``None``: the judgement failed, which leaves every score undetermined)."""
    if any(lab is None for lab in labels):
        return dict.fromkeys(SCORES)
    known = [lab for lab in labels if lab is not None]
    vital = [lab for imp, lab in zip(importance, known, strict=True) if imp == "vital"]
    return {
        "vital_strict": share(vital, strict=True),
        "vital_partial": share(vital, strict=False),
        "all_strict": share(known, strict=True),
        "all_partial": share(known, strict=False),
    }
