"""EXAM / n-EXAM as a metric family: its scores, options, preparation and views."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from benchmark.errors import InputError, Problem
from benchmark.families.base import (
    FamilySettings,
    MetricFamily,
    Prepared,
    QueryTrace,
    ScoreColumn,
    ScoringInputs,
)
from benchmark.families.exam import formulas, pipeline, views
from benchmark.families.exam.answerers import Answerer, EntailmentAnswerer, LLMAnswerer
from benchmark.families.exam.bank import Bank, fingerprint, questions_from_rows
from benchmark.families.exam.pipeline import ExamState
from benchmark.families.exam.trace import ExamTrace
from benchmark.judges import JudgeStack
from benchmark.tasks import Task

CITATION = """@inproceedings{sander2021exam,
  title     = {{EXAM}: How to Evaluate Retrieve-and-Generate Systems for Users Who Do Not (Yet) Know What They Want},
  author    = {Sander, David P. and Dietz, Laura},
  booktitle = {Proceedings of the Second International Conference on Design of Experimental Search \\& Information REtrieval Systems (DESIRES 2021)},
  year      = {2021}
}
@inproceedings{farzi2024pencils,
  title     = {Pencils Down! Automatic Rubric-based Evaluation of Retrieve/Generate Systems},
  author    = {Farzi, Naghmeh and Dietz, Laura},
  booktitle = {Proceedings of the 2024 ACM SIGIR International Conference on Theory of Information Retrieval (ICTIR)},
  year      = {2024}
}"""


class ExamSettings(FamilySettings):
    answerer: Literal["entailment", "llm"] = Field(
        default="entailment", description="entailment-based multiple choice, or an LLM reader"
    )
    # Chosen on the written webtrack bank (benchmarks/exam_throughput.py prints the table): with the
    # offline profile, 0.5 / 0.02 answers 72% of questions from the gold articles and 7% from texts
    # that only restate the query's aspects (on topic, no answers); 0.77, the claim-support
    # threshold, answers only 37% from the gold articles.
    threshold: float = Field(default=0.5, description="entailment answerer: least support to answer")
    margin: float = Field(default=0.02, ge=0, description="entailment answerer: abstain on closer calls")
    min_rating: int = Field(
        default=formulas.DEFAULT_MIN_RATING,
        ge=0,
        le=5,
        description="free text: least self-rating that answers",
    )
    bank_file: str | None = Field(
        default=None, description="an EXAM++ question bank used instead of the task's"
    )
    bank_sha256: str | None = None


def task_bank(task: Task) -> Bank:
    """The task's own exam (``exam_questions``), checked; empty when it has none."""
    if not task.has_table("exam_questions"):
        return {}
    rows = task.table("exam_questions").to_dict("records")
    return questions_from_rows(rows, f"tasks/{task.id}/data/exam_questions.parquet", row_offset=1)


def gold_articles(task: Task) -> dict[str, str]:
    """Query id -> its gold article text (several articles of one query joined)."""
    if not task.has_table("gold_articles"):
        return {}
    out: dict[str, list[str]] = {}
    for row in task.table("gold_articles").to_dict("records"):
        out.setdefault(str(row["query_id"]), []).append(str(row["text"]))
    return {q: "\n\n".join(texts) for q, texts in out.items()}


