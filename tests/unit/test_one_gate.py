"""One rule book behind every door: the same hostile input gets the same verdict wherever it enters.

Each row of :data:`ANSWER_CASES` is one hostile answer row (or raw line), built into one
outputs file of the 12 answers a submission must hold, and fed to every door that takes
answers: ``benchmark validate`` (a submission folder), ``benchmark score --outputs``,
:func:`benchmark.plan` on the file, and :func:`benchmark.score` on the same rows as a
DataFrame (where the input can be held in memory at all: a repeated JSON key or a
non-finite number exists only in a file).  Every door must refuse it with the rule book's
problem: the same message and field (each door may add problems of its own — the submission
door, that a row differs from its model card). :data:`TASK_CASES` do the same for a task's
own tables through ``benchmark tasks new`` and :meth:`Task.from_records`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

import benchmark
from benchmark.board.submissions import required_queries
from benchmark.cli.main import main
from benchmark.core.errors import InputError

TASK = "webtrack-2009-2012"
MODEL = "acme/tiny-model"
CARD = {
    "name": "tiny-model",
    "org": "acme",
    "license": "apache-2.0",
    "open_weights": True,
    "contact": "dev@example.org",
}
RAG = {"retriever": "bm25", "k": 5, "prompt": "rag-answer@1", "corpus": "starter"}
LONG = " ".join(["word"] * 2_500)  # 12,499 characters: over the card's 12,000


@dataclass
class Case:
    """A hostile row: ``row`` replaces line 2's fields (``None`` values drop them), or
    ``raw`` replaces the whole line; ``says`` must be in the problem, ``field`` its field."""

    name: str
    says: str
    row: dict[str, Any] = field(default_factory=dict)
    raw: str | None = None
    fld: str | None = None
    memory: bool = True  # can the input be held as records (a DataFrame) at all


def _creds(key: str) -> Case:
    return Case(
        f"credential key {key}",
        "looks like a credential",
        row={"model_args": {key: "x1"}},
        fld=f"model_args.{key}",
    )


def _token(name: str, value: str) -> Case:
    return Case(
        f"token shape {name}",
        "holds a value shaped like",
        row={"generation": {"note": value}},
        fld="generation.note",
    )


ANSWER_CASES = [
    Case("answer over the card's characters", "limits.max_answer_chars", row={"answer": LONG}, fld="answer"),
    Case(
        "answer over the card's sentences",
        "limits.max_answer_sentences",
        row={"answer": "Yes. " * 151},
        fld="answer",
    ),
    Case(
        "an answer of ten million characters",
        "line longer than",
        raw=json.dumps({"query_id": "Q", "answer": "x" * 10_000_000, "model": MODEL}),
        memory=False,
    ),
    Case(
        "seven passages for k=5",
        "the setting's k is 5",
        row={"rag": RAG, "retrieval": {"passages": [f"d{i}" for i in range(7)]}},
        fld="retrieval.passages",
    ),
    Case(
        "one passage five times",
        "repeated passage id",
        row={"rag": RAG, "retrieval": {"passages": ["d1"] * 5}},
        fld="retrieval.passages",
    ),
    Case(
        "an empty passage id",
        "empty passage id",
        row={"rag": RAG, "retrieval": {"passages": [""]}},
        fld="retrieval.passages",
    ),
    Case("a RAG row without its evidence", "needs its 'retrieval' record", row={"rag": RAG}, fld="retrieval"),
    Case(
        "a closed-book row with evidence",
        "a closed-book answer has no evidence",
        row={"retrieval": {"passages": ["d1"]}},
        fld="retrieval",
    ),
    Case(
        "k out of range",
        "less than or equal to 100",
        row={"rag": {**RAG, "k": 101}, "retrieval": {"passages": ["d1"]}},
        fld="rag.k",
    ),
    Case("a line of 100,000 brackets", "nested deeper than", raw="[" * 100_000, memory=False),
    Case(
        "a key written twice",
        "appears twice",
        raw='{"query_id": "Q", "answer": "a", "answer": "b", "model": "' + MODEL + '"}',
        memory=False,
    ),
    Case(
        "NaN",
        "not a number JSON allows",
        raw='{"query_id": "Q", "answer": "a", "model": "' + MODEL + '", "generation": {"t": NaN}}',
        memory=False,
    ),
    Case(
        "a 40-digit number",
        "more than 30 digits",
        raw='{"query_id": "Q", "answer": "a", "model": "'
        + MODEL
        + '", "generation": {"n": '
        + "9" * 40
        + "}}",
        memory=False,
    ),
    Case("not JSON", "invalid JSON", raw='{"query_id": "Q", answer}', memory=False),
    Case("a JSON array", "must be a JSON object", raw="[1, 2]", memory=False),
    Case(
        "an ANSI escape in the model",
        "control character U+001B",
        row={"model": "acme/\x1b[31mtiny"},
        fld="model",
    ),
    Case(
        "a right-to-left override in the model",
        "direction-changing character U+202E",
        row={"model": "acme/\u202eledom"},
        fld="model",
    ),
    Case("a zero-width space in the model", "U+200B", row={"model": "acme/tiny\u200b-model"}, fld="model"),
    Case("a 300-character model id", "at most 200 characters", row={"model": "a" * 300}, fld="model"),
    Case("a query id the task lacks", "is not in task", row={"query_id": "no-such-topic"}, fld="query_id"),
    Case("an empty query id", "at least 1 character", row={"query_id": ""}, fld="query_id"),
    Case("an answer that is a number", "valid string", row={"answer": 42}, fld="answer"),
    Case("an unknown field", "Extra inputs are not permitted", row={"scroe": 1}, fld="scroe"),
    Case("no model and no --model-name", "name no model", row={"model": None}, fld="model"),
    _creds("api_key"),
    _creds("openai_key"),
    _creds("OPENAI-KEY"),
    _creds("anthropic_key"),
    _creds("azure_openai_key"),
    _creds("key"),
    _creds("pass"),
    _creds("pw"),
    _creds("jwt"),
    _creds("PAT"),
    _creds("signature"),
    _creds("subscription_key"),
    _creds("Ocp-Apim-Subscription-Key"),
    _creds("\u0430pi_key"),  # a Cyrillic а
    _creds("openaiApiKey"),
    _token("AWS temporary key", "ASIA" + "Q" * 16),
    _token("Google OAuth", "ya29." + "a1B2" * 10),
    _token("GitLab", "glpat-" + "x" * 20),
    _token("Stripe", "sk_live_" + "a1" * 12),
    _token("npm", "npm_" + "a" * 36),
    _token("JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
    _token("PGP private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF"),
    Case(
        "a password in a URL",
        "user-info",
        row={"model_args": {"base_url": "http://u:p@127.0.0.1:8000/v1"}},
        fld="model_args.base_url",
    ),
]


def _rows(case: Case) -> tuple[list[dict[str, Any]], list[str]]:
    """The 12 answers a submission holds, line 2 made hostile (and its lines as written)."""
    _, required = required_queries(TASK)
    rows = [{"query_id": q, "answer": f"About topic {q}.", "model": MODEL} for q in required]
    if case.raw is None:
        rows[1] = {k: v for k, v in {**rows[1], **case.row}.items() if v is not None}
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    if case.raw is not None:
        lines[1] = case.raw.replace('"Q"', json.dumps(required[1]))
    return rows, lines


def _folder(tmp_path: Path, lines: list[str]) -> Path:
    folder = tmp_path / "acme__tiny-model"
    folder.mkdir()
    (folder / "model.yaml").write_text(yaml.safe_dump(CARD), encoding="utf-8")
    (folder / f"{TASK}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _said(problems: list[Any], case: Case) -> bool:
    """The rule book's problem is among ``problems`` (InputError problems or printed lines)."""
    for p in problems:
        text = str(p)
        if case.says in text and (case.fld is None or f"field '{case.fld}'" in text):
            return True
    return False


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(argv) == 2
    out = capsys.readouterr()
    return (out.out + out.err).splitlines()


