"""The argument family's pipeline: evidence → quality judge → context judges → joint judges, each
one batched :func:`~benchmark.models.structured.run_structured` call; when the retries are
spent, the usable parts of the best reply are kept and every missing part is a failure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from benchmark.answers.citations import parse_citations
from benchmark.core.errors import InputError, usage_error
from benchmark.core.text import trim_proportionally
from benchmark.families.arguments import formulas as F
from benchmark.families.arguments import judges as J
from benchmark.families.arguments.family import ARGUMENTS, ArgumentSettings
from benchmark.families.arguments.scores import trace_scores
from benchmark.families.arguments.trace import ArgumentTrace, EvidenceDoc, JudgeRecord
from benchmark.families.base import Prepared, ScoringInputs
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash, stage
from benchmark.models.llm import Messages
from benchmark.models.structured import run_structured
from benchmark.retrieval import Retriever
from benchmark.tasks import Task


@dataclass
class ArgumentState:
    judges: JudgeStack
    settings: ArgumentSettings
    topics: dict[str, tuple[str, str]]  # query id -> (topic, stance)
    texts: dict[str, str] = field(default_factory=dict)  # evidence id -> text (the corpus, when there is one)
    given: dict[str, list[str]] = field(default_factory=dict)  # query id -> ids the system was given
    retriever: Retriever | None = None
    references: dict[str, tuple[str, str]] = field(default_factory=dict)  # query id -> (id, text)
    _geval_steps: JudgeRecord | None = None


@dataclass
class Asked:
    """One request's result: the parsed value, or the usable parts of the best reply."""

    value: Any
    partial: dict[str, Any]
    raw: list[str]
    error: str | None
    matched: bool = False  # the accepted reply's ratings equal the worked example's


def ask(
    state: ArgumentState,
    judge: str,
    requests: Sequence[Messages],
    parse: Callable[[str], Any] | Sequence[Callable[[str], Any]],
) -> list[Asked]:
    if not requests:
        return []
    prompt = J.prompt(judge)
    with stage(judge):
        outcomes = run_structured(
            state.judges.llm,
            requests,
            parse,
            max_retries=state.judges.profile.llm.max_retries,
            max_new_tokens=prompt.meta.get("max_new_tokens"),
        )
    parsers = list(parse) if isinstance(parse, Sequence) else [parse] * len(requests)
    out = []
    for o, p in zip(outcomes, parsers, strict=True):
        best: dict[str, Any] = {}
        if not o.ok:
            for n, reply in enumerate(o.raw):
                if n in o.copied:
                    continue  # a reply refused as the worked example is not salvaged for parts
                try:
                    p(reply)
                except J.Partial as exc:
                    best = exc.found if len(exc.found) > len(best) else best
                except ValueError:
                    pass
        out.append(
            Asked(
                o.value if o.ok else None,
                best,
                o.raw,
                None if o.ok else o.error or "no reply",
                o.ok and o.matched_example,
            )
        )
    return out


def score_batch(state: ArgumentState, items: Sequence[tuple[str, str, str]]) -> list[ArgumentTrace]:
    traces = []
    for qid, _, answer in items:
        topic, stance = state.topics[qid]
        traces.append(ArgumentTrace(query_id=qid, query=topic, answer=answer, topic=topic, stance=stance))
    with stage("evidence"):
        gather_evidence(state, traces)
    with stage("quality"):
        judge_quality(state, traces)
    with_docs = [t for t in traces if t.evidence]
    with stage("context"):
        judge_context(state, with_docs)
    with stage("joint"):
        judge_joint(state, with_docs)
    for t in traces:
        for name, rec in t.judges.items():
            t.failures.extend(f"{name}: {f}" for f in rec.failures)
        t.scores = trace_scores(t)
        t.counts = {
            "evidence_docs": len(t.evidence),
            "cited": len(t.cited),
            "judge_calls": sum(len(r.raw) for r in t.judges.values()),
            "example_matches": sum(r.example_matches for r in t.judges.values()),
        }
    return traces