class ExamFamily(MetricFamily):
    id = "exam"
    title = "EXAM"
    description = (
        "Held-out exam questions about the query, answered by a question answerer from the system's text "
        "alone: EXAM is the share answered correctly (macro-averaged; a skipped query scores 0), n-EXAM "
        "divides by the gold articles' EXAM and may exceed 1 when a system's texts answer more than they do."
    )
    primary = "n_exam"
    citation = CITATION
    required_tables = ("queries",)
    trace_model = ExamTrace
    pipeline = pipeline
    views = views
    settings_model = ExamSettings
    columns = (
        ScoreColumn(
            "n_exam", "n-EXAM", "EXAM relative to the gold articles' (Σ system / Σ gold; may exceed 1)"
        ),
        ScoreColumn("exam", "EXAM", "share of the query's exam questions answered correctly from the text"),
        ScoreColumn(
            "answered",
            "answered",
            "share of questions the answerer committed to, right or wrong",
            default_shown=False,
        ),
    )

    def add_arguments(self, group: argparse._ArgumentGroup) -> None:
        group.add_argument(
            "--exam-answerer",
            choices=["entailment", "llm"],
            default="entailment",
            help="EXAM question answerer: entailment-based multiple choice (default) or the judge LLM as reader",
        )
        group.add_argument(
            "--exam-threshold",
            type=float,
            default=0.5,
            help="entailment answerer: least support to answer (0.5)",
        )
        group.add_argument(
            "--exam-margin", type=float, default=0.02,
            help="entailment answerer: abstain when the best option leads the runner-up by no more (0.02)",
        )  # fmt: skip
        group.add_argument(
            "--exam-min-rating", type=int, default=formulas.DEFAULT_MIN_RATING,
            help="free-text questions: least answerability self-rating (0-5) that counts as answered (default 4)",
        )  # fmt: skip
        group.add_argument(
            "--exam-bank", help="an EXAM++ question-bank JSONL(.gz) to use instead of the task's exam"
        )

    def settings_from_args(self, args: argparse.Namespace) -> ExamSettings:
        bank_file = getattr(args, "exam_bank", None)
        sha = None
        if bank_file:
            import hashlib

            path = Path(bank_file)
            if not path.is_file():
                raise InputError(Problem(bank_file, "no such file", field="--exam-bank"))
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
        return ExamSettings.from_options(
            answerer=getattr(args, "exam_answerer", "entailment"),
            threshold=getattr(args, "exam_threshold", 0.5),
            margin=getattr(args, "exam_margin", 0.02),
            min_rating=getattr(args, "exam_min_rating", formulas.DEFAULT_MIN_RATING),
            bank_file=bank_file,
            bank_sha256=sha,
        )

    def board_settings(self, settings: FamilySettings) -> dict[str, Any]:
        """The answerer and what steers it, and the bank (by content; ``task``: the task's own)."""
        assert isinstance(settings, ExamSettings)
        steer = (
            {"threshold": settings.threshold, "margin": settings.margin}
            if settings.answerer == "entailment"
            else {"min_rating": settings.min_rating}
        )
        return {"answerer": settings.answerer, **steer, "bank": settings.bank_sha256 or "task"}

    def scorable_queries(self, task: Task, inputs: ScoringInputs) -> list[str] | None:
        if not task.has_table("exam_questions"):
            return None
        asked = set(task.table("exam_questions")["query_id"].astype(str))
        return [q for q in task.quick_order() if q in asked]

    def bank(self, task: Task, settings: ExamSettings) -> Bank:
        if settings.bank_file:
            from benchmark.families.exam.exampp import read_bank

            return read_bank(Path(settings.bank_file))
        bank = task_bank(task)
        if not bank:
            raise InputError(
                Problem(
                    f"tasks/{task.id}/task.yaml",
                    "the task has no exam_questions table: pass --exam-bank FILE (an EXAM++ question bank), or "
                    "draft one with `benchmark exam generate`",
                    field="data.tables",
                )
            )
        return bank

    def answerer(self, judges: JudgeStack, settings: ExamSettings) -> Answerer:
        if settings.answerer == "llm":
            return LLMAnswerer(
                judges.llm, min_rating=settings.min_rating, max_retries=judges.profile.llm.max_retries
            )
        return EntailmentAnswerer(judges.entailment, settings.threshold, settings.margin)

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, ExamSettings)
        bank = self.bank(task, settings)
        answerer = self.answerer(judges, settings)
        notes: list[str] = []
        n_questions = sum(len(qs) for qs in bank.values())
        kinds = sorted({q.kind for qs in bank.values() for q in qs})
        provenance = sorted({(q.provenance or "unknown").split(":")[0] for qs in bank.values() for q in qs})
        notes.append(
            f"question bank: {n_questions} questions ({', '.join(kinds)}; {', '.join(provenance)}) for {len(bank)} queries"
        )
        state = ExamState(bank, fingerprint(bank), answerer, gold_articles(task), notes)
        return Prepared(state=state, notes=notes, run_key=(state.bank_id, answerer.identity))

    def primary_for(self, task: Task, scores: dict[str, Any]) -> str:
        """n-EXAM where the gold articles allow it, else EXAM."""
        chosen = super().primary_for(task, scores)
        return chosen if scores.get(chosen) is not None else "exam"

    def curves(
        self, traces: Sequence[QueryTrace], settings: FamilySettings
    ) -> dict[str, dict[str, float | None]]:
        """Each query's gold-article EXAM: the normaliser's parts, kept with the result."""
        gold = {t.query_id: t.gold_exam for t in traces if isinstance(t, ExamTrace)}
        return {"gold_exam": gold} if any(v is not None for v in gold.values()) else {}

    def figures(self, results: Sequence[Any], option: str | None = None) -> dict[str, Any]:
        return {"EXAM and n-EXAM": views.figure(results)}
