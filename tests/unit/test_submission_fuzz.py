"""A fuzz suite of hostile and malformed submission folders, generated.

Every case is a whole submission folder built from a valid one by one change.  For each:
the validator accepts it or rejects it as intended; a rejection names the file, and the
line and field where they apply; nothing raises anything but :class:`InputError`; and no
case takes more than a few seconds (YAML alias bombs and deep nesting once hung or
crashed the validator).
"""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from benchmark.board.submissions import required_queries, submitted_task, validate_submission
from benchmark.core.errors import InputError

TASK = "webtrack-2009-2012"
pytestmark = pytest.mark.timeout(30)  # a hang (an alias bomb once took 96 s) fails instead of stalling CI
FOLDER = "acme__m"
CARD_FILE, OUT_FILE = f"{FOLDER}/model.yaml", f"{FOLDER}/{TASK}.jsonl"
CARD = {
    "name": "m",
    "org": "acme",
    "license": "mit",
    "open_weights": True,
    "contact": "a@b.c",
    "parameters": 135,
}
REQUIRED = required_queries(TASK)[1]


def card_text(card: dict | None = None) -> str:
    return yaml.safe_dump(CARD if card is None else card, sort_keys=False, allow_unicode=True)


def rows() -> list[dict]:
    return [{"query_id": q, "answer": f"An answer about {q}.", "model": "acme/m"} for q in REQUIRED]


def lines(rs: list[dict]) -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in rs]


@dataclass
class Case:
    id: str
    accept: bool
    card: str | bytes = field(default_factory=card_text)
    outputs: list[str] | bytes = field(default_factory=lambda: lines(rows()))
    extra: Callable[[Path], None] | None = None
    file: str | None = None  # the file a rejection must name
    line: int | None = None
    field: str | None = None


def reject(id: str, file: str, line: int | None = None, fld: str | None = None, **kw: object) -> Case:
    return Case(id=id, accept=False, file=file, line=line, field=fld, **kw)  # type: ignore[arg-type]


def with_row(i: int, **changes: object) -> list[str]:
    rs = rows()
    rs[i] = {**rs[i], **changes}
    return lines(rs)


def with_line(i: int, text: str) -> list[str]:
    ls = lines(rows())
    ls[i] = text
    return ls


def refused_in_names(kind: str, ch: str, code: str) -> list[Case]:
    """``ch`` inside the card's licence, contact and description, and a row's model name."""
    out = [
        reject(f"card-{kind}-{key}-{code}", CARD_FILE, None, key, card=card_text({**CARD, key: f"x{ch}y"}))
        for key in ("license", "contact", "description")
    ]
    out.append(reject(f"model-{kind}-{code}", OUT_FILE, 1, "model", outputs=with_row(0, model=f"acme/m{ch}")))
    return out


