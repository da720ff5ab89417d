"""EXAM's pipeline: every (question, text) pair of a batch to the answerer at once.  The gold
articles are read by the same answerer once per task; their mean EXAM, n-EXAM's normaliser,
is recorded in every trace so a published n-EXAM recomputes from its trace alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmark.core.errors import InputError
from benchmark.families.base import Prepared, ScoringInputs
from benchmark.families.exam import formulas
from benchmark.families.exam.bank import Bank, ExamQuestion, fingerprint, task_bank
from benchmark.families.exam.exampp import read_bank
from benchmark.families.exam.family import ExamSettings

# the judge card's hooks, which read graded-paragraph files
from benchmark.families.exam.graded_boards import answer_for_card, graded_leaderboards
from benchmark.families.exam.judges import Answerer, Reading
from benchmark.families.exam.judges import answerer as make_answerer
from benchmark.families.exam.scores import trace_scores
from benchmark.families.exam.trace import ExamTrace, QuestionTrace
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import stage
from benchmark.tasks import Task

__all__ = [
    "answer_for_card",
    "graded_leaderboards",
    "prepare",
    "reference_texts",
    "scorable_queries",
    "score_batch",
]


@dataclass
class ExamState:
    """What scoring a task needs; the gold articles are read on first use."""

    bank: Bank
    bank_id: str
    answerer: Answerer
    articles: dict[str, str]
    notes: list[str]
    _gold: dict[str, float | None] | None = None

    @property
    def gold_exam(self) -> dict[str, float | None]:
        """Read once per run when every gold article got its EXAM; when some did not (a judge
        that was down), asked again with the next batch instead of leaving n-EXAM undetermined
        for the rest of the run."""
        if self._gold is not None:
            return self._gold
        gold = gold_scores(self.answerer, self.bank, self.articles) if self.articles else {}
        if not self.gold_failed(gold):
            self._gold = gold
            self.notes.append(gold_note(gold, self.bank, bool(self.articles)))
        return gold

    def gold_failed(self, gold: dict[str, float | None]) -> list[str]:
        """The bank queries whose gold article could not be read (a judge failure)."""
        return [q for q in self.bank if q in self.articles and gold.get(q) is None]

    @property
    def gold_mean(self) -> float | None:
        return gold_mean(self.gold_exam, self.bank)


def read_all(
    answerer: Answerer, bank: Bank, texts: Sequence[tuple[str, str]]
) -> list[list[tuple[ExamQuestion, Reading]]]:
    """Per (query id, text), each of the query's questions with what the answerer read."""
    items = [(q, text) for qid, text in texts for q in bank.get(qid, [])]
    readings = iter(answerer.read(items))
    return [[(q, next(readings)) for q in bank.get(qid, [])] for qid, _ in texts]


def gold_scores(answerer: Answerer, bank: Bank, articles: dict[str, str]) -> dict[str, float | None]:
    """EXAM of each bank query's gold article (its articles joined, when it has several)."""
    qids = [q for q in bank if q in articles]
    read = read_all(answerer, bank, [(q, articles[q]) for q in qids])
    return {q: formulas.exam([r.verdict for _, r in rs]) for q, rs in zip(qids, read, strict=True)}


def gold_mean(gold: dict[str, float | None], bank: Bank) -> float | None:
    """The normaliser: the mean gold EXAM over every bank query (none when one is missing)."""
    values = [gold.get(q) for q in bank]
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)  # type: ignore[arg-type]


def gold_note(gold: dict[str, float | None], bank: Bank, have_articles: bool) -> str:
    if not have_articles:
        return "n-EXAM not computed: the task has no gold articles"
    mean = gold_mean(gold, bank)
    if mean is None:
        missing = [q for q in bank if gold.get(q) is None]
        return f"n-EXAM not computed: no gold-article EXAM for {len(missing)} bank queries ({missing[:5]})"
    return f"n-EXAM normaliser: the gold articles' mean EXAM {mean:.3f} over the bank's {len(bank)} queries"


