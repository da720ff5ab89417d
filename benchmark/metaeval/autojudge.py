"""TREC AutoJudge's published file formats, read and written (docs/meta-evaluation.md).

They are parsed here rather than through autojudge-base's classes: importing that package
fetches NLTK data from outside PyPI, and groundcover names every problem by file, line and
field.  The round-trip test checks what this writes with autojudge-base's own readers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import load_json, read_text

#: system -> topic -> score (as :mod:`benchmark.metaeval.rankings` takes a leaderboard)
Board = Mapping[str, Mapping[str, float]]

#: leaderboard column orders autojudge-base reads and writes (``Leaderboard.load`` / ``write``)
FORMATS: dict[str, tuple[str, ...]] = {
    "ir_measures": ("run", "topic", "measure", "value"),
    "tot": ("run", "measure", "topic", "value"),
    "trec_eval": ("measure", "topic", "value"),
    "rag4reports": ("topic", "run", "measure", "value"),
    "jsonl": ("run_id", "topic_id", "measure", "value"),
}
#: the aggregate row's topic id (``Leaderboard.all_topic_id``)
ALL_TOPICS = "all"
#: aggregates are rounded to this many decimals, as ranking cards round means before ranking
#: them: two runs with the same per-topic scores in another order must tie in every reader
ROUND = 12


# -- requests ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One AutoJudge request (topic), the fields groundcover uses."""

    request_id: str
    title: str
    problem_statement: str | None = None
    background: str | None = None


def read_requests(path: str | Path) -> list[Request]:
    """An AutoJudge topics file's requests (``request_id``, ``title``); every problem raised at once."""
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError.at(where, "no such file")
    out: list[Request] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(read_text(p).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = load_json(line)
        except ValueError as e:
            problems.append(Problem(where, f"not a JSON object: {e}", line=n))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(where, "must be a JSON object", line=n))
            continue
        bad = False
        for key in ("request_id", "title"):
            value = row.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and key == "request_id":
                continue
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(where, "must be a non-empty string", line=n, field=key))
                bad = True
        for key in ("topic_id", "narrative_id"):
            if key in row and row[key] is not None and str(row[key]) != str(row.get("request_id")):
                problems.append(Problem(where, f"must equal request_id ({row.get('request_id')!r})", n, key))
                bad = True
        if bad:
            continue
        rid = str(row["request_id"]).strip()
        if rid in seen:
            problems.append(
                Problem(where, f"request {rid} again (first on line {seen[rid]})", n, "request_id")
            )
            continue
        seen[rid] = n
        texts = {
            k: row.get(k) if isinstance(row.get(k), str) else None
            for k in ("problem_statement", "background")
        }
        out.append(Request(rid, row["title"].strip(), **texts))
    if not out and not problems:
        problems.append(Problem(where, "no requests"))
    if problems:
        raise InputError(problems)
    return out


def run_files(runs: str | Path) -> list[Path]:
    """The report files of an AutoJudge runs folder (not hidden, sorted), or the one file given."""
    p = Path(runs)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise InputError.at(rel(p), "no such file or folder (the RAG runs)")
    files = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
    if not files:
        raise InputError.at(rel(p), "no run files in this folder")
    return files


# -- leaderboards -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaderboard:
    """An AutoJudge leaderboard: per measure, run -> topic -> score (``all`` rows apart)."""

    path: str
    boards: dict[str, dict[str, dict[str, float]]]
    aggregates: dict[str, dict[str, float]]

    @property
    def measures(self) -> list[str]:
        return list(self.boards)

    def board(self, measure: str | None, flag: str = "--measure") -> tuple[str, dict[str, dict[str, float]]]:
        """One measure's board: the one named, or the only one."""
        if measure is None:
            if len(self.boards) != 1:
                raise InputError.at(
                    self.path, f"{len(self.boards)} measures ({', '.join(self.boards)}): name one", field=flag
                )
            measure = next(iter(self.boards))
        if measure not in self.boards:
            raise InputError.at(
                self.path, f"no measure {measure!r}; it has {', '.join(self.boards)}", field=flag
            )
        return measure, self.boards[measure]


