"""The attribution family's pipeline: split each answer into cited sentences, look up the
cited passages, ask the support judge every question of a batch at once (each passage
alone and the cited passages together; then, where it decides ALCE precision, the others
without one), and apply the formulas per query."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmark.answers.citations import CitedSentence, cited_sentences
from benchmark.families.attribution.family import AttributionSettings
from benchmark.families.attribution.judges import (
    EntailmentSupport,
    LLMSupport,
    Request,
    SupportJudge,
    Verdict,
)
from benchmark.families.attribution.scores import trace_scores
from benchmark.families.attribution.trace import AttributionTrace, CitationTrace, SentenceTrace
from benchmark.families.base import Prepared, ScoringInputs
from benchmark.judging.decomposition import METHODS, Decomposer
from benchmark.judging.grounding import ground_claims
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash, stage
from benchmark.models.entailment import EntailmentModel
from benchmark.retrieval import Retriever
from benchmark.tasks import Task


@dataclass
class Diagnostics:
    """What the RAG diagnostics need: entailment, a retriever over the corpus, relevance."""

    entailment: EntailmentModel
    retriever: Retriever
    k: int
    #: per query, the documents the task's qrels call relevant (``None``: unknown)
    relevant: dict[str, set[str]] | None = None


@dataclass
class AttributionState:
    judge: SupportJudge
    lookup: Callable[[str], str | None]
    #: per query, the ids of the passages the answer was given, as numbered in its prompt
    given: dict[str, list[str]]
    #: per query, the sentences as the run split them (TREC RAG runs); otherwise parsed
    split: dict[str, list[CitedSentence]] = field(default_factory=dict)
    diagnostics: Diagnostics | None = None
    #: units: claims — each sentence split into claims that inherit its citations
    decomposer: Decomposer | None = None


def _sentences(state: AttributionState, qid: str, query: str, answer: str) -> AttributionTrace:
    ids = state.given.get(qid, [])
    trace = AttributionTrace(
        query_id=qid,
        query=query,
        answer=answer,
        judge=state.judge.identity,
        partial_level=state.judge.partial_level,
        passages=list(ids),
    )
    for unit in state.split.get(qid) or cited_sentences(answer, len(ids)):
        st = SentenceTrace(text=unit.text, invalid=list(unit.invalid))
        for i in unit.citations:
            text = state.lookup(ids[i])
            if text is None:
                st.errors.append(f"cited passage {ids[i]!r} is not in the corpus")
            st.citations.append(CitationTrace(number=i + 1, passage_id=ids[i], text=text or ""))
        trace.sentences.append(st)
    return trace


def _ask(
    judge: SupportJudge, asked: list[tuple[Request, SentenceTrace, Callable[[str | None], None]]]
) -> None:
    verdicts: list[Verdict] = judge.judge([req for req, _, _ in asked])
    for (_, st, put), v in zip(asked, verdicts, strict=True):
        put(v.level)
        if v.level is None:
            st.errors.append(v.error or "the judgement failed")
            st.raw += v.raw


def score_batch(state: AttributionState, items: Sequence[tuple[str, str, str]]) -> list[AttributionTrace]:
    traces = []
    for qid, text, answer in items:
        trace = _sentences(state, qid, text, answer)
        if not trace.sentences:
            trace.failures.append("sentences: the answer has none")
        traces.append(trace)
    if state.decomposer is not None:
        with stage("claims"):
            into_claims(state.decomposer, traces)
    judged = [st for t in traces for st in t.sentences if st.citations and not st.errors]
    first: list[tuple[Request, SentenceTrace, Callable[[str | None], None]]] = []
    for st in judged:
        for c in st.citations:
            first.append((([c.text], st.text), st, lambda v, c=c: setattr(c, "alone", v)))
        if len(st.citations) > 1:
            first.append(
                (([c.text for c in st.citations], st.text), st, lambda v, st=st: setattr(st, "joint", v))
            )
    with stage("support"):
        _ask(state.judge, first)
    second: list[tuple[Request, SentenceTrace, Callable[[str | None], None]]] = []
    for st in judged:
        if len(st.citations) == 1:
            st.joint = st.citations[0].alone
        elif st.joint == "full":
            for c in st.citations:
                if c.alone not in (None, "full"):
                    others = [d.text for d in st.citations if d is not c]
                    second.append(((others, st.text), st, lambda v, c=c: setattr(c, "without", v)))
    with stage("support-without"):
        _ask(state.judge, second)
    if state.diagnostics is not None:
        with stage("diagnostics"):
            diagnose(state.diagnostics, state.lookup, traces)
    for t in traces:
        failed = [st for st in t.sentences if st.errors]
        if failed:
            t.failures.append(
                f"support: {len(failed)} sentence(s) could not be judged ({failed[0].errors[0]})"
            )
        t.scores = trace_scores(t)
        t.counts = {
            "sentences": len(t.sentences),
            "citations": sum(len(st.citations) for st in t.sentences),
            "invalid_citations": sum(len(st.invalid) for st in t.sentences),
            "judgements": sum(len(st.citations) + (len(st.citations) > 1) for st in t.sentences)
            + sum(c.without is not None for st in t.sentences for c in st.citations),
        }
    return traces


def diagnose(d: Diagnostics, lookup: Callable[[str], str | None], traces: Sequence[AttributionTrace]) -> None:
    """Where each sentence's support comes from: a passage it was given, else the corpus (grounded
    as ICAT grounds a claim), else neither; a failed check leaves the source undetermined."""
    pairs: list[tuple[str, str]] = []
    owners: list[tuple[SentenceTrace, str]] = []
    for t in traces:
        t.diagnosed = True
        if d.relevant is not None:
            rel = d.relevant.get(t.query_id, set())
            t.relevant_given = [p for p in t.passages if p.split("#", 1)[0] in rel]
        given = [(p, lookup(p)) for p in t.passages]
        missing = [p for p, text in given if text is None]
        if missing:
            t.failures.append(f"diagnostics: given passage {missing[0]!r} is not in the corpus")
            continue
        for st in t.sentences:
            for p, text in given:
                pairs.append((text or "", st.text))
                owners.append((st, p))
    with stage("context"):
        scores = d.entailment.support_scores(pairs) if pairs else []
    undetermined: set[int] = set()
    for (st, p), score in zip(owners, scores, strict=True):
        if score is None:
            undetermined.add(id(st))
        elif score >= d.entailment.threshold and p not in st.context_support:
            st.context_support.append(p)
    need: dict[str, list[tuple[str, str]]] = {}
    where: dict[tuple[str, str], SentenceTrace] = {}
    for t in traces:
        if any(f.startswith("diagnostics:") for f in t.failures):
            continue
        for n, st in enumerate(t.sentences):
            if st.context_support:
                st.source = "context"
            elif id(st) not in undetermined:
                need.setdefault(t.query_id, []).append((f"s{n}", st.text))
                where[(t.query_id, f"s{n}")] = st
    with stage("corpus"):
        grounded = ground_claims(need, d.retriever, d.entailment, k=d.k)
    for qid, found in grounded.items():
        for g in found:
            st = where[(qid, g.claim_id)]
            if g.grounded:
                st.source = "corpus"
                st.corpus_passage = g.first_supporting.passage_id if g.first_supporting else None
            elif not g.failed:
                st.source = "neither"
    for t in traces:
        unknown = sum(st.source is None for st in t.sentences)
        if unknown and not any(f.startswith("diagnostics:") for f in t.failures):
            t.failures.append(f"diagnostics: the source of {unknown} sentence(s) could not be determined")


def into_claims(decomposer: Decomposer, traces: Sequence[AttributionTrace]) -> None:
    """Each sentence replaced by its claims (the profile's decomposition method, every
    sentence of the batch at once), each citing what its sentence cites.  A sentence that
    could not be split stays one unit marked failed — never read as having no claims."""
    units = iter(decomposer.decompose([st.text for t in traces for st in t.sentences]))
    for t in traces:
        claims: list[SentenceTrace] = []
        for st in t.sentences:
            unit = next(units)
            if unit.error is not None:
                st.errors.append(f"claims: the sentence could not be split ({unit.error})")
                st.raw += unit.raw
                claims.append(st)
                continue
            for c in unit.subclaims:
                claims.append(st.model_copy(update={"text": c, "sentence": st.text}, deep=True))
        t.sentences = claims


# -- what a task needs, resolved once --------------------------------------------------


def relevant_documents(task: Task) -> dict[str, set[str]] | None:
    """Per query, the documents the task's document-level qrels grade relevant (>= 1)."""
    if not task.has_table("qrels"):
        return None
    q = task.table("qrels")
    if "aspect_id" in q:
        q = q[q["aspect_id"].isna()]
    q = q[q["relevance"] >= 1]
    out: dict[str, set[str]] = {}
    for qid, doc in zip(q["query_id"].astype(str), q["doc_id"].astype(str), strict=True):
        out.setdefault(qid, set()).add(doc)
    return out