# -- evidence ---------------------------------------------------------------------------


def gather_evidence(state: ArgumentState, traces: Sequence[ArgumentTrace]) -> None:
    """The documents the system was given, else the judge's own BM25 top-k for the topic."""
    s = state.settings
    need = [t for t in traces if t.query_id not in state.given]
    if state.retriever is not None and need:
        hits = state.retriever.search([t.topic for t in need], s.evidence_k)
        for t, hs in zip(need, hits, strict=True):
            t.evidence_source = "retrieved"
            t.evidence = [EvidenceDoc(doc_id=h.passage_id, text=h.text) for h in hs]
    for t in traces:
        ids = state.given.get(t.query_id)
        if ids is None:
            continue
        t.evidence_source = "given"
        unknown = [i for i in ids if i not in state.texts]
        if unknown:
            t.failures.append(
                f"evidence: {len(unknown)} given document id(s) not in the corpus, e.g. {unknown[0]!r}"
            )
        t.evidence = [EvidenceDoc(doc_id=i, text=state.texts[i]) for i in ids if i in state.texts]
        valid, _ = parse_citations(t.answer, len(ids))
        t.cited = [ids[n - 1] for n in valid]
    for t in traces:
        trimmed = trim_proportionally([d.text for d in t.evidence], s.max_evidence_words)
        for d, text in zip(t.evidence, trimmed, strict=True):
            d.text = text


def _render(judge: str, t: ArgumentTrace, **fields: Any) -> Messages:
    """``judge``'s request about ``t``'s topic, stance and evidence documents."""
    documents = J.documents_block([d.text for d in t.evidence])
    return J.prompt(judge).render(topic=t.topic, stance=t.stance, documents=documents, **fields)


def _failed(judge: str, why: str) -> JudgeRecord:
    return JudgeRecord(prompt=J.PROMPTS[judge], failures=[why])


def _record(judge: str, asked: Asked, parsed: dict[str, Any]) -> JudgeRecord:
    rec = JudgeRecord(
        prompt=J.PROMPTS[judge], parsed=parsed, raw=asked.raw, example_matches=int(asked.matched)
    )
    if asked.error:
        rec.failures.append(asked.error)
    return rec


# -- argument quality -------------------------------------------------------------------


def _quality_messages(t: ArgumentTrace, order: Sequence[str]) -> Messages:
    return J.prompt("listwise").render(
        topic=t.topic,
        stance=t.stance,
        argument=t.answer,
        dimensions=J.dimension_block(order),
        example=J.example_json(order),
    )


def judge_quality(state: ArgumentState, traces: Sequence[ArgumentTrace]) -> None:
    kind = state.settings.quality_judge
    if kind == "pointwise":
        defs = J.definitions()
        reqs = [
            J.prompt("pointwise").render(
                topic=t.topic, stance=t.stance, argument=t.answer, dimension=d, definition=defs[d]
            )
            for t in traces
            for d in F.DIMENSIONS
        ]
        asked = iter(ask(state, "pointwise", reqs, lambda r: J.parse_score(r, F.QUALITY_SCALE)))
        for t in traces:
            rec = JudgeRecord(prompt=J.PROMPTS["pointwise"])
            ratings: dict[str, float] = {}
            for d in F.DIMENSIONS:
                a = next(asked)
                rec.raw.extend(a.raw)
                rec.example_matches += a.matched
                if a.error:
                    rec.failures.append(f"{d}: {a.error}")
                else:
                    ratings[d] = a.value
            rec.parsed = {"ratings": ratings}
            t.judges["pointwise"] = rec
        return
    orders = F.SC_ORDERS if kind == "listwise_sc" else F.SC_ORDERS[:1]
    reqs, parsers = [], []
    for t in traces:
        for order in orders:
            reqs.append(_quality_messages(t, order))
            parsers.append(partial(J.parse_quality, order=order))
    asked = iter(ask(state, "listwise", reqs, parsers))
    for t in traces:
        rec = JudgeRecord(prompt=J.PROMPTS["listwise"])
        samples = []
        for i, _ in enumerate(orders):
            a = next(asked)
            rec.raw.extend(a.raw)
            rec.example_matches += a.matched
            got = a.value if a.value is not None else a.partial
            samples.append(got)
            if a.error:
                missing = [d for d in F.DIMENSIONS if d not in got]
                rec.failures.append(f"order {i + 1}: {a.error}; not rated: {', '.join(missing) or 'none'}")
        rec.parsed = (
            {"samples": samples, "combine": state.settings.sc_combine}
            if kind == "listwise_sc"
            else {"ratings": samples[0]}
        )
        t.judges[kind] = rec