def read_leaderboard(path: str | Path, fmt: str = "ir_measures") -> Leaderboard:
    """An AutoJudge leaderboard file in ``fmt`` (a ``trec_eval`` file names its run by the
    file name, as autojudge-base reads it); a malformed row is an error naming its line."""
    if fmt not in FORMATS:
        raise InputError.at("--format", f"unknown leaderboard format {fmt!r}: one of {', '.join(FORMATS)}")
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError.at(where, "no such file")
    columns = FORMATS[fmt]
    boards: dict[str, dict[str, dict[str, float]]] = {}
    aggregates: dict[str, dict[str, float]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    problems: list[Problem] = []
    for n, line in enumerate(read_text(p).split("\n"), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if fmt == "jsonl":
            try:
                row = load_json(line)
            except ValueError as e:
                problems.append(Problem(where, f"not a JSON object: {e}", line=n))
                continue
            if missing := [c for c in columns if not isinstance(row, dict) or c not in row]:
                problems.append(Problem(where, "missing", line=n, field=missing[0]))
                continue
            got = {"run": str(row["run_id"]), "topic": str(row["topic_id"]), "measure": str(row["measure"]),
                   "value": row["value"]}  # fmt: skip
        else:
            parts = line.split()
            if len(parts) != len(columns):
                problems.append(
                    Problem(
                        where,
                        f"{len(parts)} columns; the {fmt} format has {len(columns)}: {' '.join(columns)}",
                        line=n,
                    )
                )
                continue
            got = dict(zip(columns, parts, strict=True))
            if fmt == "trec_eval":
                got["run"] = p.name
        try:
            value = float(got["value"])
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            problems.append(Problem(where, f"not a finite number: {got['value']!r}", line=n, field="value"))
            continue
        key = (got["run"], got["topic"], got["measure"])
        if key in seen:
            problems.append(
                Problem(
                    where,
                    f"run {key[0]}, topic {key[1]}, {key[2]} again (first on line {seen[key]})",
                    line=n,
                    field="measure",
                )
            )
            continue
        seen[key] = n
        run, topic, measure = key
        if topic == ALL_TOPICS:
            aggregates.setdefault(measure, {})[run] = value
        else:
            boards.setdefault(measure, {}).setdefault(run, {})[topic] = value
    if not boards and not problems:
        problems.append(Problem(where, "no per-topic rows"))
    if problems:
        raise InputError(problems)
    return Leaderboard(where, boards, aggregates)


def write_leaderboard(
    path: str | Path,
    boards: Mapping[str, Board],
    *,
    fmt: str = "ir_measures",
    descriptions: Mapping[str, str] | None = None,
) -> tuple[Path, Path]:
    """Write ``boards`` (measure -> run -> topic -> score) as an AutoJudge leaderboard, each run
    with its ``all`` row (its mean, as autojudge-base's ``LeaderboardBuilder``), and
    ``<file>.measures.yml`` beside it, as autojudge-base's judge runner does."""
    import yaml

    if fmt not in FORMATS or fmt == "trec_eval":
        raise InputError.at("--format", f"cannot write {fmt!r}: one of ir_measures, tot, rag4reports, jsonl")
    rows: list[tuple[str, str, str, float]] = []
    for run in sorted({r for board in boards.values() for r in board}):
        topics = sorted({t for board in boards.values() for t in board.get(run, {})})
        for topic in topics:
            rows += [
                (run, topic, m, float(b[run][topic])) for m, b in boards.items() if topic in b.get(run, {})
            ]
        for m, b in boards.items():
            if values := list(b.get(run, {}).values()):
                rows.append((run, ALL_TOPICS, m, float(np.round(np.mean(values), ROUND))))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"run_id": run, "topic_id": topic, "measure": m, "value": v})
        if fmt == "jsonl"
        else "\t".join({"run": run, "topic": topic, "measure": m, "value": repr(v)}[c] for c in FORMATS[fmt])
        for run, topic, m, v in rows
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    measures_path = out.with_suffix(".measures.yml")
    said = descriptions or {}
    spec = [{"name": m, "dtype": "float", **({"description": said[m]} if m in said else {})} for m in boards]
    measures_path.write_text(yaml.safe_dump({"measures": spec}, sort_keys=False), encoding="utf-8")
    return out, measures_path


def word_board(answers: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, float]]:
    """Each run's answer length in words per topic: a ranking card's trivial baseline."""
    return {
        run: {t: float(len(text.split())) for t, text in topics.items()} for run, topics in answers.items()
    }


def measure_name(family: str, score: str) -> str:
    """A groundcover score as one whitespace-free AutoJudge measure: ``<family>_<score>``."""
    return f"{family}_{score}"


def check_runs_cover(boards: Mapping[str, Board], topics: Sequence[str], where: str) -> list[str]:
    """Notes for each (run, topic) a measure has no score for (a failed or unscorable
    query): AutoJudge's verifier asks for every topic, so the note says which are missing."""
    return [
        f"{where}: {m} has no score for run {run} on topic(s) {', '.join(missing)}"
        for m, board in boards.items()
        for run, scores in sorted(board.items())
        if (missing := sorted(set(topics) - set(scores)))
    ]