def cases() -> list[Case]:
    out: list[Case] = [Case("valid", True)]
    # -- control characters and broken Unicode: everywhere refused, line breaks inside answers fine
    controls = [
        chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 127, *range(0x80, 0x85), *range(0x86, 0xA0)]
    ]
    for ch in controls:
        out.append(
            reject(
                f"answer-control-{ord(ch):02x}", OUT_FILE, 2, "answer", outputs=with_row(1, answer=f"a{ch}b")
            )
        )
    for ch in ("\x1b", "\x00", "\x07", "\x9b"):
        out += refused_in_names("control", ch, f"{ord(ch):02x}")
    for sur in ("\\ud800", "\\udfff", "\\udc00\\ud800", "x\\ud83dy"):
        out.append(
            reject(
                f"surrogate-{sur}",
                OUT_FILE,
                3,
                "answer",
                outputs=with_line(
                    2, f'{{"query_id": "{REQUIRED[2]}", "answer": "a{sur}b", "model": "acme/m"}}'
                ),
            )
        )
    for ch in ("\u2028", "\u2029", "\u0085", "\t", "\r", "\n"):
        out.append(Case(f"answer-linebreak-{ord(ch):04x}", True, outputs=with_row(3, answer=f"one{ch}two")))
    # -- JSON lines
    bad_json = {
        "truncated": '{"query_id": "x", "answer": "a',
        "trailing": '{"query_id": "x"} trailing',
        "single-quotes": "{'query_id': 'x'}",
        "bare-string": '"just a string"',
        "number": "42",
        "list": '["a", "b"]',
        "null": "null",
        "nan": f'{{"query_id": "{REQUIRED[0]}", "answer": "a", "model": "acme/m", "x": NaN}}',
        "infinity": f'{{"query_id": "{REQUIRED[0]}", "answer": "a", "model": "acme/m", "x": -Infinity}}',
        "duplicate-key": f'{{"query_id": "{REQUIRED[0]}", "answer": "a", "answer": "b", "model": "acme/m"}}',
        "bom": '\ufeff{"query_id": "x"}',
        "bigint": f'{{"query_id": "{REQUIRED[0]}", "answer": "a", "model": "acme/m", "n": {"9" * 5000}}}',
        "long-line": json.dumps({"query_id": REQUIRED[0], "answer": "a" * 250_000, "model": "acme/m"}),
    }
    for name, text in bad_json.items():
        out.append(reject(f"json-{name}", OUT_FILE, 1, outputs=with_line(0, text)))
    for depth in (33, 64, 1000, 100_000):
        out.append(
            reject(f"json-depth-{depth}", OUT_FILE, 1, outputs=with_line(0, "[" * depth + "]" * depth))
        )
        out.append(
            reject(f"json-open-depth-{depth}", OUT_FILE, 1, outputs=with_line(0, '{"answer": ' + "[" * depth))
        )
    for digits in (31, 100, 4301, 10_000):
        out.append(
            reject(f"json-int-{digits}", OUT_FILE, 1, outputs=with_line(0, f'{{"query_id": {"7" * digits}}}'))
        )
    # -- row schema
    for key, value in {
        "query_id": 175,
        "answer": ["a"],
        "model": None,
        "revision": 3,
        "task": {"x": 1},
        "generation": "fast",
        "model_args": [1],
        "created": 1.5,
        "rag": "bm25",
        "retrieval": {"passages": "x"},
    }.items():
        out.append(reject(f"row-type-{key}", OUT_FILE, 2, key, outputs=with_row(1, **{key: value})))
    for key in ("query_id", "answer", "model"):
        rs = rows()
        del rs[4][key]
        out.append(reject(f"row-missing-{key}", OUT_FILE, 5, key, outputs=lines(rs)))
    for key in ("score", "icat_m", "Answer", "__proto__"):
        out.append(reject(f"row-extra-{key}", OUT_FILE, 2, key, outputs=with_row(1, **{key: 1})))
    out += [
        reject("row-answer-too-long", OUT_FILE, 2, "answer", outputs=with_row(1, answer="a" * 50_001)),
        reject("row-unknown-query", OUT_FILE, 2, "query_id", outputs=with_row(1, query_id="9999")),
        reject("row-duplicate-query", OUT_FILE, 2, "query_id", outputs=with_row(1, query_id=REQUIRED[0])),
        reject("row-other-model", OUT_FILE, 2, "model", outputs=with_row(1, model="someone/else")),
        reject("row-other-revision", OUT_FILE, 2, "model", outputs=with_row(1, revision="v2")),
        reject("row-missing-query", OUT_FILE, None, "query_id", outputs=lines(rows()[:-1])),
        reject(
            "row-rag-without-card",
            OUT_FILE,
            2,
            "rag",
            outputs=with_row(
                1,
                rag={"retriever": "bm25", "k": 5, "prompt": "rag-answer@1", "corpus": "c"},
                retrieval={"passages": ["a#0"]},
            ),
        ),
        Case("crlf-lines", True, outputs=b"\r\n".join(line.encode() for line in lines(rows())) + b"\r\n"),
        Case("blank-lines", True, outputs=["", *lines(rows()), "", "   "]),
    ]
    # -- markup is data (escaped where shown, never a reason to reject)
    for i, payload in enumerate(
        [
            "<script>x</script>",
            "[x](javascript:alert(1))",
            "<a title='>' onmouseover=1>",
            "For n < 10, one = 1",
            "JavaScript: fine",
            "javascript&colon;x",
            "java\tscript:x",
        ]
    ):
        out.append(Case(f"markup-answer-{i}", True, outputs=with_row(i, answer=payload)))
    # -- the card
    for key, value in {
        "parameters": True,
        "open_weights": "yes",
        "open_weights ": 1,
        "name": 12,
        "org": ["acme"],
        "license": None,
        "contact": {"a": 1},
        "links": "http://x",
        "revision": "../up",
        "description": "d" * 2001,
        "generation": [1, 2],
    }.items():
        k = key.strip()
        out.append(
            reject(
                f"card-type-{k}-{type(value).__name__}",
                CARD_FILE,
                None,
                k,
                card=card_text({**CARD, k: value}),
            )
        )
    for key in ("name", "org", "license", "open_weights", "contact"):
        out.append(
            reject(
                f"card-missing-{key}",
                CARD_FILE,
                None,
                key,
                card=card_text({k: v for k, v in CARD.items() if k != key}),
            )
        )
    for key in ("score", "results", "homepage"):
        out.append(reject(f"card-extra-{key}", CARD_FILE, None, key, card=card_text({**CARD, key: 1})))
    base = card_text()
    yaml_bad = {
        "alias-bomb": base
        + "x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\ny: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        + "".join(
            f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("bcdefgh", "cdefghi", strict=True)
        ),
        "anchor": base + "generation: &g {a: 1}\n",
        "alias-only": "a: &x 1\n" + base + "b: *x\n",
        "recursive-anchor": base + "generation: &r [*r]\n",
        "python-tag": base + "description: !!python/object/apply:os.system ['echo hi']\n",
        "python-name": base + "generation: !!python/name:os.system\n",
        "nan": base.replace("parameters: 135", "parameters: .nan"),
        "inf": base.replace("parameters: 135", "parameters: -.inf"),
        "bigint": base.replace("parameters: 135", "parameters: " + "9" * 5000),
        "bigint-31": base.replace("parameters: 135", "parameters: " + "9" * 31),
        "hex-bigint": base.replace("parameters: 135", "parameters: 0x" + "f" * 40),
        "duplicate-key": base + "license: apache-2.0\n",
        "tab-indent": "name: m\n\torg: acme\n",
        "unterminated": base + 'description: "open\n',
        "list-card": "- a\n- b\n",
        "scalar-card": "just text\n",
        "empty-card": "",
        "binary-yaml": base + "description: !!binary aGVsbG8=\n",
        "timestamp": base + "description: 2001-12-14t21:59:43.10-05:00\n",
        "set": base + "generation: !!set {a, b}\n",
        "omap": base + "generation: !!omap [a: 1, b: 2]\n",
        "huge-card": base + "description: '" + "x" * 70_000 + "'\n",
    }
    for depth in (33, 100, 2000):
        yaml_bad[f"deep-{depth}"] = base + "generation: " + "[" * depth + "]" * depth + "\n"
        yaml_bad[f"deep-block-{depth}"] = (
            base
            + "generation:\n"
            + "".join(f"{'  ' * (i + 1)}k{i}:\n" for i in range(min(depth, 400)))
            + f"{'  ' * 401}v: 1\n"
        )
    for name, text in yaml_bad.items():
        out.append(reject(f"yaml-{name}", CARD_FILE, card=text))

    # -- files
    def add(name: str, data: bytes, mode: int | None = None) -> Callable[[Path], None]:
        def put(folder: Path) -> None:
            (folder / name).write_bytes(data)
            if mode is not None:
                os.chmod(folder / name, mode)

        return put

    def hard_link(folder: Path) -> None:
        outside = folder.parent / "outside.jsonl"
        outside.write_text("{}\n")
        os.link(outside, folder / "webtrack-2013-2014.jsonl")

    files = {
        "hard-link": hard_link,
        "pickle": add(f"{TASK}.pkl", pickle.dumps({"a": 1})),
        "pickle-as-jsonl": add("webtrack-2013-2014.jsonl", pickle.dumps([1, 2])),
        "elf": add("run.bin", b"\x7fELF\x02\x01\x01" + b"\x00" * 50),
        "zip": add("data.zip", b"PK\x03\x04" + b"\x00" * 30),
        "gzip": add("data.gz", b"\x1f\x8b\x08" + b"\x00" * 30),
        "shebang": add("run.sh", b"#!/bin/sh\nrm -rf /\n"),
        "executable-jsonl": add("webtrack-2013-2014.jsonl", b'{"query_id": "201"}\n', 0o755),
        "notes": add("notes.txt", b"hello"),
        "hidden": add(".env", b"TOKEN=1"),
        "unknown-task": add("no-such-task.jsonl", b"{}\n"),
        "nul-bytes": add("webtrack-2013-2014.jsonl", b'{"query_id": "201"}\x00\n'),
        "bad-utf8": add("webtrack-2013-2014.jsonl", b'{"query_id": "\xff\xfe"}\n'),
        "subfolder": lambda f: (f / "sub").mkdir(),
        "symlink": lambda f: (f / "link.jsonl").symlink_to("/etc/passwd"),
        "symlink-card": lambda f: (
            (f / "model.yaml").unlink(),
            (f / "model.yaml").symlink_to("/etc/hostname"),
        ),
        "many-files": lambda f: [(f / f"x{i}.jsonl").write_text("{}") for i in range(70)],
        "ansi-file-name": add("x\x1b[31mred\x1b[0m.jsonl", b"{}\n"),
        "newline-file-name": add("evil\nname.jsonl", b"{}\n"),
    }
    for name, put in files.items():
        out.append(reject(f"file-{name}", FOLDER, extra=put))
    out += [
        reject("card-bad-utf8", CARD_FILE, card=b"name: \xff\xfe\n"),
        reject("outputs-bad-utf8", OUT_FILE, outputs=b'{"query_id": "\xc3\x28"}\n'),
        reject("outputs-empty", OUT_FILE, outputs=[]),
        reject("outputs-only-blank", OUT_FILE, outputs=["", " "]),
    ]
    # -- type matrices: every card and row field given every JSON/YAML type
    odd = {"bool": True, "float": 1.5, "negative": -3, "list": [], "dict": {}, "null": None}
    card_ok = {
        ("description", "null"),
        ("parameters", "null"),
        ("open_weights", "bool"),
        ("links", "list"),
        ("generation", "dict"),
    }
    for key in (
        "name",
        "org",
        "revision",
        "license",
        "contact",
        "description",
        "parameters",
        "open_weights",
        "links",
        "generation",
    ):
        for kind, value in odd.items():
            card = card_text({**CARD, key: value})
            if (key, kind) in card_ok:
                out.append(Case(f"card-matrix-{key}-{kind}", True, card=card))
            else:
                out.append(reject(f"card-matrix-{key}-{kind}", CARD_FILE, None, key, card=card))
    row_ok = {("task", "null"), ("created", "null"), ("backend", "null")}
    for key in ("query_id", "answer", "model", "revision", "task", "created", "backend"):
        for kind, value in odd.items():
            if (key, kind) in row_ok:
                out.append(Case(f"row-matrix-{key}-{kind}", True, outputs=with_row(2, **{key: value})))
            else:
                out.append(
                    reject(f"row-matrix-{key}-{kind}", OUT_FILE, 3, key, outputs=with_row(2, **{key: value}))
                )
    # -- many near-valid answers: long honest texts of every kind of character are fine (up to
    # the task card's limit on an answer's characters)
    longest = "a" * submitted_task(TASK).card.limits.max_answer_chars
    for i, text in enumerate(
        ["日本語の回答です。", "Ünïcödé ✓ — “quotes” 😀", longest, "x\u200bzero-width", "rtl \u202eevil"]
    ):
        out.append(Case(f"honest-unicode-{i}", True, outputs=with_row(i % len(REQUIRED), answer=text)))
    # -- numbers that overflow to infinity, in any field
    for number in ("1e400", "-1e999", "1E309"):
        out.append(
            reject(
                f"json-overflow-{number}",
                OUT_FILE,
                1,
                outputs=with_line(
                    0,
                    f'{{"query_id": "{REQUIRED[0]}", "answer": "a", "model": "acme/m", "generation": {{"temperature": {number}}}}}',
                ),
            )
        )
    # -- evidence must agree with the card's setting; a row's task must be this file's
    retrieval = {"passages": ["d1"], "cited": []}
    out.append(
        reject(
            "closed-book-with-retrieval", OUT_FILE, 2, "retrieval", outputs=with_row(1, retrieval=retrieval)
        )
    )
    out.append(reject("row-task-other", OUT_FILE, 3, "task", outputs=with_row(2, task="webtrack-2013-2014")))
    out.append(reject("row-task-versioned", OUT_FILE, 3, "task", outputs=with_row(2, task=f"{TASK}@0.9.0")))
    out.append(Case("row-task-same", True, outputs=with_row(2, task=TASK)))
    # -- credentials are never published
    for key in ("api_key", "OPENAI_API_KEY", "auth_token", "headers", "password"):
        out.append(
            reject(
                f"row-secret-{key}", OUT_FILE, 2, "model_args", outputs=with_row(1, model_args={key: "sk-1"})
            )
        )
        out.append(
            reject(
                f"card-secret-{key}",
                CARD_FILE,
                None,
                "generation",
                card=card_text({**CARD, "generation": {"model_args": {key: "x"}}}),
            )
        )
    out.append(
        Case(
            "row-model-args-tokenizer",
            True,
            outputs=with_row(1, model_args={"tokenizer": "gpt2", "max_tokens": 5}),
        )
    )
    # -- invisible and direction-changing characters: refused in names, kept in answers
    for ch in ("\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u061c"):
        code = f"{ord(ch):04x}"
        out += refused_in_names("invisible", ch, code)
        out.append(
            reject(
                f"row-invisible-backend-{code}",
                OUT_FILE,
                2,
                "backend",
                outputs=with_row(1, backend=f"hf{ch}"),
            )
        )
        out.append(Case(f"answer-invisible-{code}", True, outputs=with_row(0, answer=f"an answer{ch} kept")))
    return out


