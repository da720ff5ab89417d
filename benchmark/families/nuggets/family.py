"""The TREC RAG nugget evaluation as a metric family: what it is (its scores, settings, tables and judges)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from benchmark.families.base import (
    FamilySettings,
    InputFile,
    JudgeRole,
    MetricFamily,
    ScoreColumn,
    UnitLabels,
    option,
)
from benchmark.families.nuggets.scores import STRICT_UNITS
from benchmark.families.nuggets.tables import TABLES
from benchmark.families.nuggets.trace import NuggetsTrace

CITATION = """@article{pradeep2024nuggets,
  title   = {Initial Nugget Evaluation Results for the {TREC} 2024 {RAG} Track with the {AutoNuggetizer} Framework},
  author  = {Pradeep, Ronak and Thakur, Nandan and Upadhyay, Shivani and Campos, Daniel and Craswell, Nick and Lin, Jimmy},
  journal = {arXiv preprint arXiv:2411.09607},
  year    = {2024}
}"""


class NuggetsSettings(FamilySettings):
    flag_prefix: ClassVar[str] = "nuggets"

    assigner: Literal["entailment", "llm"] = option(
        "entailment",
        "nugget assignment judge: the profile's entailment judge (support / not support), or the judge "
        "LLM (support / partial support / not support, as the TREC RAG track)",
    )
    nuggetizer_compatible: bool = option(
        False,
        "score as nuggetizer's calculate_metrics.py, to reproduce the TREC RAG track's numbers: 0 where a "
        "topic has no vital nugget (or no nugget), a nugget of importance 'failed' counted as okay (and, "
        "in an assignment file, assignment 'failed' as not supported and every line a record of its run's "
        "mean) (docs/conformance.md); by default those have no score, a failure or a refused file, and the "
        "results never share a board",
        flag="--nuggetizer-compatible",
    )

    @model_serializer(mode="wrap")
    def _recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Off, the compatible mode is not recorded: a default result's settings (and its
        board, its checkpoint keys) stay what they were before the mode existed."""
        out = handler(self)
        if not self.nuggetizer_compatible:
            out.pop("nuggetizer_compatible", None)
        return out


NUGGETS = MetricFamily(
    id="nuggets",
    title="Nuggets",
    description=(
        "The TREC RAG nugget evaluation: each topic's information nuggets, vital or okay, and per answer "
        "the share it supports — vital or all nuggets, strict or with partial support counting half."
    ),
    primary="vital_strict",
    judged_by={
        k: ("nugget-assignment",) for k in ("vital_strict", "vital_partial", "all_strict", "all_partial")
    },
    judge_roles=(
        JudgeRole(
            "nugget-assignment",
            "entailment assigner ({entailment}) or the LLM ({llm})",
            "no public set with human nugget assignments is loaded yet (the TREC RAG track's "
            "assessor assignments are not public at the time of writing)",
        ),
    ),
    citation=CITATION,
    stages={"assignment": ()},
    required_tables=("queries",),
    tables=TABLES,
    trace_model=NuggetsTrace,
    settings_model=NuggetsSettings,
    inputs=(
        InputFile(
            "nuggets",
            "--nuggets",
            "a nugget file as castorini's nuggetizer writes it (JSON lines: qid, nuggets [{text, importance}]) "
            "instead of the task's nuggets table",
        ),
    ),
    columns=(
        ScoreColumn("vital_strict", "vital (strict)", "share of the vital nuggets the answer supports"),
        ScoreColumn("vital_partial", "vital (partial)", "the same, a partially supported nugget counting ½"),
        ScoreColumn("all_strict", "all (strict)", "share of all nuggets the answer supports"),
        ScoreColumn("all_partial", "all (partial)", "the same over all nuggets, partial support counting ½"),
    ),
    labelled_units={
        key: UnitLabels(
            "nugget",
            "the nugget's nugget_id as the trace records it (e.g. 175/n1)",
            "1: the answer supports the nugget, 0: it does not (partial support is 0, as in the strict scores)",
        )
        for key in STRICT_UNITS
    },
)
