"""DecompScore as a metric family: entries are decomposition methods, passages are items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from benchmark.families.base import (
    FamilySettings,
    MetricFamily,
    Prepared,
    ScoreColumn,
    ScoringInputs,
    option,
)
from benchmark.families.decompscore import pipeline, scores, views
from benchmark.families.decompscore.pipeline import DecompState
from benchmark.families.decompscore.trace import DecompTrace
from benchmark.judging.decomposition import METHODS
from benchmark.judging.stack import JudgeStack
from benchmark.tasks import Task

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


class DecompScoreFamily(MetricFamily):
    id = "decompscore"
    title = "DecompScore"
    description = (
        "How well a claim decomposition method splits text: subclaims per passage that the sentence they "
        "came from supports (DecompScore), their share (coherence), and the effect on S_fact of dropping "
        "the unsupported ones. Entries are decomposition methods."
    )
    primary = "decompscore"
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {"decompscore": ("llm-support",)}
    citation = CITATION
    stages: ClassVar[dict[str, tuple[str, ...]]] = {
        "decomposition": (),
        "support": ("decomposition",),
        "grounding": ("decomposition",),
    }
    required_tables = ("queries",)
    trace_model = DecompTrace
    pipeline = pipeline
    scores = scores
    views = views
    settings_model = DecompSettings
    ranks_models = False
    columns = (
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
    )

    def board_settings(self, settings: FamilySettings) -> dict[str, Any]:
        """The method is the entry, not the board: methods are ranked against each other."""
        assert isinstance(settings, DecompSettings)
        return {"granularity": settings.granularity}

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, DecompSettings)
        decomposer = judges.decomposer(
            settings.method,
            static_examples=settings.static_examples,
            retrieved_examples=settings.retrieved_examples,
        )
        retriever, corpus_id, notes = None, None, []
        has_corpus = inputs.corpus or inputs.lucene_index or task.card.corpus.kind != "none"
        if settings.ground and has_corpus:
            from benchmark.models.cache import content_hash
            from benchmark.retrieval import resolve_corpus

            retriever = judges.retriever(resolve_corpus(task, inputs.corpus, inputs.lucene_index), task)
            corpus_id = content_hash(retriever.identity)
        elif settings.ground:
            notes.append("S_fact effect not computed: no corpus (pass --corpus or --task with a corpus)")
        state = DecompState(decomposer, judges, settings.granularity, retriever)
        return Prepared(state=state, corpus_id=corpus_id, notes=notes, run_key=(decomposer.identity,))

    def figures(self, results: Sequence[Any], option: str | None = None) -> dict[str, Any]:
        return {"DecompScore by method": views.figure(results)}
