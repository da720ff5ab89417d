"""Argument quality (ConQRet) as a metric family: LLM judges of arguments and their evidence.
What it is: its scores, settings, tables and judges."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidationInfo, field_validator

from benchmark.families.arguments.formulas import DIMENSIONS, TOP_LEVEL
from benchmark.families.arguments.judges import CONTEXT_JUDGES, JOINT_JUDGES
from benchmark.families.arguments.tables import TABLES
from benchmark.families.arguments.trace import ArgumentTrace
from benchmark.families.base import FamilySettings, JudgeRole, MetricFamily, ScoreColumn, option

CITATION = """@inproceedings{dhole2025conqret,
  title     = {{ConQRet}: Benchmarking Fine-Grained Evaluation of Retrieval Augmented Argumentation with {LLM} Judges},
  author    = {Dhole, Kaustubh D. and Shu, Kai and Agichtein, Eugene},
  year      = {2025}
}
@inproceedings{wachsmuth2017computational,
  title     = {Computational Argumentation Quality Assessment in Natural Language},
  author    = {Wachsmuth, Henning and Naderi, Nona and Hou, Yufang and Bilu, Yonatan and Prabhakaran, Vinodkumar
               and Alberdingk Thijm, Tim and Hirst, Graeme and Stein, Benno},
  booktitle = {Proceedings of EACL 2017},
  year      = {2017}
}"""

#: judges run unless chosen otherwise, one call each per argument: Listwise (the 15
#: dimensions), Direct (context relevance) and Listwise+RAG Fine-Grained (per-document
#: relevance, groundedness and the dimensions again: the paper's best judge).
#: Listwise+SC, pointwise, the pairwise judges against a human argument and the other
#: context judges are one flag away; on a CPU with the offline model every call costs
#: seconds, and every judge is a call.
DEFAULT_CONTEXT = ("direct",)
DEFAULT_JOINT = ("listwise_rag_fg",)

#: shown by default: overall quality and the three aspect-level dimensions
SHOWN = set(TOP_LEVEL)


def _names(value: Any, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
    items = [v for v in items if v and v != "none"]
    bad = [v for v in items if v not in known]
    if bad:
        raise ValueError(f"unknown {what} {bad}; known: {', '.join(known)} (or none)")
    return tuple(dict.fromkeys(items))


class ArgumentSettings(FamilySettings):
    quality_judge: Literal["listwise", "listwise_sc", "pointwise"] = option(
        "listwise",
        "argument-quality judge: listwise (15 dimensions in one call), listwise_sc (three dimension "
        "orders, combined by --sc-combine), pointwise (one call per dimension)",
    )
    sc_combine: Literal["mean", "majority"] = option("mean", "how the SC orders combine")
    context_judges: tuple[str, ...] = option(
        DEFAULT_CONTEXT, f"context-relevance judges, or none; from {', '.join(CONTEXT_JUDGES)}"
    )
    joint_judges: tuple[str, ...] = option(
        DEFAULT_JOINT, f"joint judges, or none; from {', '.join(JOINT_JUDGES)}"
    )
    evidence_k: int = option(5, "documents the judge retrieves when none were given", ge=1, le=20)
    max_evidence_words: int = option(1500, "evidence budget in words (trimmed evenly)", ge=50)

    @field_validator("context_judges", "joint_judges", mode="before")
    @classmethod
    def _judges(cls, v: Any, info: ValidationInfo) -> tuple[str, ...]:
        known = CONTEXT_JUDGES if info.field_name == "context_judges" else JOINT_JUDGES
        return _names(v, known, str(info.field_name).replace("_", " "))


def _columns() -> tuple[ScoreColumn, ...]:
    dims = tuple(
        ScoreColumn(
            d, d.replace("_", " "), f"{d.replace('_', ' ')} (1-3, quality judge)", default_shown=d in SHOWN
        )
        for d in (DIMENSIONS[-1], *DIMENSIONS[:-1])  # overall first: it is what boards rank by
    )
    extra = (  # score key, label, what it is, shown by default
        ("overall_quality_majority", "overall (SC majority)", "overall quality, Listwise+SC combined by majority", False),
        ("context_direct", "ctx Direct", "context relevance, Direct (0-10, /10)", True),
        ("context_fine_grained", "ctx Fine-grained", "share of the six relevance criteria the evidence meets", False),
        ("context_geval", "ctx G-Eval", "context relevance, G-Eval (1-5 mapped to 0-1)", False),
        ("context_query_rubric", "ctx Query-Rubric", "key points covered by the evidence (1-5 mapped to 0-1)", False),
        ("context_listwise_rag_fg", "ctx precision (FG)", "share of evidence documents rated relevant (Listwise+RAG FG)", True),
        ("context_listwise_rag", "ctx Listwise+RAG", "context relevance, Listwise+RAG (1-5 mapped to 0-1)", False),
        ("context_rag_direct", "ctx RAG-Direct", "context relevance, RAG-Direct (1-5 mapped to 0-1)", False),
        ("context_rag_rubric", "ctx RAG-Rubric", "key points covered by the evidence, RAG-Rubric", False),
        ("grounded_listwise_rag_fg", "grounded (FG)", "groundedness in the evidence, Listwise+RAG FG (0-1)", True),
        ("grounded_listwise_rag", "grounded Listwise+RAG", "groundedness, Listwise+RAG (0-1)", False),
        ("grounded_rag_direct", "grounded RAG-Direct", "groundedness, RAG-Direct (0-1)", False),
        ("grounded_rag_rubric", "grounded RAG-Rubric", "document key points the argument covers (0-1)", False),
        ("win_rag_direct", "win vs human (RAG-Direct)", "preferred over the human reference: 1 win, 0.5 tie", False),
        ("win_rag_rubric", "win vs human (RAG-Rubric)", "key points where it beats the human reference", False),
        ("overall_listwise_rag", "overall (Listwise+RAG)", "overall quality from the Listwise+RAG judge", False),
        ("overall_listwise_rag_fg", "overall (Listwise+RAG FG)", "overall quality from the Listwise+RAG FG judge", False),
    )  # fmt: skip
    return dims + tuple(ScoreColumn(k, label, desc, default_shown=shown) for k, label, desc, shown in extra)


ARGUMENTS = MetricFamily(
    id="arguments",
    title="Argument quality",
    description=(
        "ConQRet's LLM judges of an argument for a stance on a controversial topic: the 15 quality dimensions "
        "of Wachsmuth et al. (1-3), the relevance of its evidence, its groundedness, and a preference against a "
        "human argument."
    ),
    primary="overall_quality",
    judged_by={"overall_quality": ("argument-quality",)},
    judge_roles=(
        JudgeRole(
            "argument-quality",
            "LLM: {llm}",
            "measured only with --argument-items N (the LLM judge rates N arguments; slow on CPU)",
        ),
    ),
    citation=CITATION,
    stages={
        "evidence": (),
        "quality:pointwise": (),
        "quality:listwise": (),
        "context:direct": (),
        "context:fine_grained": (),
        "context:geval_steps": (),
        "context:geval": ("context:geval_steps",),
        "context:rubric_items": (),
        "context:query_rubric": ("context:rubric_items",),
        "joint:rag_direct": (),
        "joint:rubric_items": (),
        "joint:rag_rubric": ("joint:rubric_items",),
    },
    required_tables=("queries",),
    tables=TABLES,
    trace_model=ArgumentTrace,
    settings_model=ArgumentSettings,
    columns=_columns(),
)
