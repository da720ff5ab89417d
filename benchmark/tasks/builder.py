"""A task folder built from a team's own records (``benchmark tasks new``, ``Task.from_records``).

Each input (CSV, TSV, JSON lines, parquet, a DataFrame, a ``datasets`` dataset) is mapped onto
a registered table schema, with a few unambiguous column aliases (:data:`ALIASES`), and checked
before anything is written: every problem of every input is reported at once.  The card lists
the families whose inputs are present, asked of the family registry (docs/own-data.md).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pandas as pd
import yaml
from pydantic import ValidationError

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.registry import REGISTRY
from benchmark.core.untrusted import load_json
from benchmark.tasks.card import (
    CorpusSpec,
    DataSource,
    Provenance,
    ProvenanceInput,
    Source,
    TaskCard,
    sha256_file,
)
from benchmark.tasks.datacard import dataset_card
from benchmark.tasks.tables import TableSchema, check_references, check_table, known

if TYPE_CHECKING:
    import datasets

#: a table as the caller may give it: a path (CSV, TSV, JSON lines, parquet), a pandas
#: DataFrame, a ``datasets.Dataset`` or a list of dicts
TableInput = Union[str, os.PathLike[str], pd.DataFrame, "datasets.Dataset", Sequence[Mapping[str, Any]]]

#: ``from_records`` argument -> the task table it fills, where the two names differ
#: (the others are named as their table: ``queries``, ``qrels``, ``corpus``, …)
TABLE_OF = {"references": "gold_articles", "subtopics": "aspects"}

_QUERY_ID = ("qid", "query-id", "queryid")

#: per ``from_records`` argument, the columns each canonical column may also be called.
#: An alias is used only when the canonical column is absent and exactly one of its
#: aliases is present; two present aliases of one column are an error, never a guess.
#: (Written with ``dict(...)`` keywords: the argument names are the public interface.)
ALIASES: dict[str, dict[str, tuple[str, ...]]] = dict(
    queries={"query_id": (*_QUERY_ID, "id"), "text": ("query", "question", "title")},
    corpus={"doc_id": ("docid", "id", "_id", "pid", "corpus-id"), "text": ("contents", "passage", "segment")},
    qrels={
        "query_id": _QUERY_ID,
        "doc_id": ("docid", "pid", "corpus-id"),
        "aspect_id": ("subtopic_id", "subtopic"),
        "relevance": ("rel", "grade", "judgment", "label", "score"),
    },
    nuggets={"query_id": _QUERY_ID, "nugget_id": ("id",), "text": ("nugget",)},
    sub_questions={"query_id": _QUERY_ID, "sub_question_id": ("id",), "text": ("sub_question", "question")},
    subtopics={"query_id": _QUERY_ID, "aspect_id": ("subtopic_id", "id"), "text": ("subtopic", "aspect")},
    references={
        "query_id": _QUERY_ID,
        "article_id": ("reference_id", "doc_id", "id"),
        "text": ("reference", "article", "answer"),
    },
    exam_questions={"query_id": _QUERY_ID, "question_id": ("id",), "question": ("text",)},
)

#: the order inputs are read and reported in (the arguments of :func:`build_task`)
ARGUMENTS = tuple(ALIASES)

_SUFFIXES = {".csv": ",", ".tsv": "\t", ".jsonl": None, ".ndjson": None, ".parquet": None}


def _defaults() -> dict[str, str]:
    """The card's instruction and licence when the author gives none (``new-task.yaml``)."""
    return yaml.safe_load((Path(__file__).with_name("new-task.yaml")).read_text(encoding="utf-8"))


# -- reading one input into rows, each with the line it came from ------------------------


@dataclass
class Rows:
    """One input as read: its rows, the 1-based line (or row) each came from, and how to
    name it in an error (a file's path, or e.g. ``queries (DataFrame)``)."""

    label: str
    frame: pd.DataFrame  # index: line - 1, as check_table reports ``index + 1``
    path: Path | None = None


