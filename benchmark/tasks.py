"""Tasks: a task card (``tasks/<id>/task.yaml``) plus data tables as parquet.

A task bundles what the scoring stack needs to judge answers to a set of queries:
the queries, their aspects (subtopics), relevance judgements (document- and
aspect-level), a knowledge corpus, and — for the metrics of later papers — exam
questions, gold articles, sub-questions and stances.  Tables are Hugging Face
``datasets`` loaded from local parquet files or from a Hub dataset repository pinned
to a revision, and are checked for schema and referential integrity before any model
sees them: a broken table fails with the file, row and field at fault.

The card is the single source of truth for what a task *is*; its ``version`` and the
data checksum/revision are written into every result so that the leaderboard only
ranks results computed on identical data.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmark import paths
from benchmark.errors import InputError, Problem, rel, yaml_key_lines

# ---------------------------------------------------------------------------------
# Table schemas.  ``key`` columns must be unique together; ``refs`` name the table
# whose key a column must exist in.  Types are checked loosely ("str" accepts any
# string-like column, "int" any integer column).
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    name: str
    type: Literal["str", "int", "float", "bool", "list[str]"]
    required: bool = True  # column must be present
    nullable: bool = False  # values may be null
    ref: str | None = None  # "<table>.<column>" the value must exist in
    description: str = ""


@dataclass(frozen=True)
class TableSchema:
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    description: str = ""

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


SCHEMAS: dict[str, TableSchema] = {
    s.name: s
    for s in (
        TableSchema(
            "queries",
            (
                Column("query_id", "str", description="unique id, e.g. the TREC topic number"),
                Column("text", "str", description="the query as given to the model"),
                Column("description", "str", required=False, nullable=True),
                Column("type", "str", required=False, nullable=True, description="e.g. faceted / ambiguous"),
                Column("split", "str", required=False, nullable=True),
                Column(
                    "topic_id",
                    "str",
                    required=False,
                    nullable=True,
                    description="argument tasks: the controversial topic this (topic, stance) query is on",
                ),
                Column(
                    "topic", "str", required=False, nullable=True, description="argument tasks: the topic"
                ),
                Column(
                    "stance", "str", required=False, nullable=True, description="argument tasks: pro / con"
                ),
            ),
            key=("query_id",),
            description="The inputs the evaluated model answers.",
        ),
        TableSchema(
            "aspects",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("aspect_id", "str"),
                Column("text", "str"),
                Column("type", "str", required=False, nullable=True, description="e.g. inf / nav"),
            ),
            key=("query_id", "aspect_id"),
            description="Ground-truth aspects (subtopics) TQ(x) of each query.",
        ),
        TableSchema(
            "qrels",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("doc_id", "str"),
                Column("aspect_id", "str", nullable=True, description="null for document-level judgements"),
                Column("relevance", "int"),
            ),
            key=("query_id", "doc_id", "aspect_id"),
            description="Relevance judgements; aspect-level rows drive ICAT-M alignment.",
        ),
        TableSchema(
            "corpus",
            (
                Column("doc_id", "str"),
                Column("title", "str", required=False, nullable=True),
                Column("text", "str"),
                Column("url", "str", required=False, nullable=True),
            ),
            key=("doc_id",),
            description="The knowledge source K that claims are grounded in.",
        ),
        TableSchema(
            "exam_questions",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("question_id", "str"),
                Column("question", "str"),
                Column("kind", "str", description="multiple-choice / free-text"),
                Column("options", "list[str]", required=False, nullable=True, description="multiple-choice"),
                Column(
                    "answer", "str", nullable=True, description="the key: an option, or a free-text answer"
                ),
                Column("facet_id", "str", required=False, nullable=True, description="aspect it tests"),
                Column(
                    "provenance",
                    "str",
                    required=False,
                    nullable=True,
                    description="'written', or 'generated: <model> <prompt@version>'",
                ),
            ),
            key=("question_id",),
            description="Held-out exam questions with answer keys (EXAM); never shown to the evaluated model.",
        ),
        TableSchema(
            "gold_articles",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("article_id", "str"),
                Column("text", "str"),
            ),
            key=("query_id", "article_id"),
            description="Reference articles that normalise n-EXAM.",
        ),
        TableSchema(
            "sub_questions",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("sub_question_id", "str"),
                Column("text", "str"),
                Column("type", "str", description="core / background / follow-up"),
            ),
            key=("query_id", "sub_question_id"),
            description="Sub-questions for sub-question coverage.",
        ),
        TableSchema(
            "stances",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("doc_id", "str"),
                Column("stance", "str", description="pro / con / both / neutral"),
            ),
            key=("query_id", "doc_id"),
            description="Stance labels of documents for argument tasks.",
        ),
        TableSchema(
            "reference_arguments",
            (
                Column("query_id", "str", ref="queries.query_id"),
                Column("argument_id", "str"),
                Column(
                    "text", "str", description="a human-written argument for the query's topic and stance"
                ),
            ),
            key=("query_id", "argument_id"),
            description="Human-written arguments that pairwise argument judges compare a system's against.",
        ),
    )
}


# ---------------------------------------------------------------------------------
# The task card
# ---------------------------------------------------------------------------------


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
        unknown = sorted(set(self.tables) - set(SCHEMAS))
        if unknown:
            raise ValueError(f"unknown table(s) {unknown}; known tables: {sorted(SCHEMAS)}")
        if "queries" not in self.tables:
            raise ValueError("every task needs a 'queries' table")
        if self.kind == "hub" and (not self.repo_id or not self.revision):
            raise ValueError("Hub data needs both 'repo_id' and a pinned 'revision'")
        return self


class CorpusSpec(_Strict):
    """The default knowledge corpus K for grounding.

    ``table`` means the task's own ``corpus`` table.  Users can point any task at
    their own corpus from the command line (``--corpus``); see
    :func:`benchmark.retrieval.load_corpus`.
    """

    kind: Literal["table", "jsonl", "parquet", "lucene", "pyserini-prebuilt", "none"] = "table"
    path: str | None = None
    label: str = ""
    covers_queries: list[str] | None = None  # queries the corpus was written for (None: all)


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


# ---------------------------------------------------------------------------------
# Loading and checking
# ---------------------------------------------------------------------------------


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
        raise InputError(
            Problem(rel(path), f"not valid YAML: {exc}", line=None if line is None else line + 1)
        ) from exc
    if not isinstance(raw, dict):
        raise InputError(Problem(rel(path), "a task card must be a YAML mapping"))
    try:
        return TaskCard.model_validate(raw)
    except ValidationError as exc:
        problems = [
            Problem(
                rel(path),
                err["msg"],
                line=_yaml_line(path, err["loc"]),
                field=".".join(str(x) for x in err["loc"]),
            )
            for err in exc.errors()
        ]
        raise InputError(problems) from exc


def _yaml_line(path: Path, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the top-level key of ``loc`` in a YAML file, if it is there."""
    return yaml_key_lines(path.read_text(encoding="utf-8")).get(str(loc[0])) if loc else None


