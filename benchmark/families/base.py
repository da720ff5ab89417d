"""What a metric family does, and how the platform asks it: the modules beside a family's
``family.py`` (``pipeline``, ``scores``, optional ``views`` and ``commands``), imported only
when needed.  CONTRIBUTING.md, "Adding a metric family", says what each holds.
"""

from __future__ import annotations

import gzip
import importlib
import importlib.util
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

from benchmark.core.checkpoint import write_atomic
from benchmark.core.errors import InputError
from benchmark.core.family import InputFile, JudgeRole, MetricFamily, QueryTrace, ScoreColumn, UnitLabels
from benchmark.core.settings import FamilySettings, option

if TYPE_CHECKING:
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
    "TracePart",
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


class TracePart(BaseModel):
    """A part of a family's trace (a claim, a question, a nugget): unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class Prepared:
    """What a family resolved once per task; ``corpus_id`` is recorded as ``task.corpus``."""

    state: Any
    corpus_id: str | None = None
    notes: list[str] = field(default_factory=list)
    run_key: tuple[Any, ...] = ()


@dataclass(frozen=True)
class LabelledUnit:
    """One unit of one query as the judge labelled it, weighing 1 / the query's units."""

    unit_id: str
    judge: float
    weight: float


@dataclass(frozen=True)
class JudgedPassage:
    """A passage assessors graded for relevance, with how many of its query's questions the
    family's answerer (``None``: failed) and the file's own grader answer from it."""

    query_id: str
    relevance: int
    words: int
    ours: int | None
    theirs: int
    failures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Regrading:
    """What grading a graded-runs file again with a profile's own judge needs."""

    judges: Any
    bank: Path
    topics: int | None = None
    #: the family's reader of the bank's questions (exam: ``entailment | llm | similarity``);
    #: None: the family's choice for the bank
    answerer: str | None = None


@dataclass(frozen=True)
class GradedBoards:
    """Leaderboards from a file of graded retrieval runs: per label, system -> topic -> score;
    ``paragraphs`` (``query_id``, ``relevance``, ``runs``, ``text``) give meta-evaluation the
    human leaderboard and the trivial baselines."""

    grader: str
    boards: dict[str, dict[str, dict[str, float]]]
    paragraphs: Sequence[Any]
    #: what grading again cost and where it failed (counts, failure kinds), for the card
    regraded: dict[str, Any] | None = None


class Pipeline(Protocol):
    """A family's ``pipeline`` module: the stages that call models."""

    def prepare(self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: Any) -> Prepared:
        """Resolve what scoring this task needs; fail with an ``InputError`` before any answer is scored."""
        ...

    def score_batch(self, state: Any, items: Sequence[Item]) -> Sequence[QueryTrace]:
        """Traces for the items, every model stage batched; failures recorded, never raised."""
        ...


class Scores(Protocol):
    """A family's ``scores`` module: pure, no model."""

    def trace_scores(self, trace: Any) -> dict[str, float | None]: ...


def module(family: MetricFamily, name: str) -> ModuleType | None:
    """The family's module ``name``, or ``None`` where it has none."""
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
    """What scoring ``task`` needs, resolved once by the family's pipeline (every door: a run, a
    dry run, a Ray worker), after the profile's ``llm.not_asked_for`` is checked: a name that is
    no family's judge role, a misspelt one, would have the LLM asked after all."""
    from benchmark.families import REGISTRY

    roles = {r for f in REGISTRY.values() for rs in f.judged_by.values() for r in rs}
    if unknown := sorted(set(judges.profile.llm.not_asked_for) - roles):
        raise InputError.at(
            f"judge profile {judges.profile.id}",
            f"{', '.join(unknown)}: no family's judge role (roles: {', '.join(sorted(roles))})",
            field="llm.not_asked_for",
        )
    return pipeline(family).prepare(task, judges, inputs, settings)


def score_batch(family: MetricFamily, prepared: Prepared, items: Sequence[Item]) -> list[QueryTrace]:
    """Traces of one batch of ``(query id, query text, answer)`` items."""
    return list(pipeline(family).score_batch(prepared.state, items))


def queries_of(family: MetricFamily, task: Task, inputs: ScoringInputs) -> list[str] | None:
    """The queries the family can score with these inputs (``None``: all); asked before any model loads."""
    found = hook(family, "scorable_queries")
    return found(task, inputs) if found else None


def recompute(family: MetricFamily, trace: QueryTrace) -> dict[str, float | None]:
    """The scores of one query from its trace alone: how a published result is checked."""
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
    """The units of score ``key`` in one query's trace with the judge's label of each (the score
    is the mean over queries of the weighted labels); ``None`` where the query has no value or
    ``key`` is not one of the family's :attr:`~MetricFamily.labelled_units`."""
    units = getattr(scores(family), "units", None)
    if key not in family.labelled_units or units is None or not isinstance(trace, family.trace_model):
        return None
    found = units(trace, key)
    return None if found is None else [LabelledUnit(*u) for u in found]


def not_applicable(family: MetricFamily, inputs: ScoringInputs) -> str | None:
    """Why this family does not apply to a job's answers at all, or ``None``: a family that
    :attr:`~MetricFamily.needs_evidence` does not apply to closed-book answers (not a 0)."""
    if family.needs_evidence and inputs.evidence is None:
        return "closed-book answers were given no passages and cite none"
    return None


def hook(family: MetricFamily, name: str) -> Any:
    """An optional function of the family's pipeline (e.g. ``rate_for_card``), or ``None``."""
    return getattr(pipeline(family), name, None)


def write_jsonl(path: Path, rows: Iterable[Any], *, sort_keys: bool = False) -> Path:
    """``rows`` as JSON lines in UTF-8, gzipped where the name ends ``.gz`` (files other tools read),
    written whole or not at all; a lone surrogate (from a model's reply) is kept as its ``\\u`` escape."""
    text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=sort_keys) + "\n" for row in rows)
    data = text.encode("utf-8", "backslashreplace")
    write_atomic(path, gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return path
