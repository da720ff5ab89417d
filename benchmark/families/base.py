"""What a metric family does, and how the platform asks it.

What a family *is* is one value (:class:`~benchmark.core.family.MetricFamily`, in its
``family.py``); what it *does* is in the modules beside it, found by name and imported only
when needed: ``pipeline`` (:class:`Pipeline`: ``prepare`` a task once, ``score_batch`` answers
into traces; optionally ``scorable_queries``, ``reference_texts`` and a judge card's hooks),
``scores`` (:class:`Scores`: ``trace_scores``, pure; optionally ``curves`` and ``units``),
``views`` and ``commands`` (optional).  The functions below are how every layer above asks
them; CONTRIBUTING.md, "Adding a metric family", says what each holds.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from benchmark.core.family import InputFile, JudgeRole, MetricFamily, QueryTrace, ScoreColumn, UnitLabels
from benchmark.core.settings import FamilySettings, option

if TYPE_CHECKING:
    from pathlib import Path

    from benchmark.answers.citations import CitedSentence
    from benchmark.judging.stack import JudgeStack
    from benchmark.tasks import Task

__all__ = [
    "FamilySettings",
    "InputFile",
    "Item",
    "JudgeRole",
    "MetricFamily",
    "Pipeline",
    "Prepared",
    "QueryTrace",
    "ScoreColumn",
    "Scores",
    "ScoringInputs",
    "UnitLabels",
    "option",
]


@dataclass
class ScoringInputs:
    """Where the knowledge and the judgements come from, as the user gave them."""

    corpus: str | None = None
    lucene_index: str | None = None
    #: the families' own input files, by :class:`InputFile` name (e.g. ICAT-M's aspect qrels)
    files: dict[str, str] = field(default_factory=dict)
    #: per query, the ids of the evidence documents the system was given (RAG outputs'
    #: ``retrieval.passages``); families that judge evidence use them
    evidence: dict[str, list[str]] | None = None
    #: per query, the answer's sentences with what each cites, where the input split them
    #: itself (a TREC RAG run); otherwise families split answers and parse ``[n]`` markers
    sentences: dict[str, list[CitedSentence]] | None = None


#: (query id, query text, answer): one item of a batch, as ``score_batch`` takes it
Item = tuple[str, str, str]


@dataclass
class Prepared:
    """What a family resolved once per task before scoring: its state, its notes, and
    the identity of the knowledge it scores against (recorded as ``task.corpus``)."""

    state: Any
    corpus_id: str | None = None
    notes: list[str] = field(default_factory=list)
    run_key: tuple[Any, ...] = ()


@dataclass(frozen=True)
class LabelledUnit:
    """One unit of one query as the judge labelled it, with the weight that makes the weighted
    unit mean the score's query macro-average (1 / the query's units)."""

    unit_id: str
    judge: float
    weight: float


@dataclass(frozen=True)
class JudgedPassage:
    """A passage assessors graded for relevance, as a judge card measures an answerer on it:
    how many of its query's questions the family's answerer answers from it (``None``: it
    could not, see ``failures``), and how many the file's own grader did."""

    query_id: str
    relevance: int
    words: int
    ours: int | None
    theirs: int
    failures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Regrading:
    """What a ranking card of a judge profile's own judge needs to grade a graded-runs file
    again: the profile's models, the question bank the file's grader was asked, and the
    topics to grade (a stated subset where the judge is slow)."""

    judges: Any
    bank: Path
    topics: int | None = None
    #: the family's reader of the bank's questions (exam: ``entailment | llm | similarity``);
    #: None: the family's choice for the bank
    answerer: str | None = None


@dataclass(frozen=True)
class GradedBoards:
    """Leaderboards a family computes from a file of graded retrieval runs (an EXAM++ graded
    file): per label, system -> topic -> score; ``paragraphs`` are the file's graded passages
    (with ``query_id``, ``relevance``, ``runs`` ranks and ``text``), from which meta-evaluation
    builds the human leaderboard and the trivial baselines."""

    grader: str
    boards: dict[str, dict[str, dict[str, float]]]
    paragraphs: Sequence[Any]
    #: what grading again cost and where it failed (counts, failure kinds), for the card
    regraded: dict[str, Any] | None = None