def check_table(df: pd.DataFrame, schema: TableSchema, file: str) -> list[Problem]:
    """Schema checks on one table; rows are reported 1-based as in the file."""
    problems: list[Problem] = []
    known = {c.name for c in schema.columns}
    for extra in [c for c in df.columns if c not in known]:
        problems.append(Problem(file, f"unexpected column (known: {sorted(known)})", field=extra))
    for col in schema.columns:
        if col.name not in df.columns:
            if col.required:
                problems.append(Problem(file, "required column is missing", field=col.name))
            continue
        series = df[col.name]
        nulls = series.isna()
        if not col.nullable:
            for idx in list(series.index[nulls])[:5]:
                problems.append(Problem(file, "value is missing", line=int(idx) + 1, field=col.name))
        values = series[~nulls]
        bad = _type_mismatch(values, col.type)
        for idx in bad[:5]:
            problems.append(
                Problem(
                    file, f"expected {col.type}, got {values.loc[idx]!r}", line=int(idx) + 1, field=col.name
                )
            )
        if col.type == "str" and (col.name in schema.key or col.name.endswith("_id") or col.name == "text"):
            empty = values[values.astype(str).str.strip() == ""]
            for idx in list(empty.index)[:5]:
                problems.append(Problem(file, "value is empty", line=int(idx) + 1, field=col.name))
    key_cols = [k for k in schema.key if k in df.columns]
    if len(key_cols) == len(schema.key) and len(df):
        dup = df.duplicated(subset=key_cols, keep="first")
        for idx in list(df.index[dup])[:5]:
            values = ", ".join(f"{k}={df.at[idx, k]!r}" for k in key_cols)
            problems.append(
                Problem(
                    file, f"duplicate {'/'.join(key_cols)} ({values})", line=int(idx) + 1, field=key_cols[-1]
                )
            )
    return problems


