"""EXAM / n-EXAM as a metric family: its scores, options, preparation and views."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from pydantic import model_validator

from benchmark.core.errors import InputError, Problem
from benchmark.families.base import (
    FamilySettings,
    GradedBoards,
    JudgedPassage,
    JudgeRole,
    LabelledUnit,
    MetricFamily,
    Prepared,
    QueryTrace,
    Regrading,
    ScoreColumn,
    ScoringInputs,
    UnitLabels,
    option,
)
from benchmark.families.exam import formulas, pipeline, scores, views
from benchmark.families.exam.bank import Bank, fingerprint, questions_from_rows
from benchmark.families.exam.judges import Answerer, EntailmentAnswerer, LLMAnswerer, SimilarityAnswerer
from benchmark.families.exam.pipeline import ExamState
from benchmark.families.exam.tables import TABLES
from benchmark.families.exam.trace import ExamTrace
from benchmark.judging.stack import JudgeStack
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


def task_bank(task: Task) -> Bank:
    """The task's own exam (``exam_questions``), checked; empty when it has none."""
    if not task.has_table("exam_questions"):
        return {}
    rows = task.table("exam_questions").to_dict("records")
    return questions_from_rows(rows, task.where("exam_questions"), row_offset=1)


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
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {
        "exam": ("exam-answerer",),
        "n_exam": ("exam-answerer",),
    }
    judge_roles = (
        JudgeRole(
            "exam-answerer",
            "entailment answerer ({entailment}) or the LLM reader ({llm})",
            "measured only with --exam-grades FILE --exam-bank FILE: passages with relevance grades in "
            "EXAM++'s graded format and multiple-choice or keyed questions, which the default answerer "
            "reads (no public one is loaded here: EXAM++'s DL19 questions are free text without a key; "
            "this profile's reading of them is its DL19 ranking card)",
        ),
    )
    citation = CITATION
    stages: ClassVar[dict[str, tuple[str, ...]]] = {
        "answers": (),
        "answers:reader": (),
        "answers:rate": (),
        "answers:verify": ("answers:rate",),
        "gold-articles": (),
        "gold-articles:reader": (),
        "gold-articles:rate": (),
        "gold-articles:verify": ("gold-articles:rate",),
    }
    required_tables = ("queries",)
    tables = TABLES
    trace_model = ExamTrace
    pipeline = pipeline
    scores = scores
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

    labelled_units: ClassVar[dict[str, UnitLabels]] = {
        key: UnitLabels(
            "question",
            "the trace's question_id of the exam question",
            "1: the text answers the question correctly, 0: it does not (a wrong answer or an abstention)",
        )
        for key in scores.LABELLED
    }

    def score_units(self, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
        """EXAM's exam questions, each labelled answered correctly (1) or not (0) by the
        answerer; n-EXAM is not a unit mean (``scores.LABELLED`` says why)."""
        if key not in self.labelled_units or not isinstance(trace, ExamTrace):
            return None
        units = scores.question_units(trace, key)
        return None if units is None else [LabelledUnit(*u) for u in units]

    def board_settings(self, settings: FamilySettings) -> dict[str, Any]:
        """The answerer and what steers it, and the bank (by content; ``task``: the task's own)."""
        assert isinstance(settings, ExamSettings)
        steer = {
            "entailment": {"threshold": settings.threshold, "margin": settings.margin},
            "similarity": {"threshold": settings.threshold},
        }.get(settings.answerer, {"min_rating": settings.min_rating})
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
                    task.where(),
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
        if settings.answerer == "similarity":
            return SimilarityAnswerer(judges.embedder(), settings.threshold)
        return EntailmentAnswerer(judges.entailment, settings.threshold, settings.margin)

    def graded_leaderboards(
        self,
        grades: Path,
        *,
        grader: str | None,
        min_rating: int | None,
        rank_cutoff: int,
        regrade: Regrading | None = None,
    ) -> GradedBoards | None:
        """EXAM and n-EXAM of every run in an EXAM++ graded file under one of its graders
        (named by ``grader`` where the file has several: graders are never merged), or, with
        ``regrade``, under the profile's own answerer, which grades the file's paragraphs
        again on the bank's questions."""
        from benchmark.core.errors import rel
        from benchmark.families.exam.exampp import choose_graders, counted, counting, read_grades
        from benchmark.families.exam.graded_boards import exam_boards

        paragraphs = read_grades(grades)
        if regrade is not None:
            return self._regraded(paragraphs, regrade, min_rating, rank_cutoff)
        chosen = choose_graders(paragraphs, grader, rel(grades))
        if not chosen:
            raise InputError(Problem(rel(grades), "holds no graded paragraphs", field="--grades"))
        if len(chosen) > 1:  # a card is one judge's
            raise InputError(
                Problem(
                    rel(grades),
                    f"holds {len(chosen)} graders: name one ({'; '.join(chosen)})",
                    field="--grader",
                )
            )
        exam, n_exam = exam_boards(paragraphs, chosen[0], min_rating, rank_cutoff)
        label = f"({chosen[0]}, {counted(counting(paragraphs, chosen[0], min_rating))})"
        return GradedBoards(chosen[0], {f"EXAM {label}": exam, f"n-EXAM {label}": n_exam}, paragraphs)

    def _regraded(
        self, paragraphs: Sequence[Any], regrade: Regrading, min_rating: int | None, rank_cutoff: int
    ) -> GradedBoards:
        """The profile's answerer on the file's ranked paragraphs: the one ``regrade`` names,
        else its default answerer where that reads the bank's questions, else its LLM reader
        (EXAM++'s generated questions are free text without a key, which the entailment
        answerer cannot read; the similarity answerer reads them as topical address)."""
        from benchmark.families.exam.exampp import read_bank
        from benchmark.families.exam.graded_boards import regrade as grade_again

        bank = read_bank(regrade.bank)
        order = list(dict.fromkeys(p.query_id for p in paragraphs if bank.get(p.query_id)))
        topics = order[: regrade.topics] if regrade.topics else order
        chosen = set(topics)
        free = any(q.kind != "multiple-choice" and not q.answer for t in topics for q in bank[t])
        settings = ExamSettings(answerer=regrade.answerer or ("llm" if free else ExamSettings().answerer))
        if min_rating is not None:
            settings = settings.model_copy(update={"min_rating": min_rating})
        answerer = self.answerer(regrade.judges, settings)
        name = f"groundcover {regrade.judges.profile.id} exam {settings.answerer} answerer"
        done = grade_again(
            paragraphs,
            bank,
            answerer,
            name,
            topics=topics,
            min_rating=settings.min_rating,
            rank_cutoff=rank_cutoff,
        )
        rule = {
            "llm": f"self-rating ≥ {settings.min_rating}",
            "similarity": f"cosine ≥ {settings.threshold}",
        }.get(settings.answerer, f"support ≥ {settings.threshold}")
        label = f"({name}, {rule})"
        return GradedBoards(
            name,
            {f"EXAM {label}": done.exam, f"n-EXAM {label}": done.n_exam},
            [p for p in paragraphs if p.query_id in chosen],
            regraded={
                "answerer": answerer.identity,
                "topics": list(topics),
                "readings": done.readings,
                "failed_readings": done.failed_readings,
                "failures": done.failures,
                "system_topic_cells_left_out": done.cells_left_out,
            },
        )

    def answer_for_card(
        self, role: str, judges: JudgeStack, grades: Path, bank: Path, *, grader: str | None = None
    ) -> list[JudgedPassage] | None:
        """The default answerer (the family's default settings, the profile's models) on
        every judged passage of an EXAM++ graded file, ranked by a system or not (EXAM++'s
        qrels mode): per passage, how many of its query's questions in ``bank`` it answers
        correctly, next to how many the file's grader (``grader``, needed when the file has
        several; never merged) answered.  Where the file has graders, the passages that
        grader graded are measured.  A passage the answerer failed on is kept with ``ours``
        None and its failures, never counted as answering nothing."""
        from benchmark.core.errors import rel
        from benchmark.families.exam.exampp import choose_graders, counting, read_bank, read_grades

        if role not in self.judged_by.get(self.primary, ()):
            return None
        questions = read_bank(bank)
        paragraphs = read_grades(grades, "--exam-grades")
        chosen = choose_graders(paragraphs, grader, rel(grades))
        if len(chosen) > 1:
            raise InputError(
                Problem(
                    rel(grades),
                    f"has {len(chosen)} graders: name the one to compare with ({'; '.join(chosen)})",
                    field="--exam-grader",
                )
            )
        theirs = chosen[0] if chosen else None
        mode = counting(paragraphs, theirs, formulas.DEFAULT_MIN_RATING) if theirs else None
        judged = [
            (p, p.grade(theirs) if theirs else None)
            for p in paragraphs
            if p.relevance is not None and (theirs is None or p.grade(theirs) is not None)
        ]
        if not judged:
            raise InputError(
                Problem(str(grades), "holds no judged passages (paragraphs with a relevance grade)")
            )
        settings = ExamSettings()
        asked = {q.question_id: q for p, _ in judged for q in questions.get(p.query_id, [])}
        unreadable = [q for q in asked.values() if q.kind != "multiple-choice" and not q.answer]
        if settings.answerer == "entailment" and unreadable:
            # refused before any model runs: each such question would fail on every passage
            # (EXAM++'s DL19 bank gave n = 0 and 215 failures), and a card of failures says nothing
            raise InputError(
                Problem(
                    rel(bank),
                    f"{len(unreadable)} of the {len(asked)} questions for the judged passages are free text "
                    f"without an answer key (e.g. {unreadable[0].question_id!r}: EXAM++'s generated "
                    "questions): the default entailment answerer reads multiple-choice questions or a key "
                    "only, so it cannot be measured on this bank (EXAM++'s own grades for it are what "
                    "`benchmark exam score-grades` reports)",
                    field="--exam-bank",
                )
            )
        items = [(q, p.text) for p, _ in judged for q in questions.get(p.query_id, [])]
        readings = iter(self.answerer(judges, settings).read(items))
        out = []
        for p, grade in judged:
            got = [next(readings) for _ in questions.get(p.query_id, [])]
            failures = tuple(r.error for r in got if r.error)
            if not got:
                failures = (f"no questions for query {p.query_id!r} in the bank",)
            out.append(
                JudgedPassage(
                    p.query_id,
                    int(p.relevance or 0),
                    len(p.text.split()),
                    None if failures else sum(bool(r.correct) for r in got),
                    len(grade.answered(mode)) if grade else 0,
                    failures,
                )
            )
        return out

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

    def reference_texts(self, task: Task) -> dict[str, str]:
        return gold_articles(task)

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