def read_input(argument: str, value: TableInput) -> tuple[Rows | None, list[Problem]]:
    """Read one table argument; a file is read with its line numbers (CSV's header is line 1)."""
    if isinstance(value, str | os.PathLike):
        return _read_file(Path(value))
    if isinstance(value, pd.DataFrame):
        return Rows(f"{argument} (DataFrame)", _plain(value)), []
    if type(value).__module__.startswith("datasets"):  # not imported here: it is slow to import
        if not hasattr(value, "to_pandas"):  # a DatasetDict: which split is meant is not ours to guess
            return None, [
                Problem(f"{argument} ({type(value).__name__})", "give one split, e.g. dataset['test']")
            ]
        return Rows(f"{argument} (datasets.Dataset)", _plain(value.to_pandas())), []
    if isinstance(value, Sequence) and all(isinstance(r, Mapping) for r in value):
        return Rows(f"{argument} (records)", _plain(pd.DataFrame.from_records(list(value)))), []
    return None, [
        Problem(
            argument,
            f"cannot read a {type(value).__name__}: give a path (CSV, TSV, JSON lines, parquet), a "
            "pandas DataFrame, a datasets.Dataset or a list of dicts",
        )
    ]


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with Python objects for values and ``None`` for missing ones, rows numbered from 0."""
    out = df.reset_index(drop=True).astype(object)
    return out.where(out.notna(), None)


def _read_file(path: Path) -> tuple[Rows | None, list[Problem]]:
    label = rel(path)
    if not path.is_file():
        return None, [Problem(label, "no such file")]
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        return None, [Problem(label, f"unknown file type {suffix!r}: use one of {', '.join(_SUFFIXES)}")]
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            df = pq.read_table(str(path)).to_pandas()
        except Exception as exc:  # pyarrow raises several types for broken files
            return None, [Problem(label, f"cannot read parquet: {exc}")]
        return Rows(label, _plain(df), path), []
    delimiter = _SUFFIXES[suffix]
    # utf-8-sig: a spreadsheet's CSV export starts with a byte-order mark, which would
    # otherwise become part of the first column's name
    with open(path, encoding="utf-8-sig", newline="") as f:
        try:
            rows, problems = _read_jsonl(f, label) if delimiter is None else _read_csv(f, delimiter, label)
        except UnicodeDecodeError:
            return None, [Problem(label, "not UTF-8 text: save the file as UTF-8")]
    df = _plain(pd.DataFrame.from_records([record for _, record in rows]))
    df.index = pd.Index([n - 1 for n, _ in rows], dtype="int64")
    return Rows(label, df, path), problems


def _read_csv(f: Any, delimiter: str, label: str) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """Rows of a CSV / TSV file, each with its first line; empty cells are missing values."""
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a corpus passage may be longer than csv's 128 KiB default
    start = 2  # line 1 is the header; a quoted cell may span lines
    try:
        # strict: a quote left open is an error, never a cell that swallows the rows after it
        reader = csv.DictReader(f, delimiter=delimiter, strict=True)
        for row in reader:
            if None in row:
                problems.append(Problem(label, "more cells than header columns", line=start))
            rows.append((start, {k: (v if v != "" else None) for k, v in row.items() if k is not None}))
            start = reader.line_num + 1
    except csv.Error as exc:
        problems.append(
            Problem(
                label,
                f'not valid CSV from this line on ({exc}): is a quote (") left open? A cell that holds the '
                'delimiter, a quote or a line break is quoted whole, and its quotes doubled ("")',
                line=start,
            )
        )
    finally:
        csv.field_size_limit(limit)
    return rows, problems


def _read_jsonl(f: Any, label: str) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """Rows of a JSON-lines file, each with its line."""
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    for n, line in enumerate(f, start=1):
        if not line.strip():
            continue
        try:
            obj = load_json(line)
        except ValueError as exc:
            problems.append(
                Problem(label, f"not valid JSON: {exc}", line=n, field=getattr(exc, "field", None))
            )
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(label, "each line must be a JSON object", line=n))
            continue
        rows.append((n, obj))
    return rows, problems


# -- mapping rows onto a table schema ----------------------------------------------------


def conform(argument: str, rows: Rows, table: TableSchema) -> tuple[pd.DataFrame, list[Problem]]:
    """``rows`` with aliases renamed, missing per-query ids numbered, absent nullable
    columns added as nulls, and values coerced to the schema's types; the problems found."""
    df = rows.frame.copy()
    problems: list[Problem] = []
    for canonical, aliases in ALIASES.get(argument, {}).items():
        if canonical in df.columns or table.column(canonical) is None:
            continue
        present = [a for a in aliases if a in df.columns and table.column(a) is None]
        if len(present) > 1:
            problems.append(
                Problem(
                    rows.label,
                    f"columns {present} could each be '{canonical}': rename the one meant to '{canonical}'",
                    field=canonical,
                )
            )
        elif present:
            df = df.rename(columns={present[0]: canonical})
    # per-query ids: a table keyed by (query_id, X) may leave X out; rows are numbered 1..n per query
    if (
        len(table.key) == 2
        and table.key[0] == "query_id"
        and "query_id" in df.columns
        and table.key[1] not in df.columns
    ):
        df[table.key[1]] = (
            (df.groupby("query_id", sort=False, dropna=False).cumcount() + 1).astype(str).astype(object)
        )
    for col in table.columns:
        if col.name in df.columns:
            continue
        if col.required and col.nullable:  # e.g. document-level qrels without an aspect column
            df[col.name] = None
        elif col.required and col.name == "provenance":  # how imported rows were made: from here
            df[col.name] = f"imported: {Path(rows.label).name if rows.path else rows.label}"
    for col in table.columns:
        if col.name not in df.columns:
            continue
        values = []
        for idx, v in df[col.name].items():
            ok, value = _coerce(v, col.type, col.name)
            if not ok:
                problems.append(
                    Problem(rows.label, f"expected {col.type}, got {v!r}", line=int(idx) + 1, field=col.name)
                )
            values.append(value)
        df[col.name] = pd.Series(values, index=df.index, dtype=object)
    order = [c.name for c in table.columns if c.name in df.columns]
    return df[order + [c for c in df.columns if c not in order]], problems