# -- context relevance ------------------------------------------------------------------


def _rubric_items(state: ArgumentState, traces: Sequence[ArgumentTrace]) -> None:
    """The query's key points (once per query; cached, so every system gets the same)."""
    todo = [t for t in traces if "rubric_items" not in t.judges]
    p = J.prompt("rubric_items")
    reqs = [p.render(topic=t.topic, stance=t.stance, n=p.meta.get("n", 20)) for t in todo]
    for t, a in zip(todo, ask(state, "rubric_items", reqs, J.parse_items), strict=True):
        t.judges["rubric_items"] = _record("rubric_items", a, {"items": a.value or []})


def _with_key_points(
    state: ArgumentState, traces: Sequence[ArgumentTrace], judge: str
) -> list[ArgumentTrace]:
    """The arguments whose query has key points; the others get ``judge``'s failure."""
    _rubric_items(state, traces)
    ready = [t for t in traces if t.judges["rubric_items"].parsed["items"]]
    for t in traces:
        if t not in ready:
            t.judges[judge] = _failed(judge, "no key points were generated for the query")
    return ready


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {x}" for i, x in enumerate(items, start=1))


def _geval_steps(state: ArgumentState) -> JudgeRecord:
    if state._geval_steps is None:
        (a,) = ask(state, "geval_steps", [J.prompt("geval_steps").render()], J.parse_items)
        state._geval_steps = _record("geval_steps", a, {"steps": a.value or []})
    return state._geval_steps


def judge_context(state: ArgumentState, traces: Sequence[ArgumentTrace]) -> None:
    chosen = state.settings.context_judges
    if "direct" in chosen:
        reqs = [_render("direct", t) for t in traces]
        for t, a in zip(
            traces, ask(state, "direct", reqs, lambda r: J.parse_score(r, F.DIRECT_SCALE)), strict=True
        ):
            t.judges["direct"] = _record("direct", a, {"score": a.value} if a.value is not None else {})
    if "fine_grained" in chosen:
        criteria = list(J.prompt("fine_grained").meta["criteria"])
        reqs = [_render("fine_grained", t) for t in traces]
        for t, a in zip(
            traces, ask(state, "fine_grained", reqs, lambda r: J.parse_criteria(r, criteria)), strict=True
        ):
            t.judges["fine_grained"] = _record("fine_grained", a, {"criteria": a.value or a.partial})
    if "geval" in chosen and traces:
        steps = _geval_steps(state)
        if steps.failures:
            for t in traces:
                t.judges["geval"] = _failed("geval", f"no evaluation steps: {steps.failures[0]}")
        else:
            text = _numbered(steps.parsed["steps"])
            reqs = [_render("geval", t, steps=text) for t in traces]
            for t, a in zip(
                traces, ask(state, "geval", reqs, lambda r: J.parse_score(r, F.RATING_SCALE)), strict=True
            ):
                rec = _record("geval", a, {"score": a.value} if a.value is not None else {})
                rec.parsed["steps"] = steps.parsed["steps"]
                t.judges["geval"] = rec
    if "query_rubric" in chosen:
        ready = _with_key_points(state, traces, "query_rubric")
        reqs, parsers = [], []
        for t in ready:
            items = t.judges["rubric_items"].parsed["items"]
            reqs.append(_render("query_rubric", t, items=_numbered(items)))
            parsers.append(partial(J.parse_item_ratings, n=len(items)))
        for t, a in zip(ready, ask(state, "query_rubric", reqs, parsers), strict=True):
            t.judges["query_rubric"] = _record("query_rubric", a, {"ratings": a.value or a.partial})