def score_batch(state: ExamState, items: Sequence[tuple[str, str, str]]) -> list[ExamTrace]:
    with stage("answers"):
        read = read_all(state.answerer, state.bank, [(qid, answer) for qid, _, answer in items])
    with stage("gold-articles"):
        gold_exam = state.gold_exam
        mean = gold_mean(gold_exam, state.bank)
    gold_failed = state.gold_failed(gold_exam)
    traces = []
    for (qid, text, answer), pairs in zip(items, read, strict=True):
        trace = ExamTrace(
            query_id=qid,
            query=text,
            answer=answer,
            answerer=state.answerer.identity,
            bank=state.bank_id,
            questions=[question_trace(q, r) for q, r in pairs],
            gold_exam=gold_exam.get(qid),
            gold_mean=mean,
            gold_queries=len(state.bank),
        )
        failed = [t for t in trace.questions if t.correct is None]
        if not trace.questions:
            trace.failures.append("bank: the question bank has no questions for this query")
        elif failed:
            trace.failures.append(
                f"answer: {len(failed)} of {len(trace.questions)} question(s) could not be answered: {failed[0].error}"
            )
        if gold_failed:
            trace.failures.append(
                f"gold-articles: n-EXAM undetermined: the gold articles of {len(gold_failed)} bank queries could "
                f"not be read (e.g. {gold_failed[0]!r})"
            )
        trace.scores = trace_scores(trace)
        trace.counts = {
            "questions": len(trace.questions),
            "correct": sum(bool(t.correct) for t in trace.questions),
            "abstained": sum(t.answered is False for t in trace.questions),
            "questions_failed": len(failed),
        }
        traces.append(trace)
    return traces


def question_trace(q: ExamQuestion, r: Reading) -> QuestionTrace:
    return QuestionTrace(
        question_id=q.question_id,
        question=q.question,
        kind=q.kind,
        facet_id=q.facet_id,
        options=list(q.options),
        key=q.answer,
        **asdict(r),
    )


# -- what a task needs, resolved once --------------------------------------------------


def reference_texts(task: Task) -> dict[str, str]:
    """Query id -> its gold article text (several articles of one query joined): also what
    meta-evaluation compares answers with (ROUGE-1)."""
    if not task.has_table("gold_articles"):
        return {}
    out: dict[str, list[str]] = {}
    for row in task.table("gold_articles").to_dict("records"):
        out.setdefault(str(row["query_id"]), []).append(str(row["text"]))
    return {q: "\n\n".join(texts) for q, texts in out.items()}


def scorable_queries(task: Task, inputs: ScoringInputs) -> list[str] | None:
    if not task.has_table("exam_questions"):
        return None
    asked = set(task.table("exam_questions")["query_id"].astype(str))
    return [q for q in task.quick_order() if q in asked]


def task_or_file_bank(task: Task, settings: ExamSettings) -> Bank:
    """The bank a run asks: the settings' EXAM++ file, else the task's own exam."""
    if settings.bank_file:
        return read_bank(Path(settings.bank_file))
    bank = task_bank(task)
    if not bank:
        raise InputError.at(
            task.where(),
            "the task has no exam_questions table: pass --exam-bank FILE (an EXAM++ question bank), or "
            "draft one with `benchmark exam generate`",
            field="data.tables",
        )
    return bank


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: ExamSettings) -> Prepared:
    bank = task_or_file_bank(task, settings)
    answerer = make_answerer(judges, settings)
    notes: list[str] = []
    n_questions = sum(len(qs) for qs in bank.values())
    kinds = sorted({q.kind for qs in bank.values() for q in qs})
    provenance = sorted({(q.provenance or "unknown").split(":")[0] for qs in bank.values() for q in qs})
    notes.append(
        f"question bank: {n_questions} questions ({', '.join(kinds)}; {', '.join(provenance)}) for {len(bank)} queries"
    )
    state = ExamState(bank, fingerprint(bank), answerer, reference_texts(task), notes)
    return Prepared(state=state, notes=notes, run_key=(state.bank_id, answerer.identity))
