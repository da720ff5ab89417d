"""What a metric family is: one plain value the whole platform reads.

The platform knows nothing about ICAT, EXAM or argument quality.  It knows
:class:`MetricFamily`: a family's scores and how to label and rank them, the tables it needs
and brings, its settings and trace types, its judge roles.  Like MTEB's ``TaskMetadata`` it
is data, checked when made, so every layer reads it (a task card's tables, a judge card's
roles, the command line's flags) without importing what the family does
(:mod:`benchmark.families.base`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from benchmark.core.schema import TableSchema
from benchmark.core.settings import FamilySettings, Settings


@dataclass(frozen=True)
class ScoreColumn:
    """One score a family reports: its result key, its label, what it means."""

    key: str
    label: str
    description: str
    higher_is_better: bool = True
    default_shown: bool = True  # shown by default in the Space (the rest are one click away)


@dataclass(frozen=True)
class InputFile:
    """A data file a family reads beside the corpus (not a setting: its content, not its
    path, is what the family records), with its command-line flag."""

    name: str
    flag: str
    help: str

    @property
    def dest(self) -> str:
        return Settings.dest(self.flag)


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

    def judge_name(self, profile: Any) -> str:
        """The role's judge under a judge profile (a :class:`~benchmark.models.profiles.JudgeProfile`)."""
        return self.judge.format(
            entailment=profile.entailment.model, llm=profile.llm.model, embedder=profile.embedder.model
        )


@dataclass(frozen=True)
class UnitLabels:
    """What a score that is a weighted mean of unit labels averages, as a human-labels file
    (``--human-labels``, docs/human-labels.md) must label it: the unit (nugget, claim), how a
    unit id is written, and what a label of 1 means.  A family declares it per score in
    :attr:`MetricFamily.labelled_units`, so the platform can correct the score with human
    labels (prediction-powered inference) without knowing the family."""

    unit: str
    #: how the file writes a unit's id (the trace's own id of the unit)
    unit_id: str
    #: what a label means: 1 for ..., 0 for ...
    label: str


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


class MetricFamily(BaseModel):
    """One paper's metric, as the platform sees it: plain data, checked when made (a field of
    another type is refused where the family is declared, never mid-run).

    ``package`` is where the family's modules are (``pipeline``, ``scores``, optional
    ``views``, ``commands`` and a ``prompts/`` folder); the registry sets it to the package of
    the module its name points into, so a family never says where it lives."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, arbitrary_types_allowed=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    title: str = Field(min_length=1)
    description: str
    #: the score results are ranked by unless a task card's ``main_score`` names another
    primary: str
    columns: tuple[ScoreColumn, ...] = Field(min_length=1)
    settings_model: type[FamilySettings]
    trace_model: type[QueryTrace]
    #: the task tables it cannot score without
    required_tables: tuple[str, ...] = ("queries",)
    #: the task tables the family adds to what a task card may list (EXAM's questions, …)
    tables: tuple[TableSchema, ...] = ()
    #: data files the family reads beside the corpus, each with its flag
    inputs: tuple[InputFile, ...] = ()
    #: the pipeline's model-calling stages in order, as named by ``cache.stage`` (nested
    #: names joined by ``:``), each with the stages whose replies decide what it asks (or
    #: whether it asks at all).  A dry run lists a stage it never reached as *not reached*
    #: when one of those was answered by a placeholder: the run may well ask it
    stages: dict[str, tuple[str, ...]] = {}
    #: the judge roles each score depends on (``benchmark.models.cards``): a board shows the
    #: judge card's lines for the roles of its main score, and a banner where one is at chance
    judged_by: dict[str, tuple[str, ...]] = {}
    #: the roles of :attr:`judged_by` this family brings (roles shared by several families,
    #: the profile's entailment model and its LLM as a support judge, are the judge card's own)
    judge_roles: tuple[JudgeRole, ...] = ()
    #: the scores that are a weighted mean of unit labels, and what their unit is: the scores
    #: ``--human-labels`` corrects (the ``scores`` module's ``units`` reads them)
    labelled_units: dict[str, UnitLabels] = {}
    #: choices for the family's figures (e.g. ICAT's variant), as (label, value)
    view_options: tuple[tuple[str, str], ...] = ()
    #: whether its entries are evaluated models (and count toward their overall rank);
    #: DecompScore's entries are decomposition methods, ranked only against each other
    ranks_models: bool = True
    #: scores only answers that were given evidence (RAG); closed-book ones are not applicable
    needs_evidence: bool = False
    citation: str = ""
    package: str = ""

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:  # one line, naming the family and each field
            wrong = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ValueError(f"metric family {values.get('id')!r}: {wrong}") from None

    @model_validator(mode="after")
    def _keys(self) -> MetricFamily:
        keys = {c.key for c in self.columns}
        named = {self.primary, *self.judged_by, *self.labelled_units}
        if named - keys:
            raise ValueError(
                f"names scores it does not have: {sorted(named - keys)} (its columns: {sorted(keys)})"
            )
        return self

    def column(self, key: str) -> ScoreColumn | None:
        return next((c for c in self.columns if c.key == key), None)

    def label(self, key: str) -> str:
        col = self.column(key)
        return col.label if col else key

    def primary_for(self, main_score: Mapping[str, str], scores: Mapping[str, Any]) -> str:
        """The score a result is ranked by: the task card's ``main_score`` for this family
        when it was computed, else the family's primary when it was, else the first of its
        columns that was (a run of ICAT-M alone is ranked by ICAT-M, not by an ICAT-S no query
        has; EXAM without gold articles by EXAM); the primary when none was."""
        chosen = main_score.get(self.id)
        if chosen and scores.get(chosen) is not None:
            return chosen
        if scores.get(self.primary) is not None:
            return self.primary
        return next((c.key for c in self.columns if scores.get(c.key) is not None), self.primary)

    def flags(self) -> list[str]:
        """Every command-line flag the family declares: its settings' (a bool's ``--no-``
        form too) and its input files'."""
        out = []
        for name, flag in self.settings_model.flags().items():
            out.append(flag)
            if self.settings_model.model_fields[name].annotation is bool:
                out.append("--no-" + flag.removeprefix("--"))
        return out + [i.flag for i in self.inputs]