# -- joint judges -----------------------------------------------------------------------


def system_position(t: ArgumentTrace) -> int:
    """Where the system's argument goes in a pairwise prompt (1 or 2): fixed per argument
    by a hash, so half the queries show it first and reruns are reproducible."""
    return 1 + int(hashlib.sha256(f"{t.query_id}\0{t.answer}".encode()).hexdigest()[:8], 16) % 2


def _pair_fields(t: ArgumentTrace, reference: str) -> dict[str, str]:
    first, second = (t.answer, reference) if system_position(t) == 1 else (reference, t.answer)
    return {"argument_1": first, "argument_2": second}


def judge_joint(state: ArgumentState, traces: Sequence[ArgumentTrace]) -> None:
    """The joint judges the settings chose: the pairwise ones, then the listwise RAG ones."""
    chosen = state.settings.joint_judges
    pairwise = [t for t in traces if t.query_id in state.references]
    for name in ("rag_direct", "rag_rubric"):
        if name in chosen:
            for t in traces:
                if t.query_id not in state.references:
                    t.judges[name] = _failed(name, "no human reference argument for this query")
    for t in pairwise:
        t.reference_id = state.references[t.query_id][0]
    if "rag_direct" in chosen:
        _judge_rag_direct(state, pairwise)
    if "rag_rubric" in chosen:
        _judge_rag_rubric(state, pairwise)
    for name, fine in (("listwise_rag", False), ("listwise_rag_fg", True)):
        if name in chosen:
            _judge_listwise_rag(state, traces, name, fine)


def _judge_rag_direct(state: ArgumentState, pairwise: Sequence[ArgumentTrace]) -> None:
    """RAG-Direct: context relevance, groundedness and a preference, system vs reference."""
    reqs = [_render("rag_direct", t, **_pair_fields(t, state.references[t.query_id][1])) for t in pairwise]
    for t, a in zip(pairwise, ask(state, "rag_direct", reqs, J.parse_rag_direct), strict=True):
        parsed = {"system_position": system_position(t)}
        if a.value is not None:
            parsed.update(
                {k: list(getattr(a.value, k)) for k in J.RAG_KEYS} | {"preference": a.value.preference}
            )
        t.judges["rag_direct"] = _record("rag_direct", a, parsed)


def _judge_rag_rubric(state: ArgumentState, pairwise: Sequence[ArgumentTrace]) -> None:
    """RAG-Rubric: key points of the evidence, each judged for both arguments."""
    ready = _with_key_points(state, pairwise, "rag_rubric")
    p = J.prompt("rag_rubric")
    reqs, parsers = [], []
    for t in ready:
        items = t.judges["rubric_items"].parsed["items"]
        pair = _pair_fields(t, state.references[t.query_id][1])
        reqs.append(_render("rag_rubric", t, items=_numbered(items), n_doc=p.meta.get("n_doc", 10), **pair))
        parsers.append(partial(J.parse_rag_rubric, n_items=len(items)))
    for t, a in zip(ready, ask(state, "rag_rubric", reqs, parsers), strict=True):
        parsed: dict[str, Any] = {"system_position": system_position(t)}
        if a.value is not None:
            parsed["key_points"] = [list(k) for k in a.value.key_points]
            parsed["document_points"] = [list(d) for d in a.value.document_points]
        t.judges["rag_rubric"] = _record("rag_rubric", a, parsed)


