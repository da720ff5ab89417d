"""What a metric family is: the contract between one paper's metric and the platform.

The platform (runner, CLI, result files, leaderboard, Space) knows nothing about ICAT,
EXAM or argument quality.  It knows :class:`MetricFamily`, in three parts:

* :class:`FamilyDeclaration` — what the family declares: its scores and how to label and
  rank them, the task tables it needs and brings, its settings, its judge roles;
* :class:`FamilyScorer` — how it scores a batch of answers into typed per-query traces, and
  recomputes a query's scores from its trace (with :class:`FamilyJudgeHooks`, how a judge
  card measures its own judges);
* :class:`FamilyView` — how its results and traces are shown.

Adding a family is one folder under ``benchmark/families/`` and one line in the registry,
or a package of its own with a ``groundcover.families`` entry point (see CONTRIBUTING.md,
"Adding a metric family").

A family folder keeps three kinds of code apart, as nuggetizer and ragas do:

* ``formulas.py`` — the paper's equations as pure functions of plain data; it imports
  nothing that calls a model, so it is tested exhaustively and cheaply;
* ``pipeline.py`` — the stages that call models (through the :class:`~benchmark.judging.stack.JudgeStack`),
  batched across queries, ending in one call to the formulas per query;
* ``views.py`` — tables, plots and the drill-down of one trace.
"""

from __future__ import annotations

import argparse
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType, UnionType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from benchmark.core.errors import InputError, Problem

if TYPE_CHECKING:
    from pathlib import Path

    from benchmark.answers.citations import CitedSentence
    from benchmark.core.results import TaskResult
    from benchmark.judging.stack import JudgeStack
    from benchmark.models.profiles import JudgeProfile
    from benchmark.tasks import TableSchema, Task


@dataclass(frozen=True)
class ScoreColumn:
    """One score a family reports: its result key, its label, what it means."""

    key: str
    label: str
    description: str
    higher_is_better: bool = True
    default_shown: bool = True  # shown by default in the Space (the rest are one click away)