def _coerce(v: Any, typ: str, name: str) -> tuple[bool, Any]:
    """(ok, value): ``v`` as ``typ``; a bad value is reported once here and replaced by a
    valid null-free stand-in, so the schema check does not report it again."""
    if v is None:
        return True, None
    if hasattr(v, "item") and not isinstance(v, str | bytes) and getattr(v, "ndim", 0) == 0:
        v = v.item()  # numpy scalars
    whole = not isinstance(v, bool) and (isinstance(v, int) or (isinstance(v, float) and v.is_integer()))
    if typ == "str":
        if whole and name.endswith("_id"):
            # numeric ids (TREC topic numbers) are ids; a DataFrame's int column with a gap reads as float
            return True, str(int(v))
        # a number in a text column is a column mix-up (or a shifted row), not text
        return isinstance(v, str), v if isinstance(v, str) else str(v)
    if typ == "int":
        ok = whole or (isinstance(v, str) and v.strip().lstrip("+-").isdigit())
        return ok, int(v) if ok else 0
    if typ == "float":
        try:
            return (not isinstance(v, bool)), float(v)
        except (TypeError, ValueError):
            return False, 0.0
    if typ == "bool":
        word = {"true": True, "false": False, "1": True, "0": False}.get(str(v).strip().lower())
        return (True, v) if isinstance(v, bool) else (word is not None, bool(word))
    if typ == "list[str]":
        if isinstance(v, str):  # a CSV cell: a JSON list
            try:
                v = json.loads(v)
            except json.JSONDecodeError:
                return False, []
        items = list(v) if isinstance(v, list | tuple) or hasattr(v, "tolist") else None
        if items is None or not all(isinstance(x, str) for x in items):
            return False, []
        return True, items
    return True, v