CASES = cases()


def build(root: Path, case: Case) -> Path:
    folder = root / FOLDER
    folder.mkdir(parents=True)
    card = case.card.encode("utf-8") if isinstance(case.card, str) else case.card
    (folder / "model.yaml").write_bytes(card)
    outputs = case.outputs
    data = (
        outputs
        if isinstance(outputs, bytes)
        else ("\n".join(outputs) + ("\n" if outputs else "")).encode("utf-8", "surrogatepass")
    )
    (folder / f"{TASK}.jsonl").write_bytes(data)
    if case.extra:
        case.extra(folder)
    return folder


def test_the_suite_is_large() -> None:
    assert len(CASES) >= 300 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, tmp_path: Path) -> None:
    folder = build(tmp_path, case)
    try:
        validate_submission(folder)
        problems = None
    except InputError as exc:
        problems = exc.problems
    if case.accept:
        assert problems is None, [str(p) for p in problems or []]
        return
    assert problems, "accepted, but should be rejected"
    assert not any("\x1b" in str(p) or "\n" in str(p) for p in problems), (
        "a problem must print as one plain line"
    )
    named = [p for p in problems if p.file.startswith(case.file or "")]
    assert named, f"no problem names {case.file}: {[str(p) for p in problems]}"
    if case.line is not None:
        assert any(p.line == case.line for p in named), [str(p) for p in named]
    if case.field is not None:
        assert any(p.field and p.field.split(".")[0] == case.field for p in named), [str(p) for p in named]


