"""Attribution scores from a trace alone, importing no model: how a published result is checked."""

from __future__ import annotations

from benchmark.families.attribution import formulas
from benchmark.families.attribution.trace import AttributionTrace, SentenceTrace


def level(label: str | None) -> float | None:
    return None if label is None else formulas.LEVELS[label]


def sentence(s: SentenceTrace) -> formulas.Sentence:
    alone = tuple(level(c.alone) for c in s.citations)
    return formulas.Sentence(
        alone=alone,
        joint=(alone[0] if len(alone) == 1 else level(s.joint)) if alone else None,
        without=tuple(level(c.without) for c in s.citations) if len(alone) > 1 else (),
        invalid=len(s.invalid),
    )


def trace_scores(trace: AttributionTrace) -> dict[str, float | None]:
    out = formulas.attribution_scores([sentence(s) for s in trace.sentences])
    if trace.diagnosed:
        used = sorted({p for s in trace.sentences for p in s.context_support})
        out |= formulas.diagnostic_scores([s.source for s in trace.sentences], trace.relevant_given, used)
    return out


#: the scores that are a weighted mean of unit labels (``--human-labels``), with their unit:
#: ALCE's citation recall (sentences) and precision (citations).  The TREC RAG support scores
#: label the same units with another meaning (a graded support level of one passage, the best
#: over a sentence's citations), and a labels file holds one label per unit: not declared.
LABELLED = {"citation_recall": "sentence", "citation_precision": "citation"}


def sentence_id(n: int) -> str:
    """The unit id of the trace's ``n``-th (0-based) sentence: ``s1``, ``s2``, …"""
    return f"s{n + 1}"


def citation_id(n: int, marker: str) -> str:
    """The unit id of a citation of sentence ``n``: ``s2[3]`` for its citation of the answer's
    passage [3]; ``s2[not given: 7]`` for a marker naming no passage the answer was given."""
    return f"{sentence_id(n)}[{marker}]"


def units(trace: AttributionTrace, key: str) -> list[tuple[str, float, float]] | None:
    """(unit id, label, weight) for ALCE citation recall (units: sentences) or precision (units:
    citations; one not given is 0), so that the score is Σ label × weight and a human label can
    correct it (``--human-labels``); ``None`` where the score has no value."""
    if key not in LABELLED or trace_scores(trace).get(key) is None:
        return None
    judged = [sentence(s) for s in trace.sentences]
    if key == "citation_recall":
        n = len(judged)
        return [(sentence_id(i), float(formulas.fully_supported(s)), 1.0 / n) for i, s in enumerate(judged)]
    units: list[tuple[str, float]] = []
    for i, (st, s) in enumerate(zip(trace.sentences, judged, strict=True)):
        relevant = formulas.relevant_citations(s)
        units += [
            (citation_id(i, str(c.number)), float(r)) for c, r in zip(st.citations, relevant, strict=True)
        ]
        units += [(citation_id(i, f"not given: {m}"), 0.0) for m in st.invalid]
    return [(u, label, 1.0 / len(units)) for u, label in units]
