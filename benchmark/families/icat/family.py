"""ICAT as a metric family: what it is (its scores, settings, tables and judges)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from benchmark.families.base import (
    FamilySettings,
    InputFile,
    JudgeRole,
    MetricFamily,
    ScoreColumn,
    UnitLabels,
    option,
)
from benchmark.families.icat import formulas
from benchmark.families.icat.trace import ICATTrace

CITATION = """@inproceedings{samarinas2025icat,
  title     = {Beyond Factual Accuracy: Evaluating Coverage of Diverse Factual Information in Long-form Text Generation},
  author    = {Samarinas, Chris and Krubner, Alexander and Salemi, Alireza and Kim, Youngwoo and Zamani, Hamed},
  year      = {2025}
}"""


class ICATSettings(FamilySettings):
    variants: tuple[Literal["m", "s", "a"], ...] = option(
        formulas.VARIANTS,
        "ICAT variants to compute: m (qrels), s (LLM, gold aspects), a (LLM, generated aspects); "
        "s and a only when named under a profile whose llm.not_asked_for lists aspects-alignment "
        "(the offline default's)",
    )
    beta: float = option(1.0, "β of the reported ICAT_β", ge=0, allow_inf_nan=False)
    betas: tuple[float, ...] = option(formulas.DEFAULT_BETAS, "the β sweep recorded beside it", cli=False)

    @field_validator("variants")
    @classmethod
    def _some(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("name at least one of m, s, a")
        return tuple(x for x in formulas.VARIANTS if x in v)

    def board_key(self) -> dict[str, Any]:
        """Only β changes a ranked number: the variants and the sweep add or leave scores."""
        return {"beta": self.beta}


ICAT = MetricFamily(
    id="icat",
    title="ICAT",
    description=(
        "Atomic claims of the answer, grounded by retrieval + entailment in a corpus (S_fact), and the "
        "share of the query's aspects covered by grounded claims (S_coverage); ICAT_β combines the two."
    ),
    primary="icat_s",
    judged_by={
        "s_fact": ("entailment",),
        "icat_m": ("entailment",),  # coverage through the task's aspect-level qrels: no judge
        "icat_s": ("entailment", "aspects-alignment"),
        "icat_a": ("entailment", "aspects-alignment"),
    },
    judge_roles=(
        JudgeRole(
            "aspects-alignment",
            "LLM: {llm}",
            "no public set with human claim-aspect alignments is loaded yet",
        ),
    ),
    citation=CITATION,
    stages={
        "claims": (),
        "grounding:candidates": (),
        "grounding": ("claims",),
        "aspects": (),
        "alignment": ("claims", "grounding", "aspects"),
    },
    required_tables=("queries", "aspects"),
    trace_model=ICATTrace,
    settings_model=ICATSettings,
    inputs=(
        InputFile(
            "aspect_qrels",
            "--aspect-qrels",
            "aspect-level qrels in the TREC diversity format ('topic subtopic docid grade', as NIST's "
            "qrels.*.ndeval.txt) for your own --corpus / --lucene-index (ICAT-M)",
        ),
    ),
    view_options=(("ICAT-M", "m"), ("ICAT-S", "s"), ("ICAT-A", "a")),
    columns=(
        ScoreColumn(
            "icat_m", "ICAT-M", "ICAT_β with coverage from the corpus's aspect-level relevance judgements"
        ),
        ScoreColumn("s_fact", "S_fact", "share of the answer's claims that some retrieved passage supports"),
        ScoreColumn(
            "s_coverage_m", "S_cov-M", "share of the query's aspects covered by grounded claims (qrels)"
        ),
        ScoreColumn(
            "icat_s", "ICAT-S", "ICAT_β with an LLM aligning grounded claims to the ground-truth aspects"
        ),
        ScoreColumn(
            "s_coverage_s",
            "S_cov-S",
            "aspect coverage judged by the LLM, ground-truth aspects",
            default_shown=False,
        ),
        ScoreColumn(
            "icat_a", "ICAT-A", "ICAT_β with LLM-generated aspects and LLM alignment", default_shown=False
        ),
        ScoreColumn(
            "s_coverage_a",
            "S_cov-A",
            "aspect coverage judged by the LLM, generated aspects",
            default_shown=False,
        ),
    ),
    labelled_units={
        "s_fact": UnitLabels(
            "claim",
            "the trace's claim_id (c1, c2, … within the query)",
            "1: the claim is supported by the corpus (grounded), 0: it is not",
        )
    },
)
