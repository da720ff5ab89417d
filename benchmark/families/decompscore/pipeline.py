"""DecompScore's pipeline: decompose → judge each subclaim against its source → (ground), each
stage batched across the passages.  A unit the method could not decompose fails its passage
(its count is unknown, not zero).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.families.base import Prepared, ScoringInputs
from benchmark.families.decompscore.family import DecompSettings
from benchmark.families.decompscore.scores import trace_scores
from benchmark.families.decompscore.trace import DecompTrace, SubclaimTrace, UnitTrace
from benchmark.judging.decomposition import Decomposer, Granularity, units_of
from benchmark.judging.grounding import ground_claims
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash, stage
from benchmark.models.entailment import LLMEntailment
from benchmark.models.profiles import EntailmentSpec
from benchmark.retrieval import Retriever, resolve_corpus
from benchmark.tasks import Task


@dataclass
class DecompState:
    decomposer: Decomposer
    judges: JudgeStack
    granularity: Granularity
    retriever: Retriever | None = None  # set when subclaims are also grounded in a corpus


def score_batch(state: DecompState, items: Sequence[tuple[str, str, str]]) -> list[DecompTrace]:
    traces = [
        DecompTrace(
            query_id=qid,
            query=text,
            answer=answer,
            method=state.decomposer.identity,
            granularity=state.granularity,
            grounded=state.retriever is not None,
        )
        for qid, text, answer in items
    ]
    with stage("decomposition"):
        decompose(state, traces)
    with stage("support"):
        judge(state, [t for t in traces if not t.failures])
    if state.retriever is not None:
        with stage("grounding"):
            ground(state, [t for t in traces if not t.failures])
    for t in traces:
        t.scores = trace_scores(t)
        t.counts = {
            "units": len(t.units),
            "subclaims": sum(len(u.subclaims) for u in t.units),
            "units_failed": sum(u.error is not None for u in t.units),
            "subclaims_repeated": sum(u.repeated for u in t.units),
        }
    return traces


def decompose(state: DecompState, traces: Sequence[DecompTrace]) -> None:
    sources = [(t, units_of(t.answer, state.granularity)) for t in traces]
    units = iter(state.decomposer.decompose([s for _, ss in sources for s in ss]))
    for trace, ss in sources:
        for _ in ss:
            unit = next(units)
            trace.units.append(
                UnitTrace(
                    source=unit.source,
                    subclaims=[SubclaimTrace(text=c, support=None) for c in unit.subclaims],
                    error=unit.error,
                    raw=unit.raw if unit.error else [],
                    repeated=unit.repeated,
                )
            )
        failed = [u for u in trace.units if u.error]
        if failed:
            trace.failures.append(
                f"decomposition: {len(failed)} unit(s) could not be decomposed: {failed[0].error}"
            )


def judge(state: DecompState, traces: Sequence[DecompTrace]) -> None:
    """LLM and entailment-model support of every subclaim by its own source unit."""
    subs = [(u.source, s) for t in traces for u in t.units for s in u.subclaims]
    if not subs:
        return
    pairs = [(source, s.text) for source, s in subs]
    prof = state.judges.profile
    llm_judge = LLMEntailment(
        EntailmentSpec(kind="llm"),
        state.judges.llm,
        prompt_ref=prof.prompts.get("entailment", "entailment@1"),
    )
    entailment = state.judges.entailment
    for (_, s), support, nli in zip(
        subs, llm_judge.support_scores(pairs), entailment.support_scores(pairs), strict=True
    ):
        s.support = support
        s.entailment = nli
        s.entailed = None if nli is None else nli >= entailment.threshold
    for t in traces:
        undetermined = sum(s.support is None for u in t.units for s in u.subclaims)
        if undetermined:
            t.failures.append(f"support: {undetermined} subclaim(s) could not be judged against their source")


def ground(state: DecompState, traces: Sequence[DecompTrace]) -> None:
    """Each subclaim against the corpus, as ICAT grounds claims (for the S_fact effect)."""
    assert state.retriever is not None
    claims = {
        t.query_id: [(f"{i}.{j}", s.text) for i, u in enumerate(t.units) for j, s in enumerate(u.subclaims)]
        for t in traces
    }
    k = state.judges.profile.retriever.k
    grounded = ground_claims(claims, state.retriever, state.judges.entailment, k=k)
    for t in traces:
        verdicts = iter(grounded[t.query_id])
        for u in t.units:
            for s in u.subclaims:
                g = next(verdicts)
                s.grounded = None if g.failed else g.grounded
                s.evidence = g.first_supporting.passage_id if g.first_supporting else None


# -- what a task needs, resolved once --------------------------------------------------


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: DecompSettings) -> Prepared:
    decomposer = judges.decomposer(
        settings.method,
        static_examples=settings.static_examples,
        retrieved_examples=settings.retrieved_examples,
    )
    retriever, corpus_id, notes = None, None, []
    has_corpus = inputs.corpus or inputs.lucene_index or task.card.corpus.kind != "none"
    if settings.ground and has_corpus:
        retriever = judges.retriever(resolve_corpus(task, inputs.corpus, inputs.lucene_index), task)
        corpus_id = content_hash(retriever.identity)
    elif settings.ground:
        notes.append("S_fact effect not computed: no corpus (pass --corpus or --task with a corpus)")
    state = DecompState(decomposer, judges, settings.granularity, retriever)
    return Prepared(state=state, corpus_id=corpus_id, notes=notes, run_key=(decomposer.identity,))
