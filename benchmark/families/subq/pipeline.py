"""The sub-question family's pipeline: every answer and every set of retrieved chunks of a
batch to the coverage judge at once, then the formulas once per query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmark.families.subq.judges import CoverageJudge, Mark
from benchmark.families.subq.scores import trace_scores
from benchmark.families.subq.trace import SubqTrace, SubQuestionTrace
from benchmark.models.cache import stage


@dataclass(frozen=True)
class SubQuestion:
    sub_question_id: str
    text: str
    type: str


@dataclass
class SubqState:
    sub_questions: dict[str, list[SubQuestion]]
    judge: CoverageJudge
    weights: tuple[float, float, float]
    #: per query, the ids of the chunks the system was given; and their texts
    given: dict[str, list[str]] = field(default_factory=dict)
    passages: dict[str, str] = field(default_factory=dict)


def score_batch(state: SubqState, items: Sequence[tuple[str, str, str]]) -> list[SubqTrace]:
    traces = []
    for qid, text, answer in items:
        trace = SubqTrace(
            query_id=qid, query=text, answer=answer, judge=state.judge.identity, weights=state.weights
        )
        trace.sub_questions = [
            SubQuestionTrace(sub_question_id=s.sub_question_id, text=s.text, type=s.type)
            for s in state.sub_questions.get(qid, [])
        ]
        if not trace.sub_questions:
            trace.failures.append("sub-questions: the task has none for this query")
        traces.append(trace)
    questions = [[s.text for s in t.sub_questions] for t in traces]
    with stage("coverage-answer"):
        answer_marks = state.judge.judge([([t.answer], qs) for t, qs in zip(traces, questions, strict=True)])
    for t, marks in zip(traces, answer_marks, strict=True):
        for s, m in zip(t.sub_questions, marks, strict=True):
            s.in_answer, s.answer_support, s.answer_evidence = m.covered, m.support, m.evidence
            _keep(s, m)
    judged = [t for t in traces if t.query_id in state.given]
    if judged:
        chunks = []
        for t in judged:
            ids = state.given[t.query_id]
            unknown = [i for i in ids if i not in state.passages]
            if unknown:
                t.failures.append(
                    f"retrieval: {len(unknown)} given chunk id(s) not in the corpus, e.g. {unknown[0]!r}"
                )
            chunks.append([state.passages[i] for i in ids if i in state.passages])
        with stage("coverage-retrieval"):
            marks = state.judge.judge(
                [(c, [s.text for s in t.sub_questions]) for c, t in zip(chunks, judged, strict=True)]
            )
        for t, ms in zip(judged, marks, strict=True):
            t.retrieval_judged = True
            for s, m in zip(t.sub_questions, ms, strict=True):
                s.in_retrieval, s.retrieval_support, s.retrieval_evidence = m.covered, m.support, m.evidence
                _keep(s, m)
    for t in traces:
        undetermined = sum(
            s.in_answer is None or (t.retrieval_judged and s.in_retrieval is None) for s in t.sub_questions
        )
        if undetermined:
            t.failures.append(f"coverage: {undetermined} sub-question(s) could not be judged")
        t.scores = trace_scores(t)
        t.counts = {
            "sub_questions": len(t.sub_questions),
            "core_questions": sum(s.type == "core" for s in t.sub_questions),
            "covered_in_answer": sum(bool(s.in_answer) for s in t.sub_questions),
        }
    return traces


def _keep(s: SubQuestionTrace, m: Mark) -> None:
    if m.error:  # the raw replies of a failed judgement are kept with it
        s.errors.append(m.error)
        s.raw += m.raw