# -- bounded in time and output: huge but size-legal inputs end quickly with few problems

BOUNDED_S = 10  # a hang guard only (pytest-timeout); typical runs take well under a second


def _bounded(tmp_path: Path, outputs: bytes | list[str], extra: Callable[[Path], None] | None = None) -> list:
    folder = build(tmp_path, Case("bounded", False, outputs=outputs, extra=extra))
    with pytest.raises(InputError) as err:
        validate_submission(folder)
    return err.value.problems


@pytest.mark.timeout(BOUNDED_S)
def test_millions_of_short_lines_are_refused_unread(tmp_path: Path) -> None:
    problems = _bounded(tmp_path, b'{"a":1}\n' * 3_000_000)
    assert len(problems) == 1 and "at most" in problems[0].message and "rows" in problems[0].message


@pytest.mark.timeout(BOUNDED_S)
def test_a_file_of_bad_lines_stops_after_a_bounded_number_of_problems(tmp_path: Path) -> None:
    from benchmark.answers.rules import MAX_PROBLEMS as MAX_PROBLEMS_PER_FILE
    from benchmark.board.submissions import ROWS_PER_QUERY, required_queries

    n = ROWS_PER_QUERY * len(required_queries(TASK)[0])  # as many rows as may be read, all bad
    problems = _bounded(tmp_path, [json.dumps({"query_id": f"x{i}", "bogus": 1}) for i in range(n)])
    assert MAX_PROBLEMS_PER_FILE <= len(problems) <= MAX_PROBLEMS_PER_FILE + 3
    assert any("stopped reading" in p.message for p in problems)


