"""The ICAT pipeline: claims → candidates → grounding → aspects → alignment → scores, each stage
batched across the queries; every query is scored by one call to
:func:`~benchmark.families.icat.formulas.icat_query_scores`.  A failed extraction or an
undetermined grounding fails the query (never a 0); only grounded claims are aligned to aspects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from benchmark.families.base import Prepared, ScoringInputs
from benchmark.families.icat.aspects import (
    Aspect,
    alignment_messages,
    alignment_to_ids,
    aspect_messages,
    manual_alignment,
    parse_alignment,
    parse_aspects,
)
from benchmark.families.icat.claims import (
    ClaimList,
    claim_messages,
    parse_claims,
    select_claims,
    sentence_claims,
)
from benchmark.families.icat.family import ICATSettings
from benchmark.families.icat.qrels import load_aspect_qrels, task_aspect_qrels
from benchmark.families.icat.scores import (
    covered_counts,
    query_failed,
    trace_scores,
)
from benchmark.families.icat.trace import AspectTrace, ClaimTrace, ICATTrace, PassageTrace
from benchmark.judging.decomposition import METHODS
from benchmark.judging.grounding import ClaimGrounding, ground_claims
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash, stage
from benchmark.models.structured import run_structured
from benchmark.retrieval import Retriever, candidate_documents, resolve_corpus
from benchmark.tasks import Task

PASSAGE_TEXT_CHARS = 600  # passage text kept in traces (enough to read the evidence)
AspectQrels = Mapping[tuple[str, str], set[str]]


@dataclass
class ICATState:
    """What scoring one task needs, resolved once (:func:`prepare`)."""

    task: Task
    judges: JudgeStack
    retriever: Retriever
    aspect_qrels: AspectQrels
    variants: tuple[str, ...]
    beta: float
    candidate_retriever: Retriever | None = None
    descriptions: dict[str, str] = field(default_factory=dict)


@dataclass
class _Query:
    """One query moving through the stages."""

    qid: str
    text: str
    answer: str
    trace: ICATTrace
    claims: ClaimList = field(default_factory=ClaimList)
    groundings: list[ClaimGrounding] = field(default_factory=list)
    gold: list[Aspect] = field(default_factory=list)
    generated: list[Aspect] | None = None
    alignments: dict[str, dict[str, list[str]] | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not query_failed(self.trace)

    def fail(self, stage: str, reason: str, raw: list[str] | None = None) -> None:
        self.trace.failures.append(f"{stage}: {reason}")
        if raw:
            self.trace.raw[stage] = raw


def score_batch(state: ICATState, items: Sequence[tuple[str, str, str]]) -> list[ICATTrace]:
    """Traces for ``(query id, query text, answer)`` items, every stage batched across them."""
    queries = [_Query(q, text, ans, ICATTrace(query_id=q, query=text, answer=ans)) for q, text, ans in items]
    with stage("claims"):
        extract_claims(state, queries)
    with stage("grounding"):
        ground(state, queries)
    with stage("aspects"):
        aspects(state, queries)
    with stage("alignment"):
        align(state, queries)
    for q in queries:
        finish(state, q)
    return [q.trace for q in queries]


# -- 1. AC(y) ------------------------------------------------------------------------


def extract_claims(state: ICATState, queries: Sequence[_Query]) -> None:
    """All claims of each answer; an empty answer has none and costs no call."""
    prof = state.judges.profile
    settings = {"min_words": prof.claims.min_words, "max_claims": prof.claims.max_claims}
    need = [q for q in queries if q.answer.strip()]
    if prof.claims.extractor == "sentences":
        for q in need:
            q.claims = select_claims(sentence_claims(q.answer), **settings)
        return
    if prof.claims.extractor in METHODS:
        decompose_claims(state, need, settings)
        return
    outcomes = run_structured(
        state.judges.llm,
        [claim_messages(q.text, q.answer, prof.prompts["claims"]) for q in need],
        parse_claims,
        max_retries=prof.llm.max_retries,
    )
    for q, out in zip(need, outcomes, strict=True):
        if out.ok:
            q.claims = select_claims(out.value or [], **settings)
        else:
            q.fail("claims", str(out.error), out.raw)


def decompose_claims(state: ICATState, queries: Sequence[_Query], settings: dict[str, Any]) -> None:
    """Claims by a named decomposition method, sentence by sentence, all sentences batched."""
    decomposer = state.judges.decomposer(state.judges.profile.claims.extractor)
    units = [(q, sentence_claims(q.answer)) for q in queries]
    done = iter(decomposer.decompose([s for _, ss in units for s in ss]))
    for q, ss in units:
        parts = [next(done) for _ in ss]
        failed = [u for u in parts if u.error]
        if failed:
            q.fail(
                "claims",
                f"{len(failed)} sentence(s) could not be decomposed: {failed[0].error}",
                failed[0].raw,
            )
        else:
            q.claims = select_claims([c for u in parts for c in u.subclaims], **settings)


# -- 2. CG(C; K) -----------------------------------------------------------------------


def candidates(state: ICATState, queries: Sequence[_Query]) -> dict[str, frozenset[str] | None]:
    """Per query, the documents its claims may be grounded in (the BM25 top-N of the query)."""
    spec = state.judges.profile.retriever
    if spec.candidate_docs is None or state.candidate_retriever is None:
        return {q.qid: None for q in queries}
    texts = [q.text for q in queries]
    if spec.candidate_query == "text+description":
        texts = [
            f"{t} {state.descriptions.get(q.qid, '')}".strip() for t, q in zip(texts, queries, strict=True)
        ]
    docs = candidate_documents(state.candidate_retriever, texts, spec.candidate_docs)
    return {q.qid: frozenset(d) for q, d in zip(queries, docs, strict=True)}


def ground(state: ICATState, queries: Sequence[_Query]) -> None:
    ok = [q for q in queries if q.ok and q.claims.claims]
    with stage("candidates"):
        allowed = candidates(state, ok)
    for q in ok:
        cand = allowed[q.qid]
        q.trace.candidate_docs = sorted(cand) if cand is not None else None
    grounded = ground_claims(
        {q.qid: [(c.claim_id, c.text) for c in q.claims.claims] for q in ok},
        state.retriever,
        state.judges.entailment,
        k=state.judges.profile.retriever.k,
        candidates=allowed,
    )
    for q in ok:
        q.groundings = grounded[q.qid]
        undetermined = sum(g.failed for g in q.groundings)
        if undetermined:
            q.fail(
                "entailment",
                f"{undetermined} claim(s) could not be judged: no passage supported them "
                "and some entailment checks failed",
            )


# -- 3. aspects TQ(x) -------------------------------------------------------------------


def aspects(state: ICATState, queries: Sequence[_Query]) -> None:
    """Ground-truth aspects (M, S) from the task; generated ones (A) from the LLM."""
    prof = state.judges.profile
    for q in queries:
        q.gold = [Aspect(str(a["aspect_id"]), str(a["text"])) for a in state.task.aspects(q.qid)]
    if "a" not in state.variants:
        return
    need = [q for q in queries if q.ok]
    outs = run_structured(
        state.judges.llm,
        [aspect_messages(q.text, prof.prompts["aspects"]) for q in need],
        parse_aspects,
        max_retries=prof.llm.max_retries,
    )
    for q, out in zip(need, outs, strict=True):
        if out.ok:
            q.generated = out.value
        else:
            q.fail("aspects_a", str(out.error), out.raw)


# -- 4. alignment TO(c) -----------------------------------------------------------------


def align(state: ICATState, queries: Sequence[_Query]) -> None:
    """M from the aspect qrels of a grounded claim's first supporting document; S and A by the LLM."""
    prof = state.judges.profile
    jobs: list[tuple[_Query, str, list[Aspect], list[ClaimGrounding]]] = []
    for q in queries:
        if not q.ok:
            continue
        grounded = [g for g in q.groundings if g.grounded]
        if "m" in state.variants:
            first = {g.claim_id: g.first_supporting.doc_id if g.first_supporting else None for g in grounded}
            q.alignments["m"] = manual_alignment(q.qid, first, state.aspect_qrels)
        for v, tq in (("s", q.gold), ("a", q.generated)):
            if v not in state.variants or tq is None:
                continue
            if grounded and tq:
                jobs.append((q, v, tq, grounded))
            else:
                q.alignments[v] = {}  # nothing grounded (or no aspects): nothing is covered
    if not jobs:
        return
    outs = run_structured(
        state.judges.llm,
        [
            alignment_messages(q.text, tq, [g.claim for g in cl], prof.prompts["alignment"])
            for q, _, tq, cl in jobs
        ],
        [partial(parse_alignment, n_aspects=len(tq), n_claims=len(cl)) for _, _, tq, cl in jobs],
        max_retries=prof.llm.max_retries,
    )
    for (q, v, tq, cl), out in zip(jobs, outs, strict=True):
        if out.ok and out.value is not None:
            q.alignments[v] = alignment_to_ids(out.value, [g.claim_id for g in cl], tq)
        else:
            q.fail(f"alignment_{v}", str(out.error), out.raw)


