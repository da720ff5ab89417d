"""DecompScore as a metric family: entries are decomposition methods, passages are items.
What it is: its scores and settings."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from benchmark.families.base import FamilySettings, MetricFamily, ScoreColumn, option
from benchmark.families.decompscore.trace import DecompTrace
from benchmark.judging.decomposition import METHODS

CITATION = """@inproceedings{wanner2024closer,
  title     = {A Closer Look at Claim Decomposition},
  author    = {Wanner, Miriam and Ebner, Seth and Jiang, Zhengping and Dredze, Mark and Van Durme, Benjamin},
  booktitle = {Proceedings of the 13th Joint Conference on Lexical and Computational Semantics (*SEM 2024)},
  year      = {2024}
}"""


class DecompSettings(FamilySettings):
    method: str = option(
        "sentences", "the decomposition method scored (decompose-compare --methods)", cli=False
    )
    granularity: Literal["sentence", "passage"] = option(
        "sentence",
        "decompose sentence by sentence (the paper) or whole passages",
        flag="--decomposition-granularity",
    )
    static_examples: int | None = option(
        None, "in-context examples taken as they come (overrides the method's count)", ge=0
    )
    retrieved_examples: int | None = option(
        None, "in-context examples retrieved by similarity (overrides the method's count)", ge=0
    )
    ground: bool = option(True, "also ground subclaims in the corpus, when there is one")

    @field_validator("method")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in METHODS:
            raise ValueError(f"unknown decomposition method {v!r}; known: {', '.join(METHODS)}")
        return v

    def board_key(self) -> dict[str, Any]:
        """The method is the entry, not the board: methods are ranked against each other."""
        return {"granularity": self.granularity}


DECOMPSCORE = MetricFamily(
    id="decompscore",
    title="DecompScore",
    description=(
        "How well a claim decomposition method splits text: subclaims per passage that the sentence they "
        "came from supports (DecompScore), their share (coherence), and the effect on S_fact of dropping "
        "the unsupported ones. Entries are decomposition methods."
    ),
    primary="decompscore",
    judged_by={"decompscore": ("llm-support",)},
    citation=CITATION,
    stages={
        "decomposition": (),
        "support": ("decomposition",),
        "grounding": ("decomposition",),
    },
    required_tables=("queries",),
    trace_model=DecompTrace,
    settings_model=DecompSettings,
    ranks_models=False,
    columns=(
        ScoreColumn(
            "decompscore", "DecompScore", "subclaims per passage supported by their source (LLM judge)"
        ),
        ScoreColumn("coherence", "coherence", "share of subclaims their source supports"),
        ScoreColumn("subclaims_per_unit", "subclaims/unit", "subclaims per decomposed sentence (or passage)"),
        ScoreColumn(
            "decompscore_nli", "DecompScore-NLI", "subclaims entailed by their source (entailment model)"
        ),
        ScoreColumn(
            "s_fact_change",
            "Δ S_fact",
            "S_fact over supported subclaims minus S_fact over all (with a corpus)",
            default_shown=False,
        ),
        ScoreColumn(
            "s_fact_all", "S_fact all", "share of all subclaims grounded in the corpus", default_shown=False
        ),
        ScoreColumn(
            "s_fact_coherent",
            "S_fact supported",
            "share of the supported subclaims grounded in the corpus",
            default_shown=False,
        ),
    ),
)
