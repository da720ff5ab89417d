"""EXAM / n-EXAM as a metric family: what it is (its scores, settings, tables and judges)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from pydantic import model_validator

from benchmark.families.base import FamilySettings, JudgeRole, MetricFamily, ScoreColumn, UnitLabels, option
from benchmark.families.exam import formulas
from benchmark.families.exam.scores import LABELLED
from benchmark.families.exam.tables import TABLES
from benchmark.families.exam.trace import ExamTrace

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
    flag_prefix: ClassVar[str] = "exam"

    answerer: Literal["entailment", "llm", "similarity"] = option(
        "entailment",
        "EXAM question answerer: entailment-based multiple choice, the judge LLM as reader, or "
        "question-window similarity (free text only: whether the text addresses the question)",
    )
    # Chosen on the written webtrack bank (benchmarks/exam_throughput.py prints the table): with the
    # offline profile, 0.5 / 0.02 answers 72% of questions from the gold articles and 7% from texts
    # that only restate the query's aspects (on topic, no answers); 0.77, the claim-support
    # threshold, answers only 37% from the gold articles.
    threshold: float = option(
        0.5,
        "entailment answerer: least support (0 to 1) to answer; similarity answerer: least cosine",
        allow_inf_nan=False,
        ge=0,
        le=1,
    )
    margin: float = option(
        0.02, "entailment answerer: abstain when the best option leads the runner-up by no more", ge=0
    )
    min_rating: int = option(
        formulas.DEFAULT_MIN_RATING,
        "free-text questions: least answerability self-rating (0-5) that counts as answered",
        ge=0,
        le=5,
    )
    bank_file: str | None = option(
        None, "an EXAM++ question-bank JSONL(.gz) to use instead of the task's exam", flag="--exam-bank"
    )
    bank_sha256: str | None = option(
        None, "the bank file's SHA-256 (recorded: the board keys on it)", cli=False
    )

    @model_validator(mode="after")
    def _fingerprint(self) -> Self:
        """A bank file is recorded by content: its SHA-256 is read once, when given."""
        if self.bank_file and self.bank_sha256 is None:
            import hashlib

            path = Path(self.bank_file)
            if not path.is_file():
                raise ValueError(f"no such question-bank file: {self.bank_file}")
            object.__setattr__(self, "bank_sha256", hashlib.sha256(path.read_bytes()).hexdigest())
        return self

    def board_key(self) -> dict[str, Any]:
        """The answerer and what steers it, and the bank (by content; ``task``: the task's own)."""
        steer = {
            "entailment": {"threshold": self.threshold, "margin": self.margin},
            "similarity": {"threshold": self.threshold},
        }.get(self.answerer, {"min_rating": self.min_rating})
        return {"answerer": self.answerer, **steer, "bank": self.bank_sha256 or "task"}


EXAM = MetricFamily(
    id="exam",
    title="EXAM",
    description=(
        "Held-out exam questions about the query, answered by a question answerer from the system's text "
        "alone: EXAM is the share answered correctly (macro-averaged; a skipped query scores 0), n-EXAM "
        "divides by the gold articles' EXAM and may exceed 1 when a system's texts answer more than they do."
    ),
    primary="n_exam",
    judged_by=dict.fromkeys(("exam", "n_exam"), ("exam-answerer",)),
    judge_roles=(
        JudgeRole(
            "exam-answerer",
            "entailment answerer ({entailment}) or the LLM reader ({llm})",
            "measured only with --exam-grades FILE --exam-bank FILE: passages with relevance grades in "
            "EXAM++'s graded format and multiple-choice or keyed questions, which the default answerer "
            "reads (no public one is loaded here: EXAM++'s DL19 questions are free text without a key; "
            "this profile's reading of them is its DL19 ranking card)",
        ),
    ),
    citation=CITATION,
    stages={
        "answers": (),
        "answers:reader": (),
        "answers:rate": (),
        "answers:verify": ("answers:rate",),
        "gold-articles": (),
        "gold-articles:reader": (),
        "gold-articles:rate": (),
        "gold-articles:verify": ("gold-articles:rate",),
    },
    required_tables=("queries",),
    tables=TABLES,
    trace_model=ExamTrace,
    settings_model=ExamSettings,
    columns=(
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
    ),
    labelled_units={
        key: UnitLabels(
            "question",
            "the trace's question_id of the exam question",
            "1: the text answers the question correctly, 0: it does not (a wrong answer or an abstention)",
        )
        for key in LABELLED
    },
)