def _judge_listwise_rag(state: ArgumentState, traces: Sequence[ArgumentTrace], name: str, fine: bool) -> None:
    """Listwise+RAG (and its Fine-Grained form, one relevance verdict per document)."""
    keys = [*J.RAG_KEYS, *F.DIMENSIONS]
    reqs = [
        _render(
            name,
            t,
            argument=t.answer,
            n_docs=len(t.evidence),
            dimensions=J.dimension_block(),
            example=J.example_json(keys),
        )
        for t in traces
    ]
    parsers = [partial(J.parse_listwise_rag, n_docs=len(t.evidence) if fine else None) for t in traces]
    for t, a in zip(traces, ask(state, name, reqs, parsers), strict=True):
        t.judges[name] = _record(name, a, a.value if a.value is not None else a.partial)


# -- what a task needs, resolved once; a judge card's measurement --------------------


def topics(task: Task) -> dict[str, tuple[str, str]]:
    """Query id -> (topic, stance): an argument is for a stance on a topic."""
    queries = task.table("queries")
    if "topic" not in queries or "stance" not in queries:
        raise InputError.at(
            task.where(),
            "the argument family needs queries with 'topic' and 'stance' columns",
            field="data.tables.queries",
        )
    return {str(r.query_id): (str(r.topic), str(r.stance)) for r in queries.itertuples()}


def scorable_queries(task: Task, inputs: ScoringInputs) -> list[str] | None:
    """Every query, once the queries are checked to have a topic and a stance."""
    topics(task)
    return None


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: ArgumentSettings) -> Prepared:
    state = ArgumentState(judges=judges, settings=settings, topics=topics(task))
    notes: list[str] = []
    corpus_id = None
    has_corpus = inputs.corpus or inputs.lucene_index or task.card.corpus.kind != "none"
    if has_corpus:
        from benchmark.retrieval import document_texts, resolve_corpus

        ref = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
        state.retriever = judges.retriever(ref, task, "bm25")
        state.texts = document_texts(ref, task)
        corpus_id = content_hash(state.retriever.identity)
    if inputs.evidence:
        state.given = {q: list(ids) for q, ids in inputs.evidence.items()}
        if not state.texts:
            raise usage_error(
                "the answers name the evidence documents they were given; pass the corpus they come "
                "from with --corpus so the judges can read them",
                "--corpus",
            )
    elif not has_corpus:
        notes.append(
            "context relevance and groundedness not judged: no evidence (pass --corpus or --lucene-index)"
        )
    if task.has_table("reference_arguments"):
        for r in task.table("reference_arguments").itertuples():
            state.references.setdefault(str(r.query_id), (str(r.argument_id), str(r.text)))
    elif {"rag_direct", "rag_rubric"} & set(settings.joint_judges):
        notes.append("pairwise judges (RAG-Direct, RAG-Rubric) not run: the task has no reference arguments")
    return Prepared(
        state=state,
        corpus_id=corpus_id,
        notes=notes,
        run_key=(content_hash(sorted(state.given.items())),),
    )


def rate_for_card(
    role: str, judges: JudgeStack, items: Sequence[tuple[str, str, str]]
) -> list[tuple[float | None, list[str], int]] | None:
    """Overall quality (1-3) of standalone arguments by the default quality judge, with no
    evidence and no other judge: what the argument-quality role's card measures."""
    if role not in ARGUMENTS.judged_by.get(ARGUMENTS.primary, ()):
        return None
    settings = ArgumentSettings(context_judges=(), joint_judges=())
    ids = [f"card-{i}" for i in range(len(items))]
    state = ArgumentState(
        judges=judges,
        settings=settings,
        topics={q: (t, s) for q, (t, s, _) in zip(ids, items, strict=True)},
    )
    traces = score_batch(state, [(q, "", text) for q, (_, _, text) in zip(ids, items, strict=True)])
    return [
        (t.scores.get(ARGUMENTS.primary), list(t.failures), int(t.counts.get("example_matches", 0)))
        for t in traces
    ]
