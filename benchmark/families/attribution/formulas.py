"""Attribution scores as pure functions of plain data (docs/attribution.md): ALCE's citation
recall and precision (Gao et al., EMNLP 2023, §4.2), the TREC 2024 RAG track's support-weighted
precision and recall (Thakur et al., SIGIR 2025), and per-sentence RAG diagnostics in the manner
of RAGChecker (Ru et al., NeurIPS 2024 D&B).  A support level is :data:`FULL`, :data:`PARTIAL`
or :data:`NONE`; ``None`` is a failed judgement, which leaves the answer's scores undetermined,
never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FULL, PARTIAL, NONE = 1.0, 0.5, 0.0
LEVELS = {"full": FULL, "partial": PARTIAL, "none": NONE}
SCORES = (
    "citation_recall",
    "citation_precision",
    "support_recall",
    "support_precision",
    "uncited",
    "invalid_citations",
)


@dataclass(frozen=True)
class Sentence:
    """One answer sentence's citations and their levels: ``alone[i]`` of the ``i``-th valid
    citation, ``joint`` of all together, ``without[i]`` of the others without the ``i``-th (only
    where it decides ALCE precision)."""

    alone: tuple[float | None, ...] = ()
    joint: float | None = None
    without: tuple[float | None, ...] = ()
    invalid: int = 0

    @property
    def cited(self) -> int:
        return len(self.alone)

    @property
    def others(self) -> tuple[float | None, ...]:
        """``without``, one per citation (``None`` where not judged)."""
        return tuple(self.without) + (None,) * (self.cited - len(self.without))


def _joint_known(sentences: Sequence[Sentence]) -> bool:
    return all(not s.cited or s.joint is not None for s in sentences)


def _precision_known(sentences: Sequence[Sentence]) -> bool:
    """Every judgement ALCE precision reads is there: each citation alone and, where one
    does not support alone under a supporting union, the others without it."""
    for s in sentences:
        if s.cited and (s.joint is None or any(a is None for a in s.alone)):
            return False
        for a, w in zip(s.alone, s.others, strict=True):
            if s.cited > 1 and s.joint == FULL and a != FULL and w is None:
                return False
    return True


def citation_recall(sentences: Sequence[Sentence]) -> float | None:
    """ALCE citation recall: the share of sentences their cited passages fully support."""
    if not sentences or not _joint_known(sentences):
        return None
    return sum(1.0 for s in sentences if fully_supported(s)) / len(sentences)


def fully_supported(s: Sentence) -> bool:
    """ALCE recall's label: the sentence cites something and its citations together fully support it."""
    return bool(s.cited) and s.joint == FULL


def relevant_citations(s: Sentence) -> tuple[bool, ...]:
    """ALCE precision's label of each of one sentence's valid citations: relevant when the
    citations together fully support the sentence and this one supports it alone or the
    others no longer do without it (one citation: whenever it fully supports)."""
    if not fully_supported(s):
        return (False,) * s.cited
    if s.cited == 1:
        return (True,)
    return tuple(a == FULL or w != FULL for a, w in zip(s.alone, s.others, strict=True))


def citation_counts(s: Sentence) -> int:
    """How many of one sentence's valid citations ALCE counts as relevant."""
    return sum(relevant_citations(s))


def citation_precision(sentences: Sequence[Sentence]) -> float | None:
    """ALCE citation precision: relevant citations over all citations, invalid ones
    included; ``None`` when the answer cites nothing (there is nothing to be precise
    about) or a judgement is undetermined."""
    total = sum(s.cited + s.invalid for s in sentences)
    if not total or not _precision_known(sentences):
        return None
    return sum(citation_counts(s) for s in sentences) / total


def support_precision(sentences: Sequence[Sentence]) -> float | None:
    """TREC RAG weighted precision: mean support weight over every citation (invalid ones 0)."""
    weights = [a for s in sentences for a in s.alone] + [NONE] * sum(s.invalid for s in sentences)
    if not weights or any(w is None for w in weights):
        return None
    return sum(w for w in weights if w is not None) / len(weights)


def support_recall(sentences: Sequence[Sentence]) -> float | None:
    """TREC RAG weighted recall: mean over sentences of their citations' best weight."""
    if not sentences or any(a is None for s in sentences for a in s.alone):
        return None
    return sum(max((a for a in s.alone if a is not None), default=NONE) for s in sentences) / len(sentences)


def uncited(sentences: Sequence[Sentence]) -> float | None:
    """Share of sentences that cite no passage they were given."""
    return sum(1.0 for s in sentences if not s.cited) / len(sentences) if sentences else None


def invalid_citations(sentences: Sequence[Sentence]) -> float | None:
    """Share of citations that name no passage the answer was given."""
    total = sum(s.cited + s.invalid for s in sentences)
    return sum(s.invalid for s in sentences) / total if total else None


SOURCES = ("context", "corpus", "neither")


def source_share(sources: Sequence[str | None], which: str) -> float | None:
    """Share of sentences whose support comes from ``which``."""
    if not sources or any(s is None for s in sources):
        return None
    return sum(1.0 for s in sources if s == which) / len(sources)


def context_utilisation(relevant_given: Sequence[str], used: Sequence[str]) -> float | None:
    """Share of the relevant passages given that support one of the answer's sentences."""
    if not relevant_given:
        return None
    return sum(1.0 for p in relevant_given if p in set(used)) / len(relevant_given)


def diagnostic_scores(
    sources: Sequence[str | None], relevant_given: Sequence[str] | None, used: Sequence[str]
) -> dict[str, float | None]:
    return {
        "faithfulness": source_share(sources, "context"),
        "self_knowledge": source_share(sources, "corpus"),
        "hallucination": source_share(sources, "neither"),
        "context_utilisation": context_utilisation(relevant_given or [], used),
    }


def attribution_scores(sentences: Sequence[Sentence]) -> dict[str, float | None]:
    return {
        "citation_recall": citation_recall(sentences),
        "citation_precision": citation_precision(sentences),
        "support_recall": support_recall(sentences),
        "support_precision": support_precision(sentences),
        "uncited": uncited(sentences),
        "invalid_citations": invalid_citations(sentences),
    }