def _type_mismatch(values: pd.Series, typ: str) -> list[Any]:
    if typ == "str":
        return [i for i, v in values.items() if not isinstance(v, str)]
    if typ == "int":
        return [i for i, v in values.items() if isinstance(v, bool) or not float(v).is_integer()]
    if typ == "float":
        return [i for i, v in values.items() if not isinstance(v, (int, float))]
    if typ == "bool":
        return [i for i, v in values.items() if not isinstance(v, bool)]
    if typ == "list[str]":
        return [i for i, v in values.items() if not all(isinstance(x, str) for x in list(v))]
    return []


def check_references(tables: dict[str, pd.DataFrame], files: dict[str, str]) -> list[Problem]:
    problems: list[Problem] = []
    for name, df in tables.items():
        schema = SCHEMAS[name]
        for col in schema.columns:
            if col.ref is None or col.name not in df.columns:
                continue
            ref_table, ref_col = col.ref.split(".")
            if ref_table not in tables:
                continue
            allowed = set(tables[ref_table][ref_col].astype(str))
            missing = df[~df[col.name].astype(str).isin(allowed)]
            for idx in list(missing.index)[:5]:
                problems.append(
                    Problem(
                        files[name],
                        f"{missing.at[idx, col.name]!r} does not exist in {ref_table}.{ref_col}",
                        line=int(idx) + 1,
                        field=col.name,
                    )
                )
    # aspect-level qrels must name aspects that exist for that query
    if "qrels" in tables and "aspects" in tables:
        qrels = tables["qrels"]
        known = set(zip(tables["aspects"]["query_id"], tables["aspects"]["aspect_id"], strict=True))
        aspect_rows = qrels[qrels["aspect_id"].notna()]
        bad = [
            i
            for i, q, a in zip(
                aspect_rows.index, aspect_rows["query_id"], aspect_rows["aspect_id"], strict=True
            )
            if (q, a) not in known
        ]
        for idx in bad[:5]:
            problems.append(
                Problem(
                    files["qrels"],
                    f"aspect {qrels.at[idx, 'aspect_id']!r} is not an aspect of query {qrels.at[idx, 'query_id']!r}",
                    line=int(idx) + 1,
                    field="aspect_id",
                )
            )
    return problems


