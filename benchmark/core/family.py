"""What a metric family is: one plain value, checked when made, that every layer reads
(a task card's tables, a judge card's roles, the command line's flags) without importing
what the family does (:mod:`benchmark.families.base`), like MTEB's ``TaskMetadata``.
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
    """A data file a family reads beside the corpus (its content, not its path, is recorded)."""

    name: str
    flag: str
    help: str

    @property
    def dest(self) -> str:
        return Settings.dest(self.flag)


@dataclass(frozen=True)
class JudgeRole:
    """A judge role a family's scores depend on (named in its ``judged_by``), as its judge
    card describes it: which models fill it (``{entailment}``, ``{llm}`` and ``{embedder}``
    name the profile's) and why a card does not measure it yet."""

    name: str
    judge: str
    not_measured: str

    def judge_name(self, profile: Any) -> str:
        """The role's judge under a :class:`~benchmark.models.profiles.JudgeProfile`."""
        return self.judge.format(
            entailment=profile.entailment.model, llm=profile.llm.model, embedder=profile.embedder.model
        )


@dataclass(frozen=True)
class UnitLabels:
    """What a score that is a weighted mean of unit labels averages, as a human-labels file
    (docs/human-labels.md) labels it: the unit (nugget, claim), how its id is written (the
    trace's own id), and what a label of 1 and of 0 means."""

    unit: str
    unit_id: str
    label: str


class QueryTrace(BaseModel):
    """What the scorer saw and decided for one query; each family extends it.  ``item_key``
    hashes everything that determined it: a trace whose key no longer matches is recomputed."""

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
        out = handler(self)
        if not out.get("repeat_scores"):
            out.pop("repeat_scores", None)
        return out

    @property
    def failed(self) -> bool:
        """A failed query has no scores at all; it is shown as failed, never as zero."""
        return all(v is None for v in self.scores.values()) and bool(self.failures)


class MetricFamily(BaseModel):
    """One paper's metric, as the platform sees it: plain data, checked when made.  ``package``
    (where its ``pipeline``, ``scores`` and ``prompts/`` are) is set by the registry."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, arbitrary_types_allowed=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    title: str = Field(min_length=1)
    description: str
    #: the score results are ranked by unless a task card's ``main_score`` names another
    primary: str
    columns: tuple[ScoreColumn, ...] = Field(min_length=1)
    settings_model: type[FamilySettings]
    trace_model: type[QueryTrace]
    required_tables: tuple[str, ...] = ("queries",)
    #: the task tables the family adds to what a task card may list (EXAM's questions, …)
    tables: tuple[TableSchema, ...] = ()
    inputs: tuple[InputFile, ...] = ()
    #: the pipeline's model-calling stages in order (``cache.stage`` names), each with the
    #: stages whose replies decide what it asks: what a dry run lists as *not reached*
    stages: dict[str, tuple[str, ...]] = {}
    #: the judge roles each score depends on (``benchmark.models.cards``)
    judged_by: dict[str, tuple[str, ...]] = {}
    #: the roles of :attr:`judged_by` this family brings (shared ones are the judge card's own)
    judge_roles: tuple[JudgeRole, ...] = ()
    #: the scores that are a weighted mean of unit labels: what ``--human-labels`` corrects
    labelled_units: dict[str, UnitLabels] = {}
    #: choices for the family's figures (e.g. ICAT's variant), as (label, value)
    view_options: tuple[tuple[str, str], ...] = ()
    #: whether its entries are evaluated models (DecompScore's are decomposition methods)
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
        return col.label if (col := self.column(key)) else key

    def primary_for(self, main_score: Mapping[str, str], scores: Mapping[str, Any]) -> str:
        """The score a result is ranked by: the first that was computed of the task card's
        ``main_score``, the family's primary and its columns in order (else the primary)."""
        candidates = [main_score.get(self.id), self.primary, *(c.key for c in self.columns)]
        return next((k for k in candidates if k and scores.get(k) is not None), self.primary)

    def flags(self) -> list[str]:
        """Every command-line flag the family declares (a bool's ``--no-`` form too)."""
        out = []
        for name, flag in self.settings_model.flags().items():
            out.append(flag)
            if self.settings_model.model_fields[name].annotation is bool:
                out.append("--no-" + flag.removeprefix("--"))
        return out + [i.flag for i in self.inputs]