# -- 5. scores and trace ------------------------------------------------------------------


def finish(state: ICATState, q: _Query) -> None:
    """Fill the trace with what was decided, then score the query from the trace alone."""
    tr = q.trace
    tr.variants, tr.beta = list(state.variants), state.beta
    tr.aspects = [AspectTrace(aspect_id=a.aspect_id, text=a.text) for a in q.gold]
    tr.generated_aspects = [AspectTrace(aspect_id=a.aspect_id, text=a.text) for a in q.generated or []]
    tr.counts = {**q.claims.counts(), "claims": len(q.claims.claims), "aspects": len(q.gold)}
    if tr.candidate_docs is not None:
        tr.counts["candidate_docs"] = len(tr.candidate_docs)
    by_id = {g.claim_id: g for g in q.groundings}
    tr.claims = [
        _claim_trace(c.claim_id, c.text, by_id.get(c.claim_id), q.alignments) for c in q.claims.claims
    ]
    tr.scores = trace_scores(tr)
    if q.ok:
        tr.counts["grounded"] = sum(c.grounded for c in tr.claims)
        for v, n in covered_counts(tr).items():
            tr.counts[f"covered_{v}"] = n


def _claim_trace(
    claim_id: str,
    text: str,
    g: ClaimGrounding | None,
    alignments: Mapping[str, Mapping[str, list[str]] | None],
) -> ClaimTrace:
    def covered(v: str) -> list[str]:
        return list((alignments.get(v) or {}).get(claim_id, []))

    return ClaimTrace(
        claim_id=claim_id,
        text=text,
        grounded=bool(g and g.grounded),
        failed=bool(g and g.failed),
        first_supporting=g.first_supporting.passage_id if g and g.first_supporting else None,
        passages=[
            PassageTrace(**{**asdict(p), "text": (p.text or "")[:PASSAGE_TEXT_CHARS]})
            for p in (g.passages if g else [])
        ],
        aspects_m=covered("m"),
        aspects_s=covered("s"),
        aspects_a=covered("a"),
    )