@dataclass
class Task:
    """A loaded task: its card and its (lazily loaded, checked) tables."""

    card: TaskCard
    root: Path
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str:
        return self.card.id

    def has_table(self, name: str) -> bool:
        return name in self.card.data.tables

    def table(self, name: str) -> pd.DataFrame:
        if name not in self._tables:
            self.load_all()
        if name not in self._tables:
            raise KeyError(f"task {self.id} has no '{name}' table")
        return self._tables[name]

    def dataset(self, name: str) -> Any:
        """The table as a Hugging Face ``datasets.Dataset``."""
        import datasets

        return datasets.Dataset.from_pandas(self.table(name), preserve_index=False)

    def load_all(self) -> dict[str, pd.DataFrame]:
        if self._tables:
            return self._tables
        tables, files = _load_tables(self.card, self.root)
        problems: list[Problem] = []
        for name, df in tables.items():
            problems.extend(check_table(df, SCHEMAS[name], files[name]))
        if not problems:
            problems.extend(check_references(tables, files))
        if problems:
            raise InputError(problems)
        self._tables = tables
        return tables

    @cached_property
    def data_fingerprint(self) -> str:
        """Checksum of the data: local file hashes, or the pinned Hub revision."""
        ds = self.card.data
        if ds.kind == "hub":
            return f"hub:{ds.repo_id}@{ds.revision}"
        files = {name: sha256_file(self.root / ds.path / f) for name, f in sorted(ds.tables.items())}
        return "sha256:" + hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()

    def verify_checksums(self) -> list[Problem]:
        """Compare local files against the checksums recorded in the card."""
        ds = self.card.data
        problems = []
        for fname, expected in ds.checksums.items():
            path = self.root / ds.path / fname
            if not path.exists():
                problems.append(Problem(rel(path), "file named in data.checksums does not exist"))
            elif sha256_file(path) != expected:
                problems.append(Problem(rel(path), "checksum differs from the one in task.yaml"))
        return problems

    # -- convenience accessors -------------------------------------------------
    def queries(self, limit: int | None = None, query_ids: Iterable[str] | None = None) -> pd.DataFrame:
        df = self.table("queries")
        if query_ids is not None:
            wanted = [str(q) for q in query_ids]
            unknown = sorted(set(wanted) - set(df["query_id"]))
            if unknown:
                raise InputError(
                    Problem(f"task {self.id}", f"unknown query id(s): {unknown[:10]}", field="query_id")
                )
            df = df[df["query_id"].isin(wanted)]
        return df.head(limit) if limit is not None else df

    def quick_order(self) -> list[str]:
        """Every query id, those the task's corpus was written for first (in the card's
        order): the order a quick or partial run should take them."""
        ids = [str(q) for q in self.table("queries")["query_id"]]
        known = set(ids)
        first = [q for q in self.card.corpus.covers_queries or [] if q in known]
        taken = set(first)
        return first + [q for q in ids if q not in taken]

    def descriptions(self) -> dict[str, str]:
        """Query id -> the task's description of the information need (when it has one)."""
        df = self.table("queries")
        if "description" not in df.columns:
            return {}
        return {
            q: str(d) for q, d in zip(df["query_id"], df["description"], strict=True) if isinstance(d, str)
        }

    def aspects(self, query_id: str) -> list[dict[str, Any]]:
        if not self.has_table("aspects"):
            return []
        df = self.table("aspects")
        return df[df["query_id"] == query_id].to_dict("records")

    def aspect_qrels(self) -> dict[tuple[str, str], set[str]]:
        """(query_id, doc_id) -> aspects the document is relevant to (grade > 0)."""
        if not self.has_table("qrels"):
            return {}
        df = self.table("qrels")
        df = df[df["aspect_id"].notna() & (df["relevance"] > 0)]
        out: dict[tuple[str, str], set[str]] = {}
        for q, d, a in zip(df["query_id"], df["doc_id"], df["aspect_id"], strict=True):
            out.setdefault((q, d), set()).add(a)
        return out