# -- which families the card lists -------------------------------------------------------


def own_tables(family: Any) -> tuple[str, ...]:
    """The tables a family declares as its own (``tables``), main one first."""
    return tuple(t.name for t in getattr(family, "tables", ()) if isinstance(t, TableSchema))


def needs(family: Any) -> str:
    """What a family needs from a new task, in words (for the error when none applies)."""
    parts = [t for t in family.required_tables if t != "queries"]
    if (own := own_tables(family)) and own[0] not in parts:
        parts.append(own[0])
    if getattr(family, "needs_evidence", False):
        parts.append("corpus")
    argument = {table: argument for argument, table in TABLE_OF.items()}
    return " + ".join(argument.get(t, t) for t in ["queries", *parts])


def applies(family: Any, present: set[str]) -> bool:
    """Whether ``family`` can score a task holding the ``present`` tables (docs/own-data.md)."""
    own = own_tables(family)
    needs_evidence = getattr(family, "needs_evidence", False)
    if not own and not needs_evidence and set(family.required_tables) <= {"queries"}:
        return False  # it needs nothing beyond the questions: no input of the user's says it applies
    return (
        set(family.required_tables) <= present
        and (not own or own[0] in present)
        and (not needs_evidence or "corpus" in present)
        and getattr(family, "ranks_models", True)
    )


def choose_metrics(
    present: set[str], families: Mapping[str, Any], requested: Sequence[str] | None, where: str
) -> tuple[list[str], list[Problem]]:
    """The card's ``metrics``: ``requested`` (checked) or every family that applies."""
    if not families:
        return [], [
            Problem(
                where,
                "no metric family is loaded to ask which apply: import benchmark.families first",
                field="metrics",
            )
        ]
    if requested:
        problems = []
        for fid in requested:
            if fid not in families:
                problems.append(Problem(where, f"no metric family {fid!r}; known: {', '.join(families)}"))
            elif missing := sorted(set(families[fid].required_tables) - present):
                problems.append(Problem(where, f"{fid} needs the table(s) {missing}", field="metrics"))
        return list(dict.fromkeys(requested)), problems
    chosen = [fid for fid, fam in families.items() if applies(fam, present)]
    if chosen:
        return chosen, []
    wants = "; ".join(f"{fid}: {needs(fam)}" for fid, fam in families.items() if fam.ranks_models)
    return [], [Problem(where, f"no metric family can score these inputs ({wants})", field="metrics")]