def support_judge(judges: JudgeStack, settings: AttributionSettings) -> SupportJudge:
    """The support judge the settings name, on the profile's models."""
    if settings.judge == "llm":
        return LLMSupport(judges.llm, max_retries=judges.profile.llm.max_retries)
    return EntailmentSupport(judges.entailment)


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: AttributionSettings) -> Prepared:
    from benchmark.retrieval import resolve_corpus
    from benchmark.retrieval.lookup import PassageLookup

    ref = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
    stored = judges.retriever(ref, task, "bm25").passage_text if ref.kind == "lucene" else None  # type: ignore[attr-defined]
    lookup = PassageLookup(ref, task, judges.profile.retriever, stored=stored)
    judge = support_judge(judges, settings)
    given = {q: list(ids) for q, ids in (inputs.evidence or {}).items()}
    split = dict(inputs.sentences or {})
    diagnostics = None
    notes = [f"cited passages looked up in {ref.label}"]
    decomposer = None
    if settings.units == "claims":
        method = judges.profile.claims.extractor
        method = method if method in METHODS else "factscore"
        decomposer = judges.decomposer(method)
        notes.append(f"units: claims, split sentence by sentence by the {method} method")
    if settings.diagnostics and ref.kind == "irds":
        notes.append("RAG diagnostics not run: an ir_datasets corpus serves lookups only, not retrieval")
    elif settings.diagnostics:
        relevant = relevant_documents(task) if ref.task_corpus else None
        diagnostics = Diagnostics(
            judges.entailment, judges.retriever(ref, task), judges.profile.retriever.k, relevant
        )
        if relevant is None:
            notes.append("context utilisation not computed: no qrels for this corpus")
    if not judge.partial_level:
        notes.append("the entailment judge has no partial level: support is full or none")
    if split:
        notes.append("sentences and citations as the run file split them")
    return Prepared(
        state=AttributionState(judge, lookup, given, split, diagnostics, decomposer),
        corpus_id="passages:" + content_hash(ref.key, task.data_fingerprint if ref.task_corpus else ""),
        notes=notes,
        run_key=(
            judge.identity,
            decomposer.identity if decomposer is not None else None,
            content_hash(sorted(given.items())),
            content_hash(
                sorted((q, [(s.text, s.citations, s.invalid) for s in ss]) for q, ss in split.items())
            ),
        ),
    )