def dataset_card(card: TaskCard) -> str:
    """The task folder's ``README.md``: a Hugging Face dataset card whose YAML header names one
    config per table, so ``datasets.load_dataset("tasks/<id>", "<table>")`` (or the same call on
    the Hub id) loads any table.  The task card stays the source of truth; this is derived
    from it (``benchmark tasks card <id> --write``), and a test keeps the two in step."""
    header = {
        "pretty_name": card.name,
        "license": "other",
        "license_name": "see-task-card",
        "language": ["en"],
        "task_categories": ["question-answering", "text-retrieval"],
        "tags": ["groundcover", *card.tags],
        "configs": [
            {
                "config_name": name,
                "data_files": [
                    {
                        "split": card.splits[0] if name == "queries" else "test",
                        "path": f"{card.data.path}/{file}",
                    }
                ],
                **({"default": True} if name == "queries" else {}),
            }
            for name, file in card.data.tables.items()
        ]
        if card.data.kind == "local"
        else [],
    }
    tables = "\n".join(f"* `{n}` — {SCHEMAS[n].description}" for n in card.data.tables)
    return (
        "---\n"
        + yaml.safe_dump(header, sort_keys=False, allow_unicode=True)
        + "---\n\n"
        + f"# {card.name}\n\n{card.description}\n\n"
        + f"groundcover task `{card.id}`, version {card.version}; metric families: {', '.join(card.metrics)}. "
        + "Provenance, checksums and the instruction given to models are in `task.yaml`.\n\n"
        + f"## Tables\n\n{tables}\n\n"
        + "```python\nimport datasets\n\n"
        + f'queries = datasets.load_dataset("tasks/{card.id}", "queries", split="test")\n```\n\n'
        + f"## Source and licence\n\n{card.source.name}"
        + (f" ({card.source.url})" if card.source.url else "")
        + "\n\n"
        + f"{card.license}\n\n## Citation\n\n```bibtex\n{card.citation.strip()}\n```\n"
    )


def load_aspect_qrels(path: str | os.PathLike[str], task: Task) -> dict[tuple[str, str], set[str]]:
    """Aspect-level qrels in the TREC diversity format, ``topic subtopic docid grade`` per line.

    This is the format of NIST's ``qrels.*.ndeval.txt`` files, so a user with the
    judged collection (e.g. ClueWeb) can run ICAT-M on their own index.  Topics and
    subtopics must exist in the task's ``queries`` and ``aspects`` tables; every bad
    line is reported with its number and field.  Rows with grade <= 0 are kept out.
    """
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError(Problem(where, "aspect qrels file does not exist", field="--aspect-qrels"))
    known_q = set(task.table("queries")["query_id"].astype(str))
    known_a = (
        set(
            zip(
                task.table("aspects")["query_id"], task.table("aspects")["aspect_id"].astype(str), strict=True
            )
        )
        if task.has_table("aspects")
        else set()
    )
    out: dict[tuple[str, str], set[str]] = {}
    problems: list[Problem] = []
    with open(p, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) != 4:
                problems.append(
                    Problem(where, f"expected 4 columns 'topic subtopic docid grade', got {len(parts)}", n)
                )
                continue
            topic, subtopic, doc, grade = parts
            try:
                g = int(grade)
            except ValueError:
                problems.append(Problem(where, f"grade {grade[:20]!r} is not an integer", n, "grade"))
                continue
            if topic not in known_q:
                problems.append(
                    Problem(where, f"topic {topic[:20]!r} is not a query of task {task.id}", n, "topic")
                )
            elif (topic, subtopic) not in known_a:
                problems.append(
                    Problem(
                        where, f"subtopic {subtopic[:20]!r} is not an aspect of topic {topic}", n, "subtopic"
                    )
                )
            elif g > 0:
                out.setdefault((topic, doc), set()).add(subtopic)
            if len(problems) >= 50:
                break
    if problems:
        raise InputError(problems)
    if not out:
        raise InputError(
            Problem(where, "no positive aspect-level judgements in the file", field="--aspect-qrels")
        )
    return out


