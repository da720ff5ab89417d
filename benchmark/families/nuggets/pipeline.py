"""The nugget family's pipeline: every (answer, nuggets) item of a batch to the assignment
judge at once, then the formulas once per query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.judges import Assigner
from benchmark.families.nuggets.nuggetizer_files import Nugget
from benchmark.families.nuggets.scores import trace_scores
from benchmark.families.nuggets.trace import NuggetsTrace, NuggetTrace
from benchmark.models.cache import stage


@dataclass
class NuggetsState:
    nuggets: dict[str, list[Nugget]]
    assigner: Assigner
    #: nuggetizer's numbers (``--nuggetizer-compatible``), recorded in every trace
    compatible: bool = False


def score_batch(state: NuggetsState, items: Sequence[tuple[str, str, str]]) -> list[NuggetsTrace]:
    traces = []
    for qid, text, answer in items:
        trace = NuggetsTrace(
            query_id=qid,
            query=text,
            answer=answer,
            judge=state.assigner.identity,
            partial_level=state.assigner.partial_level,
            nuggetizer_compatible=state.compatible,
            nuggets=[
                NuggetTrace(nugget_id=n.nugget_id, text=n.text, importance=n.importance)
                for n in state.nuggets.get(qid, [])
            ],
        )
        if qid not in state.nuggets:
            trace.failures.append("nuggets: none for this query")
        # an empty list is the nugget file's problem, noted once by the family, not a failure here
        traces.append(trace)
    with stage("assignment"):
        judged = state.assigner.assign([(t.query, t.answer, [n.text for n in t.nuggets]) for t in traces])
    for t, marks in zip(traces, judged, strict=True):
        for n, m in zip(t.nuggets, marks, strict=True):
            n.assignment, n.support, n.evidence = m.label, m.support, m.evidence
            if m.error:
                n.errors.append(m.error)
                n.raw += m.raw
        failed = sum(n.assignment is None for n in t.nuggets)
        if failed:
            first = next(e for n in t.nuggets for e in n.errors)
            t.failures.append(f"assignment: {failed} nugget(s) could not be judged ({first})")
        if not state.compatible:
            t.failures += [
                f
                for f in formulas.failed_judgements([n.importance for n in t.nuggets], [])
                if f not in t.failures
            ]
        t.scores = trace_scores(t)
        t.counts = {
            "nuggets": len(t.nuggets),
            "vital": sum(n.importance == "vital" for n in t.nuggets),
            "supported": sum(n.assignment == "support" for n in t.nuggets),
            "partially_supported": sum(n.assignment == "partial_support" for n in t.nuggets),
        }
    return traces