@pytest.mark.timeout(BOUNDED_S)
def test_deeply_bracketed_lines_are_refused_fast(tmp_path: Path) -> None:
    problems = _bounded(tmp_path, ["[" * 199_000] * 120)
    assert 1 <= len(problems) <= 60 and all("nested" in p.message or "stopped" in p.message for p in problems)


@pytest.mark.timeout(BOUNDED_S)
def test_a_folder_of_thousands_of_files_is_refused_before_reading(tmp_path: Path) -> None:
    def many(folder: Path) -> None:
        for i in range(20_000):
            (folder / f"f{i}.jsonl").write_bytes(b"")

    problems = _bounded(tmp_path, lines(rows()), many)
    assert len(problems) == 1 and "entries" in problems[0].message


def test_validation_ends_with_a_clear_error_when_its_time_budget_is_spent(tmp_path: Path) -> None:
    folder = build(tmp_path, Case("valid", True))
    validate_submission(folder)  # valid with the default budget
    with pytest.raises(InputError, match=r"validation stopped after 0 s"):
        validate_submission(folder, time_budget_s=0.0)


@pytest.mark.timeout(BOUNDED_S * 3)
def test_the_validate_command_prints_a_bounded_report(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = build(
        tmp_path, Case("bad", False, outputs=[json.dumps({"query_id": f"x{i}"}) for i in range(100)])
    )
    run = subprocess.run(
        [sys.executable, "-m", "benchmark", "validate", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert len(run.stdout.splitlines()) <= 25 and "more" in run.stdout.splitlines()[-1]