class Pipeline(Protocol):
    """A family's ``pipeline`` module: the stages that call models."""

    def prepare(self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: Any) -> Prepared:
        """Resolve what scoring this task needs (corpus, retriever, qrels); fail early,
        before any answer is scored, with an :class:`~benchmark.core.errors.InputError`."""
        ...

    def score_batch(self, state: Any, items: Sequence[Item]) -> Sequence[QueryTrace]:
        """Traces for ``(query_id, query text, answer)`` items, every model stage batched
        across them; failures are recorded in the traces, never raised."""
        ...


class Scores(Protocol):
    """A family's ``scores`` module: pure, the standard library, its formulas and trace only."""

    def trace_scores(self, trace: Any) -> dict[str, float | None]:
        """The scores of one query from its trace alone, with no model."""
        ...


def module(family: MetricFamily, name: str) -> ModuleType | None:
    """The family's module ``name`` (``pipeline``, ``scores``, ``views``, ``commands``), or
    ``None`` where the family has none."""
    qualified = f"{family.package}.{name}"
    if importlib.util.find_spec(qualified) is None:
        return None
    return importlib.import_module(qualified)


def pipeline(family: MetricFamily) -> Pipeline:
    return importlib.import_module(f"{family.package}.pipeline")  # type: ignore[return-value]


def scores(family: MetricFamily) -> Scores:
    return importlib.import_module(f"{family.package}.scores")  # type: ignore[return-value]


def prepare(
    family: MetricFamily, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
) -> Prepared:
    """What scoring ``task`` needs, resolved once by the family's pipeline."""
    return pipeline(family).prepare(task, judges, inputs, settings)


def score_batch(family: MetricFamily, prepared: Prepared, items: Sequence[Item]) -> list[QueryTrace]:
    """Traces of one batch of ``(query id, query text, answer)`` items."""
    return list(pipeline(family).score_batch(prepared.state, items))


def queries_of(family: MetricFamily, task: Task, inputs: ScoringInputs) -> list[str] | None:
    """The queries the family can score with these inputs, in the order a quick run should
    take them; ``None``: all.  Cheap: asked before any model loads."""
    found = hook(family, "scorable_queries")
    return found(task, inputs) if found else None


def recompute(family: MetricFamily, trace: QueryTrace) -> dict[str, float | None]:
    """The scores of one query from its trace alone, with no model: how a published
    result is checked (``tests/unit/test_published_results.py``)."""
    if not isinstance(trace, family.trace_model):
        raise TypeError(f"{family.id} recomputes {family.trace_model.__name__}s, not {type(trace).__name__}")
    return dict(scores(family).trace_scores(trace))


def curves(
    family: MetricFamily, traces: Sequence[QueryTrace], settings: FamilySettings
) -> dict[str, dict[str, float | None]]:
    """Extra result series of the family's ``scores.curves`` (e.g. ICAT's β sweep); none by default."""
    found = getattr(scores(family), "curves", None)
    return dict(found(traces, settings)) if found else {}


def score_units(family: MetricFamily, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
    """The units of score ``key`` in one query's trace with the judge's label of each, so
    that the score is the mean over queries of the weighted unit labels; ``None`` where the
    query has no value for the score (a failure, or the score does not apply), or ``key`` is
    not one of the family's :attr:`~MetricFamily.labelled_units`."""
    units = getattr(scores(family), "units", None)
    if key not in family.labelled_units or units is None or not isinstance(trace, family.trace_model):
        return None
    found = units(trace, key)
    return None if found is None else [LabelledUnit(*u) for u in found]


def not_applicable(family: MetricFamily, inputs: ScoringInputs) -> str | None:
    """Why this family does not apply to a job's answers at all, or ``None``: a family that
    :attr:`~MetricFamily.needs_evidence` does not apply to closed-book answers, which were
    given no passages.  Such a job is not scored by the family and the run says so, and the
    overall ranking neither counts the board for it nor calls it missing: a score that does
    not apply is not a 0."""
    if family.needs_evidence and inputs.evidence is None:
        return "closed-book answers were given no passages and cite none"
    return None


def hook(family: MetricFamily, name: str) -> Any:
    """An optional function of the family's pipeline (``scorable_queries``,
    ``reference_texts``, a judge card's ``rate_for_card`` …), or ``None``."""
    return getattr(pipeline(family), name, None)