class QueryTrace(BaseModel):
    """What the scorer saw and decided for one query; each family extends it.

    The trace file doubles as the checkpoint: ``item_key`` is a hash of everything that
    determined this trace, and a trace whose key no longer matches is recomputed.
    """

    model_config = ConfigDict(extra="forbid")

    query_id: str
    query: str
    answer: str
    scores: dict[str, float | None] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    failures: list[str] = Field(
        default_factory=list, description="'stage: reason' for every model output that could not be used"
    )
    item_key: str | None = None
    unreachable: bool = Field(
        default=False,
        description="the judge gave no reply at all while this query was scored (down, timed out): its "
        "failures are re-scored by the next run instead of kept",
    )

    repeat_scores: list[dict[str, float | None]] = Field(
        default_factory=list,
        description="--judge-repeats N: the scores of repeats 1 .. N-1 of every judgement (this trace is "
        "repeat 0); not written when empty",
    )

    @model_serializer(mode="wrap")
    def _recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Without repeats a trace is written as before they existed."""
        out = handler(self)
        if not out.get("repeat_scores"):
            out.pop("repeat_scores", None)
        return out

    @property
    def failed(self) -> bool:
        """A failed query has no scores at all; it is shown as failed, never as zero."""
        return all(v is None for v in self.scores.values()) and bool(self.failures)


def option(default: Any, help: str, *, flag: str | None = None, cli: bool = True, **kw: Any) -> Any:
    """A settings field with its command-line flag: the one place a setting is declared.

    ``help`` is the field's description and the flag's help text; ``default`` is the
    default everywhere (the flag's help prints it, and an absent flag leaves it alone).
    ``flag`` overrides the derived name (``--<prefix>-<field>``); ``cli=False`` keeps a
    field off the command line (recorded, or set by a command of the family's own)."""
    extra: dict[str, Any] = {"cli": cli}
    if flag:
        extra["flag"] = flag
    return Field(default=default, description=help, json_schema_extra=extra, **kw)


def _choices(annotation: Any) -> list[Any] | None:
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return list(args)
    inner = [a for a in args if a is not type(None)]
    return _choices(inner[0]) if len(inner) == 1 and get_origin(annotation) in (Union, UnionType) else None


def _scalar(annotation: Any) -> Any:
    """The argparse ``type`` of a field: its non-None member's type, for int, float, str."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    base = args[0] if get_origin(annotation) in (Union, UnionType) and len(args) == 1 else annotation
    return base if base in (int, float, str) else None


def _is_tuple(annotation: Any) -> bool:
    return get_origin(annotation) is tuple


def _shown(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ",".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


class FamilySettings(BaseModel):
    """A family's scoring options.  Recorded in every result, and part of the board key:
    results computed with different settings are never ranked together.

    Each field is declared once, with :func:`option`: its type, default, validation and
    help.  The command-line flags (:meth:`add_arguments`), the settings a command line
    gives (:meth:`from_args`) and the recorded settings all derive from the model, so a
    default can never differ between the CLI, the library and a test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: flags are ``--<flag_prefix>-<field>`` where a bare name would clash across families
    flag_prefix: ClassVar[str] = ""

    @classmethod
    def flags(cls) -> dict[str, str]:
        """Field name -> its flag, for the fields on the command line."""
        out = {}
        for name, info in cls.model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            if extra.get("cli", True) is False:
                continue
            derived = "-".join(x for x in (cls.flag_prefix, name.replace("_", "-")) if x)
            out[name] = str(extra.get("flag") or f"--{derived}")
        return out

    @staticmethod
    def dest(flag: str) -> str:
        return flag.lstrip("-").replace("-", "_")

    @classmethod
    def add_arguments(cls, group: argparse._ArgumentGroup) -> None:
        """One flag per field: choices from a ``Literal``, a comma list for a tuple,
        ``--x/--no-x`` for a bool; absent flags leave the model's default in place."""
        for name, flag in cls.flags().items():
            info = cls.model_fields[name]
            kw: dict[str, Any] = {"dest": cls.dest(flag), "default": argparse.SUPPRESS}
            help_text = f"{info.description or name} (default: {_shown(info.default)})"
            if (choices := _choices(info.annotation)) is not None:
                kw["choices"] = choices
            elif info.annotation is bool:
                kw["action"] = argparse.BooleanOptionalAction
            elif _is_tuple(info.annotation):
                kw["metavar"] = "A,B,..."
                help_text = f"{info.description or name}, comma-separated (default: {_shown(info.default)})"
            elif (kind := _scalar(info.annotation)) is not None:
                kw["type"] = kind
            group.add_argument(flag, help=help_text, **kw)

    @classmethod
    def from_args(cls, args: argparse.Namespace, **fixed: Any) -> Self:
        """The settings a parsed command line gives: the flags present, over the model's
        defaults; ``fixed`` values come from the command itself (e.g. a method name)."""
        values: dict[str, Any] = {}
        for name, flag in cls.flags().items():
            if hasattr(args, cls.dest(flag)):
                value = getattr(args, cls.dest(flag))
                if _is_tuple(cls.model_fields[name].annotation) and isinstance(value, str):
                    value = [v.strip() for v in value.split(",") if v.strip()]
                values[name] = value
        return cls.from_options(**values, **fixed)

    @classmethod
    def from_options(cls, **values: Any) -> Self:
        """Settings from command-line values; a bad one is an :class:`InputError` naming
        its flag (``static_examples`` -> ``--static-examples``), never a traceback."""
        flags = cls.flags()
        try:
            return cls(**values)
        except ValidationError as exc:
            raise InputError(
                [
                    Problem(
                        "command line",
                        e["msg"],
                        field=flags.get(str(e["loc"][0]), f"--{str(e['loc'][0]).replace('_', '-')}")
                        if e["loc"]
                        else None,
                    )
                    for e in exc.errors()
                ]
            ) from exc


@dataclass(frozen=True)
class InputFile:
    """A data file a family reads beside the corpus (not a setting: its content, not its
    path, is what the family records), with its command-line flag."""

    name: str
    flag: str
    help: str

    @property
    def dest(self) -> str:
        return FamilySettings.dest(self.flag)


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


#: (query id, query text, answer): one item of a batch, as :meth:`MetricFamily.score_batch` takes it
Item = tuple[str, str, str]


@dataclass(frozen=True)
class UnitLabels:
    """What a score that is a weighted mean of unit labels averages, as a human-labels file
    (``--human-labels``, docs/human-labels.md) must label it: the unit (nugget, claim), how a
    unit id is written, and what a label of 1 means.  A family declares it per score in
    :attr:`FamilyScorer.labelled_units`, so the platform can correct the score with human
    labels (prediction-powered inference) without knowing the family."""

    unit: str
    #: how the file writes a unit's id (the trace's own id of the unit)
    unit_id: str
    #: what a label means: 1 for ..., 0 for ...
    label: str


@dataclass(frozen=True)
class LabelledUnit:
    """One unit of one query as the judge labelled it, with the weight that makes the weighted
    unit mean the score's query macro-average (1 / the query's units)."""

    unit_id: str
    judge: float
    weight: float


@dataclass
class Prepared:
    """What a family resolved once per task before scoring: its state, its notes, and
    the identity of the knowledge it scores against (recorded as ``task.corpus``)."""

    state: Any
    corpus_id: str | None = None
    notes: list[str] = field(default_factory=list)
    run_key: tuple[Any, ...] = ()


@dataclass(frozen=True)
class JudgeRole:
    """A judge role a family's scores depend on (named in its ``judged_by``), as its judge
    card describes it: which of a profile's models fill it, and why a card does not measure
    it yet.  The family declares it, so the judge card asks the registry instead of knowing
    every family's roles."""

    name: str
    #: which models fill the role, in words; ``{entailment}``, ``{llm}`` and ``{embedder}``
    #: are replaced by the profile's model names
    judge: str
    #: why a card does not measure the role (yet), or how to have it measured
    not_measured: str

    def judge_name(self, profile: JudgeProfile) -> str:
        return self.judge.format(
            entailment=profile.entailment.model, llm=profile.llm.model, embedder=profile.embedder.model
        )


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


class FamilyDeclaration(ABC):
    """What a family declares: the data it needs, its settings, its scores and how they rank,
    the judge roles they depend on.  Plain class attributes the platform reads without
    scoring anything (the CLI's flags, the board's columns, a task card's check, the judge
    card's roles)."""

    id: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    primary: ClassVar[str]
    columns: ClassVar[tuple[ScoreColumn, ...]]
    required_tables: ClassVar[tuple[str, ...]]
    trace_model: ClassVar[type[QueryTrace]]
    settings_model: ClassVar[type[FamilySettings]]
    #: the pipeline's model-calling stages in order, as named by ``cache.stage`` (nested
    #: names joined by ``:``), each with the stages whose replies decide what it asks (or
    #: whether it asks at all).  A dry run lists a stage it never reached as *not reached*
    #: when one of those was answered by a placeholder: the run may well ask it
    stages: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: data files the family reads beside the corpus, each with its flag
    inputs: ClassVar[tuple[InputFile, ...]] = ()
    citation: ClassVar[str] = ""
    #: the judge roles each score depends on (``benchmark.models.cards``): a board shows the
    #: judge card's lines for the roles of its main score, and a banner where one is at chance
    judged_by: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: the roles of :attr:`judged_by` this family brings (roles shared by several families,
    #: the profile's entailment model and its LLM as a support judge, are the judge card's own)
    judge_roles: ClassVar[tuple[JudgeRole, ...]] = ()
    #: the task tables the family adds to what a task card may list (EXAM's questions, …);
    #: the registry registers them with the task layer
    tables: ClassVar[tuple[TableSchema, ...]] = ()
    #: choices for the family's figures (e.g. ICAT's variant), as (label, value)
    view_options: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: whether its entries are evaluated models (and count toward their overall rank);
    #: DecompScore's entries are decomposition methods, ranked only against each other
    ranks_models: ClassVar[bool] = True
    #: scores only answers that were given evidence (RAG); closed-book ones are not applicable
    needs_evidence: ClassVar[bool] = False

    def column(self, key: str) -> ScoreColumn | None:
        return next((c for c in self.columns if c.key == key), None)

    def label(self, key: str) -> str:
        col = self.column(key)
        return col.label if col else key

    def primary_for(self, task: Task, scores: dict[str, Any]) -> str:
        """The score this result is ranked by: the task card's ``main_score`` for this
        family when it was computed, else the family's default when it was, else the first
        of the family's columns that was (a run of ICAT-M alone is ranked by ICAT-M, not by
        an ICAT-S no query has); the family's default when none was."""
        chosen = task.card.main_score.get(self.id)
        if chosen and scores.get(chosen) is not None:
            return chosen
        if scores.get(self.primary) is not None:
            return self.primary
        return next((c.key for c in self.columns if scores.get(c.key) is not None), self.primary)

    def board_settings(self, settings: FamilySettings) -> dict[str, Any]:
        """The settings that change the ranked numbers; part of the board key."""
        return settings.model_dump(mode="json")

    def prompt_folder(self) -> Path | None:
        """The family's own prompts (``prompts/`` beside its module, as package data), which
        the registry adds to where :func:`benchmark.models.prompts.load_prompt` looks."""
        from pathlib import Path

        module = sys.modules[type(self).__module__]
        folder = Path(module.__file__ or "").parent / "prompts"
        return folder if folder.is_dir() else None

    # -- its settings on the command line --------------------------------------------
    def add_arguments(self, group: argparse._ArgumentGroup) -> None:
        """Add this family's options to ``benchmark evaluate`` / ``benchmark score``: one
        flag per field of :attr:`settings_model`, and one per input file."""
        self.settings_model.add_arguments(group)
        for item in self.inputs:
            group.add_argument(item.flag, dest=item.dest, default=argparse.SUPPRESS, help=item.help)

    def settings_from_args(self, args: argparse.Namespace) -> FamilySettings:
        return self.settings_model.from_args(args)


class FamilyScorer(FamilyDeclaration):
    """How a family scores: it resolves what a task needs once (:meth:`prepare`), scores
    batches of answers into traces through its ``pipeline`` module, and recomputes a
    query's scores from its trace alone through its pure ``scores`` module."""

    #: the family's ``pipeline`` module — ``score_batch(state, items)`` — and its ``scores``
    #: module — ``trace_scores(trace)``, pure —: what the default :meth:`score_batch` and
    #: :meth:`recompute` call
    pipeline: ClassVar[ModuleType]
    scores: ClassVar[ModuleType]

    #: the scores that are a weighted mean of unit labels, by score key, and what their unit
    #: is: the scores ``--human-labels`` corrects (:meth:`score_units` reads the units)
    labelled_units: ClassVar[dict[str, UnitLabels]] = {}

    def score_units(self, key: str, trace: QueryTrace) -> list[LabelledUnit] | None:
        """The units of score ``key`` in one query's trace with the judge's label of each, so
        that the score is the mean over queries of the weighted unit labels; ``None`` where
        the query has no value for the score (a failure, or the score does not apply).  Only
        for the keys of :attr:`labelled_units`; none by default."""
        return None

    def not_applicable(self, inputs: ScoringInputs) -> str | None:
        """Why this family does not apply to a job's answers at all, or ``None``: a family that
        :attr:`needs_evidence` does not apply to closed-book answers, which were given no
        passages.  Such a job is not scored by the family and the run says so, and the
        overall ranking neither counts the board for it nor calls it missing: a score that
        does not apply is not a 0."""
        if self.needs_evidence and inputs.evidence is None:
            return "closed-book answers were given no passages and cite none"
        return None

    def scorable_queries(self, task: Task, inputs: ScoringInputs) -> list[str] | None:
        """The queries this family can score with these inputs, in the order a quick run
        should take them; ``None`` means all.  Cheap: called before any model loads, also
        to decide which queries to generate answers for."""
        return None

    @abstractmethod
    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        """Resolve what scoring this task needs (corpus, retriever, qrels); fail early,
        before any answer is scored, with an :class:`~benchmark.core.errors.InputError`."""

    def score_batch(
        self, prepared: Prepared, items: Sequence[tuple[str, str, str]], settings: FamilySettings
    ) -> list[QueryTrace]:
        """Traces for ``(query_id, query text, answer)`` items, every model stage batched
        across them; failures are recorded in the traces, never raised."""
        return list(self.pipeline.score_batch(prepared.state, items))

    def recompute(self, trace: QueryTrace) -> dict[str, float | None]:
        """The scores of one query from its trace alone, with no model: how a published
        result is checked (``tests/unit/test_published_results.py``)."""
        if not isinstance(trace, self.trace_model):
            raise TypeError(f"{self.id} recomputes {self.trace_model.__name__}s, not {type(trace).__name__}")
        return dict(self.scores.trace_scores(trace))

    def curves(
        self, traces: Sequence[QueryTrace], settings: FamilySettings
    ) -> dict[str, dict[str, float | None]]:
        """Extra result series (e.g. ICAT's β sweep); none by default."""
        return {}

    def reference_texts(self, task: Task) -> dict[str, str]:
        """Query id -> a reference text the family keeps for the task (EXAM's gold
        articles), which meta-evaluation can compare answers with (ROUGE-1); none by default."""
        return {}


class FamilyJudgeHooks(FamilyDeclaration):
    """How a judge card measures the judge roles a family brings through the family's own
    judges (``benchmark judge-card``); a family without such a judge keeps the defaults."""

    def rate_for_card(
        self, role: str, judges: JudgeStack, items: Sequence[tuple[str, str, str]]
    ) -> list[tuple[float | None, list[str], int]] | None:
        """How a judge card measures ``role`` through this family: its judge's score of each
        standalone ``(topic, stance, text)`` item, with the failures recorded for it and how
        many of its accepted replies equal the prompt's worked example in their ratings;
        ``None`` when the family has no judge for the role (the default)."""
        return None

    def answer_for_card(
        self, role: str, judges: JudgeStack, grades: Path, bank: Path, *, grader: str | None = None
    ) -> list[JudgedPassage] | None:
        """How a judge card measures ``role`` on passages with relevance grades (an EXAM++
        graded file, its questions in ``bank``; ``grader``: the file's grader to compare
        with): per judged passage, the questions this family's answerer answers from it;
        ``None`` when the family has no such judge."""
        return None

    def graded_leaderboards(
        self,
        grades: Path,
        *,
        grader: str | None,
        min_rating: int | None,
        rank_cutoff: int,
        regrade: Regrading | None = None,
    ) -> GradedBoards | None:
        """The systems of a graded-runs file ranked by this family's scores, for a ranking
        card (``benchmark meta-eval rankings``): under the file's own grader, or, with
        ``regrade``, under this family's own judge of a profile, graded again here; ``None``
        when the family reads no such file (the default)."""
        return None


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


class FamilyView(FamilyDeclaration):
    """How a family's results are shown: figures, the drill-down of one trace, terminal
    output, through its ``views`` module."""

    #: the family's ``views`` module — ``trace_html(trace)``: what :meth:`trace_html` calls
    views: ClassVar[ModuleType | None] = None

    def figures(self, results: Sequence[TaskResult], option: str | None = None) -> dict[str, Any]:
        """Matplotlib figures for a set of results, by title; none by default.  The command
        line writes them as PNG files beside a result."""
        return {}

    def plots(self, results: Sequence[TaskResult], option: str | None = None) -> dict[str, Any]:
        """Interactive (Plotly) figures by title, as the Space shows them: the views module's
        ``plots`` where it has one (results in the board's rank order, one colour per entry
        app-wide), else none."""
        if not results or self.views is None or not hasattr(self.views, "plots"):
            return {}
        return dict(self.views.plots(results, option))

    def trace_html(self, trace: dict[str, Any]) -> str:
        """The drill-down of one query's trace as HTML built from escaped text only."""
        if self.views is not None and hasattr(self.views, "trace_html"):
            return str(self.views.trace_html(trace))
        import html

        return f"<pre>{html.escape(repr(trace))}</pre>"

    def print_results(self, results: Sequence[TaskResult], console: Any) -> None:
        """Family-specific terminal output after the common table (e.g. β sweeps)."""


class MetricFamily(FamilyScorer, FamilyJudgeHooks, FamilyView):
    """One paper's metric, as the platform sees it: what it declares
    (:class:`FamilyDeclaration`), how it scores (:class:`FamilyScorer`), how a judge card
    measures its judges (:class:`FamilyJudgeHooks`) and how it is shown (:class:`FamilyView`).
    A family subclasses this one class; code that needs only one part asks for that type."""
