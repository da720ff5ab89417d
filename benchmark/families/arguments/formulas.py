"""ConQRet's argument-quality and RAG measures as pure functions of parsed judgements: the 15
dimensions of Wachsmuth et al. (2017) on their 1-3 scale, context relevance of every judge
format mapped to [0, 1], groundedness and the preference against a human reference
(docs/arguments.md).  A judgement not given is ``None``, never the scale's minimum.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence

#: Wachsmuth et al. (2017)'s taxonomy: logical (cogency and its three), rhetorical
#: (effectiveness and its five), dialectical (reasonableness and its three), overall.
DIMENSIONS: tuple[str, ...] = (
    "local_acceptability",
    "local_relevance",
    "local_sufficiency",
    "cogency",
    "credibility",
    "emotional_appeal",
    "clarity",
    "appropriateness",
    "arrangement",
    "effectiveness",
    "global_acceptability",
    "global_relevance",
    "global_sufficiency",
    "reasonableness",
    "overall_quality",
)
#: the taxonomy's top level: overall quality and its three aspects (what a reader wants first)
TOP_LEVEL: tuple[str, ...] = ("overall_quality", "cogency", "effectiveness", "reasonableness")
QUALITY_SCALE = (1, 3)
RATING_SCALE = (1, 5)
DIRECT_SCALE = (0, 10)
#: a document rated this or higher (1-5) by Listwise+RAG Fine-Grained counts as relevant
RELEVANT_AT = 3
#: Listwise+SC's three orders of the dimensions: as the taxonomy lists them, reversed,
#: and the three aspect groups rotated (dialectical, rhetorical, logical; overall last)
SC_ORDERS: tuple[tuple[str, ...], ...] = (
    DIMENSIONS,
    tuple(reversed(DIMENSIONS)),
    (*DIMENSIONS[10:14], *DIMENSIONS[4:10], *DIMENSIONS[0:4], DIMENSIONS[14]),
)

Ratings = Mapping[str, float | None]


def unit(value: float | None, scale: tuple[int, int]) -> float | None:
    """A rating on ``scale`` mapped to [0, 1]; ``None`` stays ``None``."""
    if value is None:
        return None
    lo, hi = scale
    return (float(value) - lo) / (hi - lo)


def _vote(values: Sequence[float]) -> float:
    """The value more than half the samples gave, else their median."""
    for v in set(values):
        if values.count(v) * 2 > len(values):
            return float(v)
    return float(statistics.median(values))


def combine(
    samples: Sequence[Ratings], how: str = "mean", keys: Iterable[str] = DIMENSIONS
) -> dict[str, float | None]:
    """Listwise+SC: per dimension, the mean (or majority) of the samples that rated it."""
    out: dict[str, float | None] = {}
    for key in keys:
        values = [float(v) for s in samples if (v := s.get(key)) is not None]
        if not values:
            out[key] = None
        elif how == "mean":
            out[key] = statistics.fmean(values)
        elif how == "majority":
            out[key] = _vote(values)
        else:
            raise ValueError(f"unknown combination {how!r}; use mean or majority")
    return out


def share_true(criteria: Mapping[str, bool | None]) -> float | None:
    """Fine-grained context relevance: the share of the criteria the documents meet."""
    given = [bool(v) for v in criteria.values() if v is not None]
    return sum(given) / len(given) if given else None


def mean_unit(ratings: Iterable[float | None], scale: tuple[int, int] = RATING_SCALE) -> float | None:
    """Mean of the given ratings, mapped to [0, 1] (Query-Rubric, RAG-Rubric)."""
    given = [float(r) for r in ratings if r is not None]
    return unit(statistics.fmean(given), scale) if given else None


def precision(doc_ratings: Sequence[float | None], relevant_at: float = RELEVANT_AT) -> float | None:
    """Listwise+RAG Fine-Grained: the share of rated documents rated relevant."""
    given = [r for r in doc_ratings if r is not None]
    return sum(r >= relevant_at for r in given) / len(given) if given else None


def preference(winner: str | None) -> float | None:
    """The system's argument against the reference: 1 win, 0.5 tie, 0 loss."""
    return {"system": 1.0, "tie": 0.5, "reference": 0.0}.get(winner) if winner else None


def nugget_preference(votes: Iterable[str | None]) -> float | None:
    """RAG-Rubric: the mean per-nugget preference for the system's argument."""
    given = [p for v in votes if (p := preference(v)) is not None]
    return statistics.fmean(given) if given else None


#: the judges, by kind: quality of the argument, relevance of its evidence, both at once
QUALITY_JUDGES = ("listwise", "listwise_sc", "pointwise")
CONTEXT_JUDGES = ("direct", "fine_grained", "geval", "query_rubric")
JOINT_JUDGES = ("rag_direct", "rag_rubric", "listwise_rag", "listwise_rag_fg")
