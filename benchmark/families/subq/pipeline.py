"""The sub-question family's pipeline: every answer and every set of retrieved chunks of a
batch to the coverage judge at once, then the formulas once per query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmark.core.errors import InputError, Problem
from benchmark.families.base import Prepared, ScoringInputs
from benchmark.families.subq import formulas
from benchmark.families.subq.family import SubqSettings
from benchmark.families.subq.judges import CoverageJudge, LLMCoverage, Mark, SimilarityCoverage
from benchmark.families.subq.scores import trace_scores
from benchmark.families.subq.trace import SubqTrace, SubQuestionTrace
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import stage
from benchmark.tasks import Task


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


# -- what a task needs, resolved once --------------------------------------------------


def task_sub_questions(task: Task) -> dict[str, list[SubQuestion]]:
    """The task's sub-questions, types checked (the error names the row)."""
    source = task.where("sub_questions")
    out: dict[str, list[SubQuestion]] = {}
    problems = []
    for n, row in enumerate(task.table("sub_questions").to_dict("records"), start=1):
        if row["type"] not in formulas.TYPES:
            problems.append(
                Problem(
                    source, f"type must be one of {formulas.TYPES}, not {row['type']!r}", line=n, field="type"
                )
            )
            continue
        out.setdefault(str(row["query_id"]), []).append(
            SubQuestion(str(row["sub_question_id"]), str(row["text"]), row["type"])
        )
    if problems:
        raise InputError(problems)
    return out


def scorable_queries(task: Task, inputs: ScoringInputs) -> list[str] | None:
    asked = set(task.table("sub_questions")["query_id"].astype(str))
    return [q for q in task.quick_order() if q in asked]


def coverage_judge(judges: JudgeStack, settings: SubqSettings) -> CoverageJudge:
    """The coverage judge the settings name, on the profile's models."""
    if settings.judge == "llm":
        return LLMCoverage(judges.llm, max_retries=judges.profile.llm.max_retries)
    return SimilarityCoverage(judges.embedder(), settings.threshold)


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: SubqSettings) -> Prepared:
    subqs = task_sub_questions(task)
    judge = coverage_judge(judges, settings)
    notes = []
    given: dict[str, list[str]] = {}
    passages: dict[str, str] = {}
    # the corpus only supplies the texts of the chunks a RAG system was given (its setting
    # names that corpus): it is not part of the board, so closed-book and RAG runs rank together
    if inputs.evidence:
        passages, note = evidence_texts(task, judges, inputs)
        if note:
            notes.append(note)
        else:
            given = dict(inputs.evidence)
    else:
        notes.append("retrieval coverage not computed: closed-book outputs (no retrieved chunks)")
    n = sum(len(v) for v in subqs.values())
    notes.append(f"sub-questions: {n} for {len(subqs)} queries, from the task's sub_questions table")
    state = SubqState(subqs, judge, settings.weights, given, passages)
    return Prepared(state=state, notes=notes, run_key=(judge.identity, judges.profile.retriever.chunk_words))


def evidence_texts(
    task: Task, judges: JudgeStack, inputs: ScoringInputs
) -> tuple[dict[str, str], str | None]:
    """Texts of the chunks RAG outputs name, or a note saying why there are none."""
    from benchmark.retrieval import corpus_passages, document_texts, resolve_corpus

    ref = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
    if ref.kind not in ("table", "file"):
        return {}, "retrieval coverage not computed: no corpus to read the given chunks from (pass --corpus)"
    texts = {p.passage_id: p.text for p in corpus_passages(ref, task, judges.profile.retriever)}
    texts |= document_texts(ref, task)  # RAArg gives whole documents
    return texts, None