# -- what a task needs, resolved once ---------------------------------------------------


def scorable_queries(task: Task, inputs: ScoringInputs) -> list[str] | None:
    """The queries the corpus was written for (all when it covers every query)."""
    corpus = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
    return list(corpus.covers) if corpus.covers is not None else None


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: ICATSettings) -> Prepared:
    corpus = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
    notes: list[str] = []
    if inputs.files.get("aspect_qrels"):
        qrels = load_aspect_qrels(inputs.files["aspect_qrels"], task)
        qrels_id = content_hash(sorted((k, sorted(v)) for k, v in qrels.items()))
    elif corpus.task_corpus:
        qrels, qrels_id = task_aspect_qrels(task), "task"
    else:
        qrels, qrels_id = {}, "none"
    variants = settings.variants
    if (
        "variants" not in settings.model_fields_set
        and "aspects-alignment" in judges.profile.llm.not_asked_for
    ):
        notes.append(
            f"ICAT-S and ICAT-A not computed: profile {judges.profile.id} does not ask its LLM "
            f"({judges.profile.llm.model}) to align claims to aspects (llm.not_asked_for); "
            "--variants m,s,a asks it anyway"
        )
        variants = tuple(v for v in variants if v == "m")
    if "m" in variants and not qrels:
        notes.append(
            "ICAT-M not computed: no aspect-level relevance judgements for this corpus (pass --aspect-qrels)"
        )
        variants = tuple(v for v in variants if v != "m")
    retriever = judges.retriever(corpus, task)
    state = ICATState(
        task=task,
        judges=judges,
        retriever=retriever,
        aspect_qrels=qrels,
        variants=variants,
        beta=settings.beta,
        candidate_retriever=(
            judges.retriever(corpus, task, kind="bm25") if judges.profile.retriever.candidate_docs else None
        ),
        descriptions=task.descriptions(),
    )
    return Prepared(state, content_hash(retriever.identity), notes, run_key=(variants, qrels_id))
