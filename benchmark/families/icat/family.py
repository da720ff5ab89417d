"""ICAT as a metric family: its scores, options, preparation and views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from benchmark.families.base import (
    FamilySettings,
    InputFile,
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
from benchmark.families.icat import formulas, pipeline, scores, views
from benchmark.families.icat.pipeline import ICATState
from benchmark.families.icat.qrels import load_aspect_qrels, task_aspect_qrels
from benchmark.families.icat.trace import ICATTrace
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash
from benchmark.retrieval import resolve_corpus
from benchmark.tasks import Task

CITATION = """@inproceedings{samarinas2025icat,
  title     = {Beyond Factual Accuracy: Evaluating Coverage of Diverse Factual Information in Long-form Text Generation},
  author    = {Samarinas, Chris and Krubner, Alexander and Salemi, Alireza and Kim, Youngwoo and Zamani, Hamed},
  year      = {2025}
}"""


class ICATSettings(FamilySettings):
    variants: tuple[Literal["m", "s", "a"], ...] = option(
        formulas.VARIANTS,
        "ICAT variants to compute: m (qrels), s (LLM, gold aspects), a (LLM, generated aspects)",
    )
    beta: float = option(1.0, "β of the reported ICAT_β", ge=0, allow_inf_nan=False)
    betas: tuple[float, ...] = option(formulas.DEFAULT_BETAS, "the β sweep recorded beside it", cli=False)

    @field_validator("variants")
    @classmethod
    def _some(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("name at least one of m, s, a")
        return tuple(x for x in formulas.VARIANTS if x in v)


class ICATFamily(MetricFamily):
    id = "icat"
    title = "ICAT"
    description = (
        "Atomic claims of the answer, grounded by retrieval + entailment in a corpus (S_fact), and the "
        "share of the query's aspects covered by grounded claims (S_coverage); ICAT_β combines the two."
    )
    primary = "icat_s"
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {
        "s_fact": ("entailment",),
        "icat_m": ("entailment",),  # coverage through the task's aspect-level qrels: no judge
        "icat_s": ("entailment", "aspects-alignment"),
        "icat_a": ("entailment", "aspects-alignment"),
    }
    judge_roles = (
        JudgeRole(
            "aspects-alignment",
            "LLM: {llm}",
            "no public set with human claim-aspect alignments is loaded yet",
        ),
    )
    citation = CITATION
    stages: ClassVar[dict[str, tuple[str, ...]]] = {
        "claims": (),
        "grounding:candidates": (),
        "grounding": ("claims",),
        "aspects": (),
        "alignment": ("claims", "grounding", "aspects"),
    }
    required_tables = ("queries", "aspects")
    trace_model = ICATTrace
    pipeline = pipeline
    scores = scores
    views = views
    settings_model = ICATSettings
    inputs = (
        InputFile(
            "aspect_qrels",
            "--aspect-qrels",
            "aspect-level qrels in the TREC diversity format ('topic subtopic docid grade', as NIST's "
            "qrels.*.ndeval.txt) for your own --corpus / --lucene-index (ICAT-M)",
        ),
    )
    view_options = (("ICAT-M", "m"), ("ICAT-S", "s"), ("ICAT-A", "a"))
    columns = (
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
    )

    labelled_units: ClassVar[dict[str, UnitLabels]] = {
        "s_fact": UnitLabels(
            "claim",
            "the trace's claim_id (c1, c2, … within the query)",
            "1: the claim is supported by the corpus (grounded), 0: it is not",
        )
    }

    def score_units(self, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
        """S_fact's claims, each labelled grounded (1) or not (0) by the judge."""
        if key not in self.labelled_units or not isinstance(trace, ICATTrace):
            return None
        units = scores.claim_units(trace)
        return None if units is None else [LabelledUnit(*u) for u in units]

    def board_settings(self, settings: FamilySettings) -> dict[str, Any]:
        assert isinstance(settings, ICATSettings)
        return {"beta": settings.beta}

    def scorable_queries(self, task: Task, inputs: ScoringInputs) -> list[str] | None:
        corpus = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
        return list(corpus.covers) if corpus.covers is not None else None

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, ICATSettings)
        corpus = resolve_corpus(task, inputs.corpus, inputs.lucene_index)
        notes: list[str] = []
        if inputs.files.get("aspect_qrels"):
            qrels = load_aspect_qrels(inputs.files["aspect_qrels"], task)
            qrels_id = content_hash(sorted((k, sorted(v)) for k, v in qrels.items()))
        elif corpus.task_corpus:
            qrels, qrels_id = task_aspect_qrels(task), "task"
        else:
            qrels, qrels_id = {}, "none"
        variants = settings.variants
        if "m" in variants and not qrels:
            notes.append(
                "ICAT-M not computed: no aspect-level relevance judgements for this corpus (pass --aspect-qrels)"
            )
            variants = tuple(v for v in variants if v != "m")
        retriever = judges.retriever(corpus, task)
        candidate_retriever = (
            judges.retriever(corpus, task, kind="bm25") if judges.profile.retriever.candidate_docs else None
        )
        state = ICATState(
            task=task,
            judges=judges,
            retriever=retriever,
            aspect_qrels=qrels,
            variants=variants,
            beta=settings.beta,
            candidate_retriever=candidate_retriever,
            descriptions=task.descriptions(),
        )
        corpus_id = content_hash(retriever.identity)
        return Prepared(state=state, corpus_id=corpus_id, notes=notes, run_key=(variants, qrels_id))

    def curves(
        self, traces: Sequence[QueryTrace], settings: FamilySettings
    ) -> dict[str, dict[str, float | None]]:
        assert isinstance(settings, ICATSettings)
        return {
            f"icat_{v}_beta": formulas.beta_sweep(
                [t.scores.get("s_fact") for t in traces],
                [t.scores.get(f"s_coverage_{v}") for t in traces],
                settings.betas,
            )
            for v in formulas.VARIANTS
            if any(t.scores.get(f"s_coverage_{v}") is not None for t in traces)
        }

    def figures(self, results: Sequence[Any], option: str | None = None) -> dict[str, Any]:
        """β sweep (one variant, or all when ``option`` is None) and factuality vs coverage."""
        return {
            "beta sweep": views.beta_figure(results, option),
            "factuality vs coverage": views.scatter_figure(results, option or "m"),
        }

    def print_results(self, results: Sequence[Any], console: Any) -> None:
        for r in results:
            if r.curves:
                console.print(views.beta_table(r))
