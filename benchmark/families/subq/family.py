"""Sub-question coverage as a metric family: its scores, options, preparation and views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from benchmark.core.errors import InputError, Problem
from benchmark.families.base import (
    FamilySettings,
    JudgeRole,
    LabelledUnit,
    MetricFamily,
    Prepared,
    QueryTrace,
    ScoreColumn,
    ScoringInputs,
    UnitLabels,
    option,
)
from benchmark.families.subq import formulas, pipeline, scores, views
from benchmark.families.subq.judges import CoverageJudge, LLMCoverage, SimilarityCoverage
from benchmark.families.subq.pipeline import SubqState, SubQuestion
from benchmark.families.subq.tables import TABLES
from benchmark.families.subq.trace import SubqTrace
from benchmark.judging.stack import JudgeStack
from benchmark.tasks import Task

CITATION = """@article{xie2024subquestion,
  title   = {Do {RAG} Systems Cover What Matters? Evaluating and Optimizing Responses with Sub-Question Coverage},
  author  = {Xie, Kaige and Laban, Philippe and Choubey, Prafulla Kumar and Xiong, Caiming and Wu, Chien-Sheng},
  journal = {arXiv preprint arXiv:2410.15531},
  year    = {2024}
}"""


class SubqSettings(FamilySettings):
    flag_prefix: ClassVar[str] = "subq"

    judge: Literal["similarity", "llm"] = option(
        "similarity", "sub-question coverage judge: embedding similarity, or the judge LLM"
    )
    threshold: float = option(
        0.5, "similarity judge: least cosine (-1 to 1) that covers", allow_inf_nan=False, ge=-1, le=1
    )
    weights: tuple[float, float, float] = option(
        formulas.DEFAULT_WEIGHTS,
        "hybrid weights core,background,follow-up (fit them with `benchmark subq fit-weights`)",
    )

    @field_validator("weights")
    @classmethod
    def _valid(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(w < 0 for w in v) or sum(v) <= 0:
            raise ValueError("weights must be non-negative with a positive sum")
        return v


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


class SubqFamily(MetricFamily):
    id = "subq"
    title = "Sub-question coverage"
    description = (
        "The query's sub-questions, typed core / background / follow-up, and the share of each type the "
        "answer covers — and, for RAG outputs, the retrieved chunks; the hybrid is their weighted sum."
    )
    primary = "subq_hybrid"
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {"subq_hybrid": ("subq-coverage",)}
    judge_roles = (
        JudgeRole(
            "subq-coverage",
            "embedding similarity ({embedder}) or the LLM ({llm})",
            "no public set with human sub-question coverage labels is loaded yet",
        ),
    )
    citation = CITATION
    stages: ClassVar[dict[str, tuple[str, ...]]] = {"coverage-answer": (), "coverage-retrieval": ()}
    required_tables = ("queries", "sub_questions")
    tables = TABLES
    trace_model = SubqTrace
    pipeline = pipeline
    scores = scores
    views = views
    settings_model = SubqSettings
    columns = (
        ScoreColumn("subq_hybrid", "hybrid", "weighted answer coverage (core, background, follow-up weights)"),
        ScoreColumn("answer_core", "core (answer)", "share of core sub-questions the answer covers"),
        ScoreColumn("answer_background", "background (answer)", "share of background sub-questions the answer covers"),
        ScoreColumn("answer_follow_up", "follow-up (answer)", "share of follow-up sub-questions the answer covers"),
        ScoreColumn("retrieval_core", "core (retrieved)", "share of core sub-questions the retrieved chunks cover", default_shown=False),
        ScoreColumn(
            "retrieval_background", "background (retrieved)", "share of background sub-questions the retrieved chunks cover",
            default_shown=False,
        ),
        ScoreColumn(
            "retrieval_follow_up", "follow-up (retrieved)", "share of follow-up sub-questions the retrieved chunks cover",
            default_shown=False,
        ),
    )  # fmt: skip

    labelled_units: ClassVar[dict[str, UnitLabels]] = {
        key: UnitLabels(
            "sub-question",
            "the trace's sub_question_id (the task's sub_questions table)",
            "1: the answer covers the sub-question, 0: it does not",
        )
        for key in scores.LABELLED
    }

    def score_units(self, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
        """The answer coverages' sub-questions (of the score's type; all, weighted by type, for
        the hybrid), each labelled covered (1) or not (0) by the coverage judge."""
        if key not in self.labelled_units or not isinstance(trace, SubqTrace):
            return None
        units = scores.sub_question_units(trace, key)
        return None if units is None else [LabelledUnit(*u) for u in units]

    def scorable_queries(self, task: Task, inputs: ScoringInputs) -> list[str] | None:
        asked = set(task.table("sub_questions")["query_id"].astype(str))
        return [q for q in task.quick_order() if q in asked]

    def judge(self, judges: JudgeStack, settings: SubqSettings) -> CoverageJudge:
        if settings.judge == "llm":
            return LLMCoverage(judges.llm, max_retries=judges.profile.llm.max_retries)
        return SimilarityCoverage(judges.embedder(), settings.threshold)

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, SubqSettings)
        subqs = task_sub_questions(task)
        judge = self.judge(judges, settings)
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
        return Prepared(
            state=state, notes=notes, run_key=(judge.identity, judges.profile.retriever.chunk_words)
        )

    def figures(self, results: Sequence[Any], option: str | None = None) -> dict[str, Any]:
        return {"Coverage by sub-question type": views.figure(results)}


def evidence_texts(
    task: Task, judges: JudgeStack, inputs: ScoringInputs
) -> tuple[dict[str, str], str | None]:
    """Texts of the chunks (or whole documents) RAG outputs name, from the corpus they came
    from; or a note saying why there are none."""
    from benchmark.retrieval import corpus_passages, document_texts, resolve_corpus

    ref = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
    if ref.kind not in ("table", "file"):
        return {}, "retrieval coverage not computed: no corpus to read the given chunks from (pass --corpus)"
    texts = {p.passage_id: p.text for p in corpus_passages(ref, task, judges.profile.retriever)}
    texts |= document_texts(ref, task)  # RAArg gives whole documents
    return texts, None
