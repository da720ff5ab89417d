"""Texts to decompose (``decompose-compare --texts``: ``id`` and ``text``, or an outputs file's
``query_id`` and ``answer``) as a task of their own, ``texts.<stem>`` or, with ``--task``,
``<task>.<stem>`` with that task's query texts and corpus; fingerprinted by the file's hash.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pandas as pd

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import load_json
from benchmark.tasks import CorpusSpec, DataSource, Source, Task, TaskCard, load_task


def read_texts(path: Path) -> list[tuple[str, str]]:
    """``(id, text)`` rows of a JSONL file; every problem names the file, line and field."""
    if not path.is_file():
        raise InputError.at(rel(path), "no such file", field="--texts")
    rows, problems, seen = [], [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = load_json(line)
        except ValueError as exc:
            problems.append(Problem(rel(path), f"not JSON: {exc}", line=n))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(rel(path), "each line must be a JSON object", line=n))
            continue
        key, field = ("id", "text") if "id" in obj or "text" in obj else ("query_id", "answer")
        ident, text = obj.get(key), obj.get(field)
        if not isinstance(ident, str | int) or str(ident).strip() == "":
            problems.append(Problem(rel(path), "missing or empty id", line=n, field=key))
        elif not isinstance(text, str):
            problems.append(Problem(rel(path), "missing or not a string", line=n, field=field))
        elif str(ident) in seen:
            problems.append(Problem(rel(path), f"duplicate id {ident!r}", line=n, field=key))
        else:
            seen.add(str(ident))
            rows.append((str(ident), text))
    if problems:
        raise InputError(problems)
    if not rows:
        raise InputError.at(rel(path), "no texts", field="--texts")
    return rows


def texts_task(path: Path, rows: list[tuple[str, str]], base: Task | None) -> Task:
    """The texts as a task of their own (queries = the texts' ids), so that the runner,
    result files and leaderboard treat them like any task; with ``base``, its query
    texts and corpus come along."""
    stem = (
        re.sub(r"[^a-z0-9_-]+", "-", path.stem.lower()).strip("-_") or "texts"
    )  # no dots: the id splits on one
    ids = [i for i, _ in rows]
    shown = [" ".join(t.split())[:80] or i for i, t in rows]  # what the traces show as the item
    queries = pd.DataFrame({"query_id": ids, "text": shown})
    tables: dict[str, pd.DataFrame] = {"queries": queries}
    if base is not None:
        known = base.table("queries").set_index("query_id")["text"].astype(str)
        unknown = [i for i in ids if i not in known.index]
        if unknown:
            raise InputError.at(
                rel(path), f"ids not among {base.id}'s query ids: {unknown[:10]}", field="query_id"
            )
        queries["text"] = [known[i] for i in ids]
        if base.has_table("corpus"):
            tables["corpus"] = base.table("corpus")
    card = TaskCard(
        id=f"{base.id}.{stem}" if base else f"texts.{stem}",
        version="1",
        name=f"texts from {path.name}",
        description="texts given to benchmark decompose-compare",
        source=Source(name=path.name),
        license="as given by the user",
        citation="",
        metrics=["decompscore"],
        instruction="",
        data=DataSource(path=".", tables={name: path.name for name in tables}),
        corpus=base.card.corpus if base is not None else CorpusSpec(kind="none"),
    )
    task = Task(card=card, root=path.parent, _tables=tables)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    task.__dict__["data_fingerprint"] = f"sha256:{digest}" + (f"+{base.data_fingerprint}" if base else "")
    return task


def load_texts_task(task_id: str, texts_dir: Path) -> Task:
    """The task a published result was computed on: ``texts_dir/<stem>.jsonl``, with the
    base task its id names (``<task>.<stem>``; ``texts.<stem>`` has none)."""
    base_id, _, stem = task_id.rpartition(".")
    path = texts_dir / f"{stem}.jsonl"
    return texts_task(path, read_texts(path), None if base_id == "texts" else load_task(base_id))
