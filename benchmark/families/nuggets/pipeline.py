"""The nugget family's pipeline: every (answer, nuggets) item of a batch to the assignment
judge at once, then the formulas once per query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.core.errors import InputError
from benchmark.families.base import Prepared, ScoringInputs
from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.family import NuggetsSettings
from benchmark.families.nuggets.formulas import FAILED
from benchmark.families.nuggets.judges import Assigner, EntailmentAssigner, LLMAssigner
from benchmark.families.nuggets.nuggetizer_files import Nugget, empty_topics, read_nuggets
from benchmark.families.nuggets.scores import trace_scores
from benchmark.families.nuggets.trace import NuggetsTrace, NuggetTrace
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash, stage
from benchmark.tasks import Task


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


# -- what a task needs, resolved once --------------------------------------------------


def task_nuggets(task: Task) -> dict[str, list[Nugget]]:
    """The task's nuggets by query (the table's schema checks their importance)."""
    out: dict[str, list[Nugget]] = {}
    for row in task.table("nuggets").to_dict("records"):
        qid = str(row["query_id"])
        out.setdefault(qid, []).append(
            Nugget(
                qid, str(row["nugget_id"]), str(row["text"]), str(row["importance"]), str(row["provenance"])
            )
        )
    return out


def scorable_queries(task: Task, inputs: ScoringInputs) -> list[str] | None:
    if inputs.files.get("nuggets"):
        asked = set(read_nuggets(inputs.files["nuggets"]))
    elif task.has_table("nuggets"):
        asked = set(task.table("nuggets")["query_id"].astype(str))
    else:
        return []
    return [q for q in task.quick_order() if q in asked]


def assigner(judges: JudgeStack, settings: NuggetsSettings) -> Assigner:
    """The assignment judge the settings name, on the profile's models."""
    if settings.assigner == "llm":
        return LLMAssigner(judges.llm, max_retries=judges.profile.llm.max_retries)
    return EntailmentAssigner(judges.entailment)


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: NuggetsSettings) -> Prepared:
    lines: dict[str, int] = {}
    if inputs.files.get("nuggets"):
        nuggets = read_nuggets(inputs.files["nuggets"], lines=lines)
        source = "nuggets:" + content_hash(
            sorted((q, [(n.text, n.importance) for n in ns]) for q, ns in nuggets.items())
        )
    elif task.has_table("nuggets"):
        nuggets, source = task_nuggets(task), "nuggets:task"
    else:
        raise InputError.at(
            task.where(),
            "the task has no nuggets table: pass --nuggets FILE (a nuggetizer nugget file)",
            field="data.tables",
        )
    judge = assigner(judges, settings)
    notes = nugget_notes(nuggets, settings.nuggetizer_compatible, inputs.files.get("nuggets"), lines)
    if not judge.partial_level:
        notes.append("the entailment assigner has no partial level: partial scores equal strict ones")
    return Prepared(
        state=NuggetsState(nuggets, judge, settings.nuggetizer_compatible),
        corpus_id=source,
        notes=notes,
        run_key=(judge.identity,),
    )


def nugget_notes(
    nuggets: dict[str, list[Nugget]], compatible: bool, file: str | None, lines: dict[str, int]
) -> list[str]:
    """What a run says of the nuggets it scores against: how many, and the topics the file
    left empty or whose importance nuggetizer could not judge (each read as compatible mode
    reads it)."""
    n = sum(len(v) for v in nuggets.values())
    vital = sum(x.importance == "vital" for v in nuggets.values() for x in v)
    notes = [f"nuggets: {n} ({vital} vital) for {len(nuggets)} queries"]
    if compatible:
        notes.append(
            "nuggetizer-compatible: 0 where a topic has no vital nugget or none, importance 'failed' "
            "counted as okay, as nuggetizer's calculate_metrics.py (docs/conformance.md)"
        )
    if empty := empty_topics(nuggets):
        notes.append(
            f"{file or 'the nuggets'}: {len(empty)} topic(s) with an empty nugget list "
            f"({', '.join(f'{q} on line {lines[q]}' if q in lines else q for q in empty[:10])}"
            f"{', …' if len(empty) > 10 else ''}): a problem of the nugget file — "
            + ("scored 0, as nuggetizer does" if compatible else "their answers have no nugget score")
        )
    failed = [q for q, ns in nuggets.items() if any(x.importance == FAILED for x in ns)]
    if failed:
        notes.append(
            f"{len(failed)} topic(s) with nuggets of importance {FAILED!r} (nuggetizer's judgement failed): "
            + ("counted as okay, as nuggetizer does" if compatible else "their vital scores are undetermined")
        )
    return notes
