"""Loading a task: its card, its tables (checked), and writing a table into it."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from benchmark.core import paths
from benchmark.core.errors import InputError, Problem, rel
from benchmark.tasks.builder import build_task
from benchmark.tasks.card import TaskCard, load_card, sha256_file
from benchmark.tasks.datacard import dataset_card
from benchmark.tasks.tables import check_references, check_table, schemas


@dataclass
class Task:
    """A loaded task: its card and its (lazily loaded, checked) tables."""

    card: TaskCard
    root: Path
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str:
        return self.card.id

    @classmethod
    def from_records(cls, task_id: str, **keywords: Any) -> Task:
        """A task made from your own data, written to ``out_dir`` like a bundled one, loaded.

        The keywords are :func:`~benchmark.tasks.builder.build_task`'s (docs/own-data.md).  Every
        problem of every input — an unknown keyword too, with the closest known one — is raised
        together as one :class:`~benchmark.core.errors.InputError` before anything is written."""
        import difflib
        import inspect

        known = [p for p in inspect.signature(build_task).parameters if p not in ("task_id", "families")]
        if wrong := [k for k in keywords if k not in known]:
            near = {k: difflib.get_close_matches(k, known, n=1) for k in wrong}
            hint = {k: f" (did you mean {n[0]!r}?)" if n else "" for k, n in near.items()}
            raise InputError(
                [Problem("Task.from_records", f"unknown keyword {k!r}{hint[k]}", field=k) for k in wrong]
            )
        if "out_dir" not in keywords:
            raise InputError.at(
                "Task.from_records", "out_dir is required: where the task folder goes", field="out_dir"
            )
        task = load_task(build_task(task_id, **keywords))
        task.load_all()
        return task

    def where(self, table: str | None = None) -> str:
        """Where the task's card (or one of its tables) is, as an error names it: the folder
        it was loaded from, bundled or the user's own (``hf://…`` for a Hub table)."""
        ds = self.card.data
        if table is None:
            return rel(self.root / "task.yaml")
        fname = ds.tables.get(table, f"{table}.parquet")
        if ds.kind == "hub":
            return f"hf://datasets/{ds.repo_id}@{ds.revision}/{fname}"
        return rel(self.root / ds.path / fname)

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
        found = schemas(tables, self.card.metrics)
        for name, df in tables.items():
            problems.extend(check_table(df, found[name], files[name]))
        if not problems:
            problems.extend(check_references(tables, files, self.card.metrics))
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
    def query_texts(self) -> dict[str, str]:
        """Query id -> query text, for every query of the task."""
        return self.table("queries").set_index("query_id")["text"].astype(str).to_dict()

    def queries(self, limit: int | None = None, query_ids: Iterable[str] | None = None) -> pd.DataFrame:
        df = self.table("queries")
        if query_ids is not None:
            wanted = [str(q) for q in query_ids]
            unknown = sorted(set(wanted) - set(df["query_id"]))
            if unknown:
                raise InputError.at(
                    f"task {self.id}", f"unknown query id(s): {unknown[:10]}", field="query_id"
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
                raise InputError.at(rel(path), f"table '{name}' named in task.yaml does not exist")
            try:
                # read straight into memory, not through a `datasets` builder cache: the scores
                # must come from exactly the bytes the data fingerprint hashes
                import pyarrow.parquet as pq

                dset = datasets.Dataset(pq.read_table(str(path)))
            except Exception as exc:  # pyarrow raises several types for broken files
                raise InputError.at(rel(path), f"cannot read parquet: {exc}") from exc
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
            raise InputError.at(str(task), f"no such task; known tasks: {known}")
    return Task(card=load_card(card_path), root=card_path.parent)


def add_table(task: Task, name: str, rows: pd.DataFrame, note: str, command: str = "benchmark") -> Path:
    """Write (or replace) table ``name`` of a local task and record it in the card: the
    table list, its checksum, a provenance note saying how it was made, and a new patch
    version — so results on the old data are never ranked with results on the new.  The
    table is checked against its schema before the card changes."""
    ds = task.card.data
    if ds.kind != "local":
        raise InputError.at(task.where(), "only a local task's tables can be added", field="data.kind")
    target = task.root / ds.path / f"{name}.parquet"
    table = schemas([name], task.card.metrics).get(name)
    if table is None:
        raise InputError.at(
            rel(target), f"no table {name!r}: not one a task or a family of {task.card.metrics} holds"
        )
    problems = check_table(rows, table, rel(target))
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
