"""The attribution family's pipeline: split each answer into cited sentences, look up the
cited passages, ask the support judge every question of a batch at once (each passage
alone and the cited passages together; then, where it decides ALCE precision, the others
without one), and apply the formulas per query."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmark.families.attribution.judges import Request, SupportJudge, Verdict
from benchmark.families.attribution.scores import trace_scores
from benchmark.families.attribution.trace import AttributionTrace, CitationTrace, SentenceTrace
from benchmark.generation.rag import CitedSentence, cited_sentences


@dataclass
class AttributionState:
    judge: SupportJudge
    lookup: Callable[[str], str | None]
    #: per query, the ids of the passages the answer was given, as numbered in its prompt
    given: dict[str, list[str]]
    #: per query, the sentences as the run split them (TREC RAG runs); otherwise parsed
    split: dict[str, list[CitedSentence]] = field(default_factory=dict)


def _sentences(state: AttributionState, qid: str, answer: str) -> AttributionTrace:
    ids = state.given.get(qid, [])
    trace = AttributionTrace(
        query_id=qid,
        query="",
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
        trace = _sentences(state, qid, answer)
        trace.query = text
        if not trace.sentences:
            trace.failures.append("sentences: the answer has none")
        traces.append(trace)
    judged = [st for t in traces for st in t.sentences if st.citations and not st.errors]
    first: list[tuple[Request, SentenceTrace, Callable[[str | None], None]]] = []
    for st in judged:
        for c in st.citations:
            first.append((([c.text], st.text), st, lambda v, c=c: setattr(c, "alone", v)))
        if len(st.citations) > 1:
            first.append(
                (([c.text for c in st.citations], st.text), st, lambda v, st=st: setattr(st, "joint", v))
            )
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
    _ask(state.judge, second)
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