def main_score_problems(
    main_score: Mapping[str, str], chosen: Sequence[str], families: Mapping[str, Any], where: str
) -> list[Problem]:
    """``main_score``: per family the card lists, one of that family's scores."""
    import difflib

    if not isinstance(main_score, Mapping):
        return [
            Problem(where, f"give main_score as {{family: score}}, not {main_score!r}", field="main_score")
        ]
    problems = []
    for fid, key in main_score.items():
        if fid not in chosen:
            problems.append(
                Problem(
                    where,
                    f"{fid!r} is not a family the card lists ({', '.join(chosen)})",
                    field=f"main_score.{fid}",
                )
            )
            continue
        keys = [c.key for c in getattr(families.get(fid), "columns", ())]
        if keys and key not in keys:
            near = difflib.get_close_matches(str(key), keys, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            problems.append(
                Problem(
                    where,
                    f"{fid} has no score {key!r}{hint}; its scores: {', '.join(keys)}",
                    field=f"main_score.{fid}",
                )
            )
    return problems


# -- building the folder -----------------------------------------------------------------


def build_task(
    task_id: str,
    *,
    out_dir: str | os.PathLike[str],
    queries: TableInput | None = None,
    qrels: TableInput | None = None,
    nuggets: TableInput | None = None,
    corpus: TableInput | None = None,
    references: TableInput | None = None,
    sub_questions: TableInput | None = None,
    subtopics: TableInput | None = None,
    exam_questions: TableInput | None = None,
    tables: Mapping[str, TableInput | None] | None = None,
    license: str | None = None,
    source: str | None = None,
    name: str | None = None,
    description: str | None = None,
    instruction: str | None = None,
    version: str = "1.0.0",
    citation: str | None = None,
    url: str | None = None,
    metrics: Sequence[str] | None = None,
    main_score: Mapping[str, str] | None = None,
    tags: Sequence[str] = ("own-data",),
    force: bool = False,
    families: Mapping[str, Any] | None = None,
    script: str = "benchmark.Task.from_records",
) -> Path:
    """Check every input, then write the task folder ``out_dir``; returns it.

    Each table may be a path (CSV, TSV, JSON lines, parquet), a pandas DataFrame, a
    ``datasets.Dataset`` or a list of dicts; ``references`` are gold articles (or reference
    answers), ``subtopics`` the queries' aspects; ``tables`` gives any other registered
    table by its own name (e.g. ``stances``); ``queries`` is required.  ``metrics`` lists the
    families on the card (default: every family the inputs let score the task) and
    ``main_score`` the score each ranks by (``{family id: score key}``; default: the family's).
    Nothing is written unless every check passes; an existing non-empty ``out_dir`` is
    replaced only with ``force`` and only when it is a task folder (has ``task.yaml``), so a
    mistyped path never deletes someone's files."""
    inputs = {
        **(tables or {}),
        **dict(
            queries=queries,
            qrels=qrels,
            nuggets=nuggets,
            corpus=corpus,
            references=references,
            sub_questions=sub_questions,
            subtopics=subtopics,
            exam_questions=exam_questions,
        ),
    }
    inputs = {k: v for k, v in inputs.items() if v is not None}
    out = Path(out_dir)
    problems: list[Problem] = []
    where = "command line" if script.startswith("benchmark tasks") else "Task.from_records"
    schemas = known()
    unknown = sorted(set(inputs) - set(ARGUMENTS) - set(schemas))
    if unknown:
        problems.append(
            Problem(where, f"unknown table(s) {unknown}; known: {sorted({*ARGUMENTS, *schemas})}")
        )
    if inputs.get("queries") is None:
        problems.append(Problem(where, "a task needs its queries", field="queries"))
    problems += _check_out(out, force, flag="--out" if where == "command line" else "out_dir")

    tables: dict[str, pd.DataFrame] = {}
    read: dict[str, Rows] = {}
    given: list[str] = []  # the tables given, read or not: what the card will list
    # the named arguments first, then any other registered table given by its own name
    for argument in [*ARGUMENTS, *sorted(set(inputs) - set(ARGUMENTS) - set(unknown))]:
        value = inputs.get(argument)
        if value is None:
            continue
        table_name = TABLE_OF.get(argument, argument)
        if table_name not in schemas:  # a family that registers it is not loaded
            problems.append(Problem(where, f"no table {table_name!r} is registered", field=argument))
            continue
        given.append(table_name)
        rows, found = read_input(argument, value)
        problems += found
        if rows is None:
            continue
        df, found = conform(argument, rows, schemas[table_name])
        problems += found
        found = check_table(df, schemas[table_name], rows.label)
        problems += found
        read[table_name] = rows
        if not any(p.line is None for p in found):  # columns all there: references can be checked
            tables[table_name] = df
    # rows naming an unknown query, aspect, …
    problems += check_references(tables, {t: r.label for t, r in read.items()})

    # which families apply follows from what was given, so an unreadable file is one
    # problem, not also a family that seems to have nothing to score
    present = {"queries", *given}
    if not re.fullmatch(r"\d+\.\d+\.\d+", str(version)):
        # a new task is versioned X.Y.Z from the start: a new version whenever its data changes
        problems.append(Problem(where, f"{version!r} is not a version X.Y.Z, e.g. 1.0.0", field="version"))
    families = dict(REGISTRY) if families is None else families
    chosen, found = choose_metrics(present, families, metrics, where)
    problems += found
    problems += main_score_problems(main_score or {}, chosen, families, where)
    # queries always: their absence is reported once, as such, not again by the card's check
    card_tables = {t: f"{t}.parquet" for t in ["queries", *given]}
    kinds = sorted({r.label.split(" (")[1].rstrip(")") for r in read.values() if r.path is None})
    notes = f"Built by {script} from {len(read)} input table(s)" + (
        f"; in-memory inputs ({', '.join(kinds)}) have no file to checksum" if kinds else ""
    )
    listed = ", ".join(t for t in given if t != "queries") or "no other tables"
    n_queries = len(read["queries"].frame) if "queries" in read else 0
    defaults = _defaults()
    card: TaskCard | None = None
    try:
        card = TaskCard(
            id=task_id,
            version=version,
            name=name or task_id,
            description=description
            or f"{n_queries} queries with {listed}, built from the author's own data.",
            source=Source(name=source or "the task author's own data", url=url),
            license=license or defaults["license"].strip(),
            citation=citation or "",
            metrics=chosen,
            main_score=dict(main_score or {}),
            instruction=instruction or defaults["instruction"].strip(),
            data=DataSource(kind="local", path="data", tables=card_tables),
            corpus=CorpusSpec(kind="table", label=f"{task_id} corpus")
            if "corpus" in given
            else CorpusSpec(kind="none", label="none given: pass --corpus or --lucene-index when scoring"),
            provenance=Provenance(
                script=script,
                inputs=[
                    ProvenanceInput(file=r.label, sha256=sha256_file(r.path)) for r in read.values() if r.path
                ],
                notes=notes,
            ),
            tags=list(tags),
        )
    except ValidationError as exc:
        for err in exc.errors():
            field = ".".join(str(x) for x in err["loc"])
            problems.append(Problem(where, err["msg"], field="task_id" if field == "id" else field))
    if problems or card is None:
        raise InputError(problems)
    _write(out, card, tables)
    return out


def _check_out(out: Path, force: bool, flag: str) -> list[Problem]:
    from benchmark.core.paths import check_writable

    if out.exists() and not out.is_dir():
        return [Problem(rel(out), "exists and is not a folder", field=flag)]
    try:
        check_writable(out.parent, flag)
    except InputError as exc:
        return exc.problems
    if out.is_dir() and any(out.iterdir()):
        if not force:
            return [
                Problem(
                    rel(out), "the folder exists and is not empty: pass --force (force=True) to replace it"
                )
            ]
        if not (out / "task.yaml").is_file():
            return [
                Problem(rel(out), "not a task folder (no task.yaml): --force replaces only a task folder")
            ]
    return []


def _write(out: Path, card: TaskCard, tables: Mapping[str, pd.DataFrame]) -> None:
    """Write the folder beside ``out`` first, then move it into place: a failure half-way
    leaves the old folder (or none) as it was."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (staging / "data").mkdir()
        checksums = {}
        for table_name, df in tables.items():
            target = staging / "data" / f"{table_name}.parquet"
            _frame_for_parquet(df).to_parquet(target, index=False)
            checksums[target.name] = sha256_file(target)
        card = card.model_copy(update={"data": card.data.model_copy(update={"checksums": checksums})})
        raw = card.model_dump(mode="json", exclude_none=True)
        (staging / "task.yaml").write_text(
            yaml.safe_dump(raw, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
        )
        (staging / "README.md").write_text(dataset_card(card), encoding="utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            out.rename(old / out.name)
            staging.rename(out)
            shutil.rmtree(old)
        else:
            staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _frame_for_parquet(df: pd.DataFrame) -> pd.DataFrame:
    """Columns with one Python type each, so parquet stores strings as strings and
    relevance grades as integers (object columns are inferred from their values)."""
    out = df.reset_index(drop=True)
    for col in out.columns:
        values = [v for v in out[col] if v is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            out[col] = pd.array(list(out[col]), dtype="Int64")
        elif values and all(isinstance(v, str) for v in values):
            out[col] = pd.Series(list(out[col]), dtype=object)
    return out