@pytest.mark.parametrize("case", ANSWER_CASES, ids=lambda c: c.name)
def test_a_hostile_row_gets_one_verdict_at_every_door(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rows, lines = _rows(case)
    folder = _folder(tmp_path, lines)
    outputs = folder / f"{TASK}.jsonl"
    doors: dict[str, Callable[[], list[Any]]] = {
        "benchmark validate": lambda: _cli(["validate", str(folder)], capsys),
        "benchmark score": lambda: _cli(
            ["score", "--outputs", str(outputs), "--tasks", TASK, "--dry-run", "--no-progress"], capsys
        ),
        "benchmark.plan (file)": lambda: _raised(lambda: benchmark.plan(outputs, task=TASK, progress=False)),
    }
    if case.memory:
        doors["benchmark.score (DataFrame)"] = lambda: _raised(
            lambda: benchmark.score(
                pd.DataFrame(rows), task=TASK, progress=False, results_dir=str(tmp_path / "r")
            )
        )
    verdicts = {door: _said(said(), case) for door, said in doors.items()}
    assert all(verdicts.values()), verdicts


def _raised(call: Callable[[], Any]) -> list[Any]:
    with pytest.raises(InputError) as err:
        call()
    return err.value.problems


def test_there_are_forty_hostile_rows_or_more() -> None:
    assert len(ANSWER_CASES) >= 40


# ---------------------------------------------------------------------------------
# A task's own tables: `benchmark tasks new` and Task.from_records
# ---------------------------------------------------------------------------------

QUERIES = "query_id,text\nq1,what is a nugget?\nq2,why cite?\n"
NUGGETS = "query_id,nugget_id,text,importance\nq1,n1,a fact,vital\nq2,n2,another fact,okay\n"


@dataclass
class TaskCase:
    name: str
    says: str
    files: dict[str, str] = field(default_factory=dict)  # file contents by table argument
    flags: dict[str, str] = field(default_factory=dict)  # card fields (flag -> value)
    line: int | None = None
    fld: str | None = None


TASK_CASES = [
    TaskCase(
        "an unbalanced quote", "is a quote", files={"queries": 'query_id,text\nq1,"what?\nq2,why?\n'}, line=2
    ),
    TaskCase(
        "importance vitall",
        "must be one of ['vital', 'okay']",
        files={"nuggets": NUGGETS.replace("vital", "vitall")},
        line=2,
        fld="importance",
    ),
    TaskCase(
        "importance high",
        "must be one of ['vital', 'okay']",
        files={"nuggets": NUGGETS.replace("okay", "high")},
        line=3,
        fld="importance",
    ),
    TaskCase(
        "a repeated query id",
        "duplicate query_id",
        files={"queries": QUERIES + "q1,again\n"},
        line=4,
        fld="query_id",
    ),
    TaskCase(
        "a nugget of an unknown query", "q9", files={"nuggets": NUGGETS + "q9,n3,x,vital\n"}, fld="query_id"
    ),
    TaskCase(
        "a version that is not X.Y.Z", "is not a version X.Y.Z", flags={"version": "1.0"}, fld="version"
    ),
    TaskCase(
        "a main score the family lacks",
        "nuggets has no score 'vital_strictt'",
        flags={"main_score": "nuggets=vital_strictt"},
        fld="main_score.nuggets",
    ),
    TaskCase(
        "a main score of a family not listed",
        "is not a family the card lists",
        flags={"main_score": "icat=icat_m"},
        fld="main_score.icat",
    ),
]


def _task_doors(case: TaskCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, list[Any]]:
    files = {"queries": QUERIES, "nuggets": NUGGETS, **case.files}
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text(text, encoding="utf-8")
    flags = [x for k, v in case.flags.items() for x in (f"--{k.replace('_', '-')}", v)]
    argv = ["tasks", "new", "t1", "--out", str(tmp_path / "cli"), "--license", "CC-BY-4.0"]
    argv += [x for k, p in paths.items() for x in (f"--{k.replace('_', '-')}", str(p))] + flags
    keywords: dict[str, Any] = dict(case.flags)
    if "main_score" in keywords:
        keywords["main_score"] = dict([keywords["main_score"].split("=")])
    api = _raised(
        lambda: benchmark.Task.from_records(
            "t1",
            out_dir=tmp_path / "api",
            license="CC-BY-4.0",
            **{k: str(p) for k, p in paths.items()},
            **keywords,
        )
    )
    return {"benchmark tasks new": _cli(argv, capsys), "Task.from_records": api}


@pytest.mark.parametrize("case", TASK_CASES, ids=lambda c: c.name)
def test_a_hostile_table_gets_one_verdict_at_every_door(
    case: TaskCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for door, problems in _task_doors(case, tmp_path, capsys).items():
        found = [str(p) for p in problems if case.says in str(p)]
        assert found, (door, [str(p) for p in problems])
        if case.line is not None:
            assert any(f"line {case.line}" in f for f in found), (door, found)
        if case.fld is not None:
            assert any(f"field '{case.fld}'" in f for f in found), (door, found)
    assert not (tmp_path / "cli").exists() and not (tmp_path / "api").exists()  # nothing written
