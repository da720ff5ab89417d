"""Corpora: a user's JSONL/parquet file read with every bad row named, and the corpus a run searches (the task's, a file, or a Lucene index)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel, usage_error
from benchmark.models.profiles import RetrieverSpec
from benchmark.retrieval.chunking import Passage, chunk_corpus

_ID_FIELDS = ("doc_id", "_id", "id", "docid")
_TEXT_FIELDS = ("text", "contents", "body", "segment")  # segment: MS MARCO v2.1 segmented (TREC RAG)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or str(value).strip() == ""


def load_corpus(ref: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Documents from a ``.jsonl(.gz)`` or ``.parquet`` file, in the BEIR, pyserini and MS MARCO
    v2.1 segment conventions (``doc_id``/``_id``/``id``/``docid``, ``text``/``contents``/``body``/
    ``segment``, optional ``title``).  Every bad row is reported together, with file, line and
    field.  A file is read once per run (cached by path, size and modification time)."""
    path = Path(ref)
    if not path.exists():
        raise InputError.at(rel(path), "corpus file does not exist")
    st = path.stat()
    return list(_read_corpus(str(path), st.st_size, st.st_mtime_ns))


@lru_cache(maxsize=1)
def _read_corpus(name: str, size: int, mtime_ns: int) -> tuple[dict[str, Any], ...]:
    """The documents of one corpus file (see :func:`load_corpus`); ``size`` and ``mtime_ns``
    are only part of the cache key."""
    path = Path(name)
    problems: list[Problem] = []
    rows: Iterator[tuple[int, Any]]
    if path.suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(path)
        rows = ((i + 1, r) for i, r in enumerate(df.to_dict("records")))
    elif path.suffix in (".jsonl", ".json") or path.name.endswith((".jsonl.gz", ".json.gz")):
        rows = _jsonl_rows(path, problems)
    else:
        raise InputError.at(rel(path), "corpus must be a .jsonl(.gz) or .parquet file")
    docs: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    where = rel(path)
    for line, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(where, "each line must be a JSON object", line=line))
            continue
        id_field = next((f for f in _ID_FIELDS if f in row), None)
        text_field = next((f for f in _TEXT_FIELDS if f in row), None)
        if id_field is None or _missing(row[id_field]):
            problems.append(Problem(where, "document id missing", line=line, field=id_field or "doc_id"))
            continue
        doc_id = str(row[id_field])
        text = row[text_field] if text_field is not None else None
        if not isinstance(text, str) or not text.strip():
            problems.append(
                Problem(where, "document text missing or empty", line=line, field=text_field or "text")
            )
            continue
        if doc_id in seen:
            problems.append(
                Problem(
                    where,
                    f"duplicate document id {doc_id!r} (first on line {seen[doc_id]})",
                    line=line,
                    field=id_field,
                )
            )
            continue
        seen[doc_id] = line
        title = row.get("title")
        docs.append({"doc_id": doc_id, "title": title if isinstance(title, str) else None, "text": text})
    if problems:
        raise InputError(problems)
    if not docs:
        raise InputError.at(where, "corpus has no documents")
    return tuple(docs)


def _jsonl_rows(path: Path, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    import gzip

    with gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb") as f:
        for line_no, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(
                    Problem(rel(path), f"not UTF-8 text (byte offset {exc.start} of the line)", line_no)
                )
                continue
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(
                    Problem(rel(path), f"invalid JSON: {exc.msg} (column {exc.colno})", line=line_no)
                )


@dataclass(frozen=True)
class CorpusRef:
    """The knowledge corpus a run searches, resolved once from the task card and flags;
    ``covers``: the queries the task's own corpus was written for, as its card says (``None``: all)."""

    kind: str  # table | file | lucene | irds (ir_datasets: lookups only)
    label: str
    path: str | None = None
    task_corpus: bool = False
    covers: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.path}|{self.label}"


def resolve_corpus(task: Any, corpus: str | None = None, lucene_index: str | None = None) -> CorpusRef:
    """The corpus to search: ``--corpus`` or ``--lucene-index`` if given, else the task's."""
    if corpus is not None and lucene_index is not None:
        raise usage_error("give --corpus or --lucene-index, not both", "--corpus")
    if corpus is not None and corpus.startswith("irds:"):
        return CorpusRef("irds", f"ir_datasets {corpus.removeprefix('irds:')}", corpus.removeprefix("irds:"))
    if corpus is not None:
        path = Path(corpus)
        if path.is_dir():
            raise InputError.at(
                rel(path), "--corpus is a directory; give a .jsonl or .parquet file", field="--corpus"
            )
        return CorpusRef("file", f"user corpus {path.name}", str(path))
    if lucene_index is not None:
        return CorpusRef("lucene", f"Lucene index {lucene_index}", lucene_index)
    spec = task.card.corpus
    covers = tuple(spec.covers_queries) if spec.covers_queries is not None else None
    label = spec.label or spec.kind
    if spec.kind == "table":
        return CorpusRef("table", label, None, True, covers)
    if spec.kind in ("jsonl", "parquet"):
        return CorpusRef("file", label, str(task.root / (spec.path or "")), True, covers)
    if spec.kind in ("lucene", "pyserini-prebuilt"):
        index = spec.path if spec.kind == "lucene" else f"prebuilt:{spec.path}"
        return CorpusRef("lucene", label, index, True, covers)
    raise InputError.at(
        task.where(),
        "this task ships no corpus; pass --corpus (JSONL/parquet with doc_id and text) or --lucene-index",
        field="corpus",
    )


def corpus_passages(ref: CorpusRef, task: Any, spec: RetrieverSpec) -> list[Passage]:
    """The passages of a table or file corpus, chunked as the profile says."""
    if ref.kind == "irds":
        raise InputError.at(
            f"irds:{ref.path}",
            "an ir_datasets corpus serves lookups by id only (the passages answers cite); give "
            "--lucene-index (e.g. prebuilt:msmarco-v2.1-doc-segmented) or a --corpus file to retrieve from",
            field="--corpus",
        )
    if ref.kind == "lucene":
        raise InputError.at(str(ref.path), "the passages of a Lucene index cannot be listed; give --corpus")
    return chunk_corpus(_documents(ref, task), size=spec.chunk_words, overlap=spec.chunk_overlap)


def document_texts(ref: CorpusRef, task: Any) -> dict[str, str]:
    """Every document of a table or file corpus, whole and titled as passages are, by id."""
    if ref.kind in ("lucene", "irds"):
        return {}
    return {p.doc_id: p.text for p in chunk_corpus(_documents(ref, task), size=10**9, overlap=0)}


def _documents(ref: CorpusRef, task: Any) -> list[dict[str, Any]]:
    return task.table("corpus").to_dict("records") if ref.kind == "table" else load_corpus(str(ref.path))