def _load_tables(card: TaskCard, root: Path) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    import datasets

    ds = card.data
    tables: dict[str, pd.DataFrame] = {}
    files: dict[str, str] = {}
    cache_dir = str(paths.home() / "datasets")
    for name, fname in ds.tables.items():
        if ds.kind == "local":
            path = root / ds.path / fname
            files[name] = rel(path)
            if not path.exists():
                raise InputError(Problem(rel(path), f"table '{name}' named in task.yaml does not exist"))
            try:
                # read straight into memory, not through a `datasets` builder cache (whose key
                # `load_dataset` once failed to change when a table was rewritten in place):
                # the scores must come from exactly the bytes the data fingerprint hashes
                import pyarrow.parquet as pq

                dset = datasets.Dataset(pq.read_table(str(path)))
            except Exception as exc:  # pyarrow raises several types for broken files
                raise InputError(Problem(rel(path), f"cannot read parquet: {exc}")) from exc
        else:
            files[name] = f"hf://datasets/{ds.repo_id}@{ds.revision}/{fname}"
            dset = datasets.load_dataset(
                ds.repo_id,
                data_files={"data": fname},
                revision=ds.revision,
                split="data",
                cache_dir=cache_dir,
            )
        tables[name] = dset.to_pandas().reset_index(drop=True)
    return tables, files


def task_dirs(root: Path | None = None) -> list[Path]:
    root = root or paths.tasks_dir()
    return sorted(p.parent for p in root.glob("*/task.yaml"))


def list_tasks(root: Path | None = None) -> list[TaskCard]:
    return [load_card(d / "task.yaml") for d in task_dirs(root)]


def load_task(task: str | os.PathLike[str], root: Path | None = None) -> Task:
    """Load a task by id (from the tasks directory) or by path to its folder/card."""
    p = Path(task)
    if p.name == "task.yaml" and p.exists():
        card_path = p
    elif (p / "task.yaml").exists():
        card_path = p / "task.yaml"
    else:
        card_path = (root or paths.tasks_dir()) / str(task) / "task.yaml"
        if not card_path.exists():
            known = [d.name for d in task_dirs(root)]
            raise InputError(Problem(str(task), f"no such task; known tasks: {known}"))
    return Task(card=load_card(card_path), root=card_path.parent)


def add_table(task: Task, name: str, rows: pd.DataFrame, note: str, command: str = "benchmark") -> Path:
    """Write (or replace) table ``name`` of a local task and record it in the card: the
    table list, its checksum, a provenance note saying how it was made, and a new patch
    version — so results on the old data are never ranked with results on the new.  The
    table is checked against its schema before the card changes."""
    ds = task.card.data
    if ds.kind != "local":
        raise InputError(
            Problem(
                f"tasks/{task.id}/task.yaml", "only a local task's tables can be added", field="data.kind"
            )
        )
    target = task.root / ds.path / f"{name}.parquet"
    problems = check_table(rows, SCHEMAS[name], rel(target))
    if problems:
        raise InputError(problems)
    target.parent.mkdir(parents=True, exist_ok=True)
    rows.reset_index(drop=True).to_parquet(target, index=False)
    card_path = task.root / "task.yaml"
    raw = yaml.safe_load(card_path.read_text(encoding="utf-8"))
    raw["data"]["tables"][name] = target.name
    raw["data"].setdefault("checksums", {})[target.name] = sha256_file(target)
    prov = raw.setdefault("provenance", {})
    prov.setdefault("script", command)
    prov["notes"] = f"{prov.get('notes', '')} {note}".strip()
    major, minor, patch = [*map(int, str(raw.get("version", "0.0.0")).split(".")), 0, 0, 0][:3]
    raw["version"] = f"{major}.{minor}.{patch + 1}"
    card_path.write_text(
        yaml.safe_dump(raw, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )
    fresh = load_task(task.root)
    fresh.load_all()  # references checked (query ids exist) before the dataset card is written
    (task.root / "README.md").write_text(dataset_card(fresh.card), encoding="utf-8")
    return target
