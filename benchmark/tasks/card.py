"""The task card (``tasks/<id>/task.yaml``): what a task is, where its data lives, and how it was made."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from benchmark.core.errors import InputError, Problem, rel, yaml_key_lines
from benchmark.tasks.tables import known, schemas

# -- the task card -----------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    name: str
    url: str | None = None
    notes: str | None = None


class ProvenanceInput(_Strict):
    file: str
    sha256: str


class Provenance(_Strict):
    """How the data was made: the script and the exact inputs it read."""

    script: str
    inputs: list[ProvenanceInput] = Field(default_factory=list)
    notes: str | None = None


class DataSource(_Strict):
    """Where the tables live: local parquet files or a pinned Hub dataset."""

    kind: Literal["local", "hub"] = "local"
    path: str = "data"  # local: directory relative to the card
    repo_id: str | None = None  # hub: "org/name"
    revision: str | None = None  # hub: a commit sha or tag, required
    tables: dict[str, str]  # table name -> file name (local) or path in the repo (hub)
    checksums: dict[str, str] = Field(default_factory=dict)  # file -> sha256 (local)

    @model_validator(mode="after")
    def _check(self) -> DataSource:
        if "queries" not in self.tables:
            raise ValueError("every task needs a 'queries' table")
        if self.kind == "hub" and (not self.repo_id or not self.revision):
            raise ValueError("Hub data needs both 'repo_id' and a pinned 'revision'")
        return self


class CorpusSpec(_Strict):
    """The default knowledge corpus K for grounding (``table``: the task's own ``corpus`` table);
    ``--corpus`` points any task at another (:func:`benchmark.retrieval.load_corpus`)."""

    kind: Literal["table", "jsonl", "parquet", "lucene", "pyserini-prebuilt", "none"] = "table"
    path: str | None = None
    label: str = ""
    covers_queries: list[str] | None = None  # queries the corpus was written for (None: all)


class SubmissionLimits(_Strict):
    """What one submitted answer to this task may hold, checked by ``benchmark validate``.

    Scoring cost grows with an answer's length, so these bound what a pull request can make CI
    compute; the defaults are about six times the longest and three times the most sentences
    of any published answer (2,077 characters, 42 sentences).  No part of the task's identity:
    changing a limit re-scores nothing.
    """

    max_answer_chars: int = Field(default=12_000, ge=1, le=50_000, description="characters per answer")
    max_answer_sentences: int = Field(
        default=150, ge=1, le=2_000, description="sentences per answer, split as scoring splits them"
    )


class TaskCard(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    version: str
    name: str
    description: str
    source: Source
    license: str
    citation: str
    metrics: list[str] = Field(description="metric families that score this task (the registry's ids)")
    main_score: dict[str, str] = Field(
        default_factory=dict,
        description="per family, the score results are ranked by (default: the family's primary)",
    )
    splits: list[str] = Field(default_factory=lambda: ["test"])
    instruction: str = Field(description="instruction given to the evaluated model with each query")
    data: DataSource
    corpus: CorpusSpec = Field(default_factory=CorpusSpec)
    provenance: Provenance | None = None
    tags: list[str] = Field(default_factory=list)
    limits: SubmissionLimits = Field(
        default_factory=SubmissionLimits,
        description="bounds on a submitted answer (not part of the versioned task data)",
    )

    @field_validator("data")
    @classmethod
    def _tables_known(cls, data: DataSource, info: ValidationInfo) -> DataSource:
        """Every table is a shared one or one a metric family declares; the card's own
        families are asked first, so loading a task loads no family it does not list."""
        unknown = sorted(set(data.tables) - set(schemas(data.tables, info.data.get("metrics") or ())))
        if unknown:
            raise ValueError(f"unknown table(s) {unknown}; known tables: {sorted(known())}")
        return data


# -- loading and checking ----------------------------------------------------------------


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_card(path: Path | str) -> TaskCard:
    """Read and validate a ``task.yaml``; errors name the file and the field."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise InputError.at(
            rel(path), f"not valid YAML: {exc}", line=None if line is None else line + 1
        ) from exc
    if not isinstance(raw, dict):
        raise InputError.at(rel(path), "a task card must be a YAML mapping")
    try:
        return TaskCard.model_validate(raw)
    except ValidationError as exc:
        lines = yaml_key_lines(path.read_text(encoding="utf-8"))
        raise InputError(
            [
                Problem(
                    rel(path),
                    err["msg"],
                    line=lines.get(str(err["loc"][0])) if err["loc"] else None,
                    field=".".join(str(x) for x in err["loc"]),
                )
                for err in exc.errors()
            ]
        ) from exc
