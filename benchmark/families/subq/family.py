"""Sub-question coverage as a metric family: what it is (its scores, settings, tables and judges)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import field_validator

from benchmark.families.base import FamilySettings, JudgeRole, MetricFamily, ScoreColumn, UnitLabels, option
from benchmark.families.subq import formulas
from benchmark.families.subq.scores import LABELLED
from benchmark.families.subq.tables import TABLES
from benchmark.families.subq.trace import SubqTrace

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


COLUMNS = (
    ScoreColumn("subq_hybrid", "hybrid", "weighted answer coverage (core, background, follow-up weights)"),
    ScoreColumn("answer_core", "core (answer)", "share of core sub-questions the answer covers"),
    ScoreColumn("answer_background", "background (answer)", "share of background sub-questions the answer covers"),
    ScoreColumn("answer_follow_up", "follow-up (answer)", "share of follow-up sub-questions the answer covers"),
    ScoreColumn("retrieval_core", "core (retrieved)", "share of core sub-questions the retrieved chunks cover", default_shown=False),
    ScoreColumn("retrieval_background", "background (retrieved)", "share of background sub-questions the retrieved chunks cover", default_shown=False),
    ScoreColumn("retrieval_follow_up", "follow-up (retrieved)", "share of follow-up sub-questions the retrieved chunks cover", default_shown=False),
)  # fmt: skip

SUBQ = MetricFamily(
    id="subq",
    title="Sub-question coverage",
    description=(
        "The query's sub-questions, typed core / background / follow-up, and the share of each type the "
        "answer covers — and, for RAG outputs, the retrieved chunks; the hybrid is their weighted sum."
    ),
    primary="subq_hybrid",
    judged_by={"subq_hybrid": ("subq-coverage",)},
    judge_roles=(
        JudgeRole(
            "subq-coverage",
            "embedding similarity ({embedder}) or the LLM ({llm})",
            "no public set with human sub-question coverage labels is loaded yet",
        ),
    ),
    citation=CITATION,
    stages={"coverage-answer": (), "coverage-retrieval": ()},
    required_tables=("queries", "sub_questions"),
    tables=TABLES,
    trace_model=SubqTrace,
    settings_model=SubqSettings,
    columns=COLUMNS,
    labelled_units={
        key: UnitLabels(
            "sub-question",
            "the trace's sub_question_id (the task's sub_questions table)",
            "1: the answer covers the sub-question, 0: it does not",
        )
        for key in LABELLED
    },
)
