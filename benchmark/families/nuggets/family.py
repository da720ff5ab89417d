"""The TREC RAG nugget evaluation as a metric family: its scores, options, preparation and views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from benchmark.core.errors import InputError, Problem
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
from benchmark.families.nuggets import pipeline, scores, views
from benchmark.families.nuggets.formulas import FAILED
from benchmark.families.nuggets.judges import Assigner, EntailmentAssigner, LLMAssigner
from benchmark.families.nuggets.nuggetizer_files import Nugget, empty_topics, read_nuggets
from benchmark.families.nuggets.pipeline import NuggetsState
from benchmark.families.nuggets.tables import TABLES
from benchmark.families.nuggets.trace import NuggetsTrace
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import content_hash
from benchmark.tasks import Task

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
        "topic has no vital nugget (or no nugget), a nugget of importance 'failed' counted as okay "
        "(docs/conformance.md); by default those have no score, and the results never share a board",
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


def task_nuggets(task: Task) -> dict[str, list[Nugget]]:
    """The task's nuggets by query (their importance is checked where every table is, by the
    table's schema, when the task is built and loaded)."""
    out: dict[str, list[Nugget]] = {}
    for row in task.table("nuggets").to_dict("records"):
        qid = str(row["query_id"])
        out.setdefault(qid, []).append(
            Nugget(
                qid, str(row["nugget_id"]), str(row["text"]), str(row["importance"]), str(row["provenance"])
            )
        )
    return out


class NuggetsFamily(MetricFamily):
    id = "nuggets"
    title = "Nuggets"
    description = (
        "The TREC RAG nugget evaluation: each topic's information nuggets, vital or okay, and per answer "
        "the share it supports — vital or all nuggets, strict or with partial support counting half."
    )
    primary = "vital_strict"
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {
        k: ("nugget-assignment",) for k in ("vital_strict", "vital_partial", "all_strict", "all_partial")
    }
    judge_roles = (
        JudgeRole(
            "nugget-assignment",
            "entailment assigner ({entailment}) or the LLM ({llm})",
            "no public set with human nugget assignments is loaded yet (the TREC RAG track's "
            "assessor assignments are not public at the time of writing)",
        ),
    )
    citation = CITATION
    stages: ClassVar[dict[str, tuple[str, ...]]] = {"assignment": ()}
    required_tables = ("queries",)
    tables = TABLES
    trace_model = NuggetsTrace
    pipeline = pipeline
    scores = scores
    views = views
    settings_model = NuggetsSettings
    inputs = (
        InputFile(
            "nuggets",
            "--nuggets",
            "a nugget file as castorini's nuggetizer writes it (JSON lines: qid, nuggets [{text, importance}]) "
            "instead of the task's nuggets table",
        ),
    )
    columns = (
        ScoreColumn("vital_strict", "vital (strict)", "share of the vital nuggets the answer supports"),
        ScoreColumn("vital_partial", "vital (partial)", "the same, a partially supported nugget counting ½"),
        ScoreColumn("all_strict", "all (strict)", "share of all nuggets the answer supports"),
        ScoreColumn("all_partial", "all (partial)", "the same over all nuggets, partial support counting ½"),
    )

    labelled_units: ClassVar[dict[str, UnitLabels]] = {
        key: UnitLabels(
            "nugget",
            "the nugget's nugget_id as the trace records it (e.g. 175/n1)",
            "1: the answer supports the nugget, 0: it does not (partial support is 0, as in the strict scores)",
        )
        for key in scores.STRICT_UNITS
    }

    def score_units(self, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
        """The strict scores' nuggets (vital ones for vital_strict), each labelled supported
        (1) or not (0) by the assignment judge."""
        if key not in self.labelled_units or not isinstance(trace, NuggetsTrace):
            return None
        units = scores.strict_units(trace, key)
        return None if units is None else [LabelledUnit(*u) for u in units]

    def scorable_queries(self, task: Task, inputs: ScoringInputs) -> list[str] | None:
        if inputs.files.get("nuggets"):
            asked = set(read_nuggets(inputs.files["nuggets"]))
        elif task.has_table("nuggets"):
            asked = set(task.table("nuggets")["query_id"].astype(str))
        else:
            return []
        return [q for q in task.quick_order() if q in asked]

    def assigner(self, judges: JudgeStack, settings: NuggetsSettings) -> Assigner:
        if settings.assigner == "llm":
            return LLMAssigner(judges.llm, max_retries=judges.profile.llm.max_retries)
        return EntailmentAssigner(judges.entailment)

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, NuggetsSettings)
        lines: dict[str, int] = {}
        if inputs.files.get("nuggets"):
            nuggets = read_nuggets(inputs.files["nuggets"], lines=lines)
            source = "nuggets:" + content_hash(
                sorted((q, [(n.text, n.importance) for n in ns]) for q, ns in nuggets.items())
            )
        elif task.has_table("nuggets"):
            nuggets, source = task_nuggets(task), "nuggets:task"
        else:
            raise InputError(
                Problem(
                    task.where(),
                    "the task has no nuggets table: pass --nuggets FILE (a nuggetizer nugget file)",
                    field="data.tables",
                )
            )
        assigner = self.assigner(judges, settings)
        compatible = settings.nuggetizer_compatible
        n = sum(len(v) for v in nuggets.values())
        vital = sum(x.importance == "vital" for v in nuggets.values() for x in v)
        notes = [f"nuggets: {n} ({vital} vital) for {len(nuggets)} queries"]
        if compatible:
            notes.append(
                "nuggetizer-compatible: 0 where a topic has no vital nugget or none, importance 'failed' "
                "counted as okay, as nuggetizer's calculate_metrics.py (docs/conformance.md)"
            )
        if empty := empty_topics(nuggets):
            where = inputs.files.get("nuggets", "the nuggets")
            notes.append(
                f"{where}: {len(empty)} topic(s) with an empty nugget list "
                f"({', '.join(f'{q} on line {lines[q]}' if q in lines else q for q in empty[:10])}"
                f"{', …' if len(empty) > 10 else ''}): a problem of the nugget file — "
                + ("scored 0, as nuggetizer does" if compatible else "their answers have no nugget score")
            )
        failed = [q for q, ns in nuggets.items() if any(x.importance == FAILED for x in ns)]
        if failed:
            notes.append(
                f"{len(failed)} topic(s) with nuggets of importance {FAILED!r} (nuggetizer's judgement failed): "
                + (
                    "counted as okay, as nuggetizer does"
                    if compatible
                    else "their vital scores are undetermined"
                )
            )
        if not assigner.partial_level:
            notes.append("the entailment assigner has no partial level: partial scores equal strict ones")
        return Prepared(
            state=NuggetsState(nuggets, assigner, compatible),
            corpus_id=source,
            notes=notes,
            run_key=(assigner.identity,),
        )

    def figures(self, results: Sequence[Any], option: str | None = None) -> dict[str, Any]:
        return {"Vital and all nuggets, strict and partial": views.figure(results)}
