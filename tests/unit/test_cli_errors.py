"""Every command-line mistake is a one-line error naming the argument, before any work.

Table-driven: each case runs the real ``benchmark`` entry point on a mistaken command line
(files it needs are made in a temporary folder) and asserts exit status 2, exactly one
line on stderr, and that the line names the argument (or the file) at fault.  A case that
raised a traceback, printed several chained ones, or went on to generate answers before
noticing fails here.  A command asked for every task goes on without a task it cannot do
(``code`` 0): nothing on stderr, and one line of its output names that task and why.
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
import yaml

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
    names: str | tuple[str, ...]  # what the one line must mention (each of them)
    prepare: Callable[[Path], None] = field(default=lambda tmp: None)
    #: the environment of the mistake (a variable, a missing package), undone after the case
    setup: Callable[[Path, pytest.MonkeyPatch], None] = field(default=lambda tmp, mp: None)
    #: 2: an error; 0: the command goes on without the part at fault, naming it in its output
    code: int = 2


def _write(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda tmp: (tmp / name).write_bytes(data)


def _without(module: str) -> Callable[[Path, pytest.MonkeyPatch], None]:
    """The case runs as if ``module`` were not installed (``import`` raises ImportError)."""
    return lambda tmp, mp: mp.setitem(sys.modules, module, None)


def _no_ray_cluster(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    """No running Ray cluster to find, whatever else runs on this machine."""
    mp.delenv("RAY_ADDRESS", raising=False)
    try:
        from ray._private import services
    except ImportError:
        return
    mp.setattr(services, "find_gcs_addresses", lambda: [])
    mp.setattr(services, "find_bootstrap_address", lambda temp_dir=None: None)


def _run_line(**fields: object) -> bytes:
    """One TREC RAG 2024 run line: run_id, topic_id, references, answer, and ``fields``."""
    row = {
        "run_id": '"r1"',
        "topic_id": '"1"',
        "references": '["d1"]',
        "answer": '[{"text": "An answer.", "citations": [0]}]',
    }
    row |= {k: str(v) for k, v in fields.items()}
    return ("{" + ", ".join(f'"{k}": {v}' for k, v in row.items()) + "}\n").encode()


SCORE = ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--no-progress"]
FIT = ["subq", "fit-weights", "--task", TASK, "--preferences", str(OUTPUTS)]
RUN = ["score", "--tasks", TASK, "--no-progress", "--trec-rag-run"]
META = [
    *(
        "meta-eval",
        "--metric",
        "exam:exam",
        "--task",
        TASK,
        "--results-dir",
        str(REPO / "leaderboard/results"),
        "--judge-profile",
        "offline-smollm2-minilm-sim",
    ),
    *("--against", "trec:MAP", "--runs"),
]


MISTAKES = [
    Mistake(
        "judge-profile-not-utf8",
        lambda t: ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--judge-profile", str(t / "p.yaml")],
        "--judge-profile",
        _write("p.yaml", b"name: \xff\xfe\n"),
    ),
    Mistake("score-outputs-is-a-folder", lambda t: ["score", "--outputs", str(t), "--tasks", TASK], "folder"),
    # a prefix is not a flag: argparse's abbreviations took `--judge-prof` for `--judge-profile`, so a typo
    # or another tool's flag silently meant one of ours
    Mistake(
        "abbreviated-flag",
        lambda t: [*SCORE, "--judge-prof", "offline-smollm2-minilm-sim"],
        "unrecognized arguments: --judge-prof",
    ),
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

#: issue 36, item 5: mistakes that ended in a traceback
TRACEBACKS = [
    Mistake(
        "tasks-export-out-is-a-file",
        lambda t: ["tasks", "export-lm-eval", "--tasks", TASK, "--out", str(t / "f")],
        "--out",
        _write("f", b"x"),
    ),
    Mistake(
        "submit-submissions-dir-is-a-file",
        lambda t: [*SUBMIT, "--outputs", str(OUTPUTS), "--submissions-dir", str(t / "f")],
        "--submissions-dir",
        _write("f", b"x"),
    ),
    Mistake(
        "judge-card-out-under-a-file",
        lambda t: ["judge-card", "--not-measured", "no models here", "--out", str(t / "f" / "card.yaml")],
        "--out",
        _write("f", b"x"),
    ),
    Mistake(
        "exam-export-bank-out-is-a-folder",
        lambda t: ["exam", "export-bank", "--task", TASK, "--out", str(t)],
        "--out",
    ),
    Mistake(
        "exam-export-bank-out-under-a-file",
        lambda t: ["exam", "export-bank", "--task", TASK, "--out", str(t / "f" / "bank.jsonl")],
        "--out",
        _write("f", b"x"),
    ),
    Mistake(
        "nuggets-export-out-under-a-file",
        lambda t: ["nuggets", "export-nuggets", "--task", TASK, "--out", str(t / "f" / "n.jsonl")],
        "--out",
        _write("f", b"x"),
    ),
    Mistake(
        "score-dry-run-path-under-a-file",
        lambda t: [*SCORE, "--dry-run", str(t / "f" / "plan.json")],
        "--dry-run",
        _write("f", b"x"),
    ),
    Mistake(
        "leaderboard-markdown-under-a-file",
        lambda t: [
            "leaderboard",
            "--results-dir",
            str(REPO / "leaderboard/results"),
            "--out",
            str(t / "snap"),
            "--markdown",
            str(t / "f" / "board.md"),
        ],
        "--markdown",
        _write("f", b"x"),
    ),
    Mistake(
        "groundcover-home-is-a-file",
        lambda t: SCORE,
        "GROUNDCOVER_HOME",
        _write("f", b"x"),
        lambda t, mp: mp.setenv("GROUNDCOVER_HOME", str(t / "f")),
    ),
    Mistake(
        "trec-rag-run-not-utf8",
        lambda t: [*RUN, str(t / "run.jsonl")],
        ("run.jsonl", "line 2", "not UTF-8"),
        _write("run.jsonl", _run_line() + _run_line(topic_id='"2"').replace(b'"2"', b'"2\xff"')),
    ),
    Mistake(
        "trec-rag-run-deeply-nested",
        lambda t: [*RUN, str(t / "run.jsonl")],
        ("run.jsonl", "line 1", "nested"),
        _write("run.jsonl", _run_line(answer="[" * 200_000 + "]" * 200_000)),
    ),
    Mistake(
        "ray-auto-without-a-cluster",
        lambda t: [*SCORE, "--ray", "auto"],
        ("--ray", "ray start"),
        setup=_no_ray_cluster,
    ),
    Mistake(
        "ray-client-address-without-grpcio",
        lambda t: [*SCORE, "--ray", "ray://127.0.0.1:10001"],
        ("--ray", "ray[client]"),
        setup=_without("grpc"),
    ),
    Mistake("model-args-bad-json", lambda t: [*EVAL, "--model-args", "{bad"], "--model-args"),
    Mistake("space-serve-port-out-of-range", lambda t: ["space", "serve", "--port", "99999"], "--port"),
    Mistake(
        "meta-eval-ratings-on-the-wrong-file",
        lambda t: ["meta-eval", "--ratings", str(OUTPUTS)],
        ("--ratings", "item"),
    ),
    Mistake("subq-fit-weights-step-0", lambda t: [*FIT, "--step", "0"], "--step"),
]

#: issue 36, item 5: mistakes that were accepted in silence, now errors
SILENT = [
    Mistake(
        "exam-threshold-above-1",
        lambda t: [*SCORE, "--metrics", "exam", "--exam-threshold", "2", "--dry-run"],
        "--exam-threshold",
    ),
    Mistake(
        "evaluate-ray-without-ray-generates-nothing",
        lambda t: [*EVAL, "--limit", "2", "--ray"],
        ("--ray", "pip install"),
        setup=_without("ray"),
    ),
    Mistake(
        "evaluate-dry-run-path-under-a-file",
        lambda t: [*EVAL, "--dry-run", str(t / "f" / "plan.json")],
        "--dry-run",
        _write("f", b"x"),
    ),
    Mistake("subq-fit-weights-step-above-1", lambda t: [*FIT, "--step", "2"], "--step"),
    Mistake(
        "trec-rag-run-nan",
        lambda t: [*RUN, str(t / "run.jsonl")],
        ("run.jsonl", "line 2", "field 'response_length'", "NaN"),
        _write("run.jsonl", _run_line(topic_id='"1"') + _run_line(topic_id='"2"', response_length="NaN")),
    ),
    Mistake(
        "trec-run-file-nan-score",
        lambda t: [*META, str(t / "a.run")],
        ("a.run", "line 2", "field 'score'"),
        _write("a.run", b"175 Q0 d1 1 3.0 x\n175 Q0 d2 2 nan x\n"),
    ),
    Mistake(
        "trec-run-file-repeated-document",
        lambda t: [*META, str(t / "a.run")],
        ("a.run", "line 3", "field 'docid'", "first on line 1"),
        _write("a.run", b"175 Q0 d1 1 3.0 x\n175 Q0 d2 2 2.0 x\n175 Q0 d1 3 1.0 x\n"),
    ),
]

MISTAKES += TRACEBACKS + SILENT


#: a task's card and folder, checked by the one rule book before anything is written (issue 47/48)
def _task_inputs(tmp: Path) -> None:
    (tmp / "q.csv").write_bytes(b"query_id,text\nq1,what?\n")
    (tmp / "n.csv").write_bytes(b"query_id,nugget_id,text,importance\nq1,n1,a fact,vital\n")


_NEW = ["tasks", "new", "t1", "--queries", "q.csv", "--nuggets", "n.csv", "--license", "CC-BY-4.0"]
MISTAKES += [
    Mistake(
        "tasks-new-version-not-semver",
        lambda tmp: [*_NEW, "--out", "t", "--version", "1.0"],
        "version",
        _task_inputs,
    ),
    Mistake(
        "tasks-new-out-unwritable", lambda tmp: [*_NEW, "--out", "/proc/forbidden/t"], "--out", _task_inputs
    ),
    Mistake(
        "tasks-new-main-score-bad",
        lambda tmp: [*_NEW, "--out", "t", "--main-score", "icat"],
        "--main-score",
        _task_inputs,
    ),
]


def _pinned_space(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    """A copy of the Space that pins a release, so that publishing it gets as far as the Hub."""
    from benchmark.board import results_dataset
    from benchmark.cli import space

    shutil.copytree(REPO / "hf_space", tmp / "space", ignore=shutil.ignore_patterns("results.yaml"))
    mp.setattr(space, "SPACE_DIR", tmp / "space")
    mp.setattr(space, "PIN_FILE", tmp / "space" / "results.yaml")
    results_dataset.write_pin(
        space.PIN_FILE, results_dataset.Pin(repo="acme/results", revision="b" * 40, release=1)
    )


def _hub_unreachable(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    """No route to the Hub: online mode, its address a port nothing listens on."""
    from huggingface_hub import constants

    from tests.helpers.openai_server import free_port

    _pinned_space(tmp, mp)
    mp.setattr(constants, "HF_HUB_OFFLINE", False)
    mp.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{free_port()}")


def _hub_offline(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    _pinned_space(tmp, mp)
    mp.setattr(constants, "HF_HUB_OFFLINE", True)


def _only_tasks_without_a_corpus(tmp: Path, mp: pytest.MonkeyPatch) -> None:
    """Every task is these two, which ship no corpus (conqret's queries need none to be scored)."""
    import benchmark.api.tasks

    cards = [c for c in benchmark.api.tasks.list_tasks() if c.id in ("conqret", "webtrack-2013-2014")]
    mp.setattr(benchmark.api.tasks, "list_tasks", lambda: cards)


PUBLISH = ["space", "publish", "--repo-id", "acme/leaderboard"]
#: issue 48, item 4 (``space publish-results`` became ``space publish`` and the release workflow)
ISSUE_48 = [
    Mistake(
        "space-publish-without-a-route-to-the-hub",
        lambda t: PUBLISH,
        ("acme/leaderboard", "--repo-id", "could not upload the Space"),
        setup=_hub_unreachable,
    ),
    Mistake(
        "space-publish-offline",
        lambda t: PUBLISH,
        ("acme/leaderboard", "--repo-id", "offline mode"),
        setup=_hub_offline,
    ),
    Mistake(
        "tasks-export-rag-skips-a-task-without-a-corpus",
        lambda t: ["tasks", "export-lm-eval", "--rag", "bm25", "--out", str(t / "out")],
        ("skipped conqret: this task ships no corpus", "--corpus"),
        setup=_only_tasks_without_a_corpus,
        code=0,
    ),
    Mistake(
        "tasks-export-rag-names-a-task-without-a-corpus",
        lambda t: ["tasks", "export-lm-eval", "--rag", "bm25", "--tasks", "conqret", "--out", str(t / "out")],
        ("conqret", "ships no corpus", "--corpus"),
    ),
]
MISTAKES += ISSUE_48


@pytest.mark.parametrize("case", MISTAKES, ids=[m.id for m in MISTAKES])
def test_mistake_is_one_line_naming_the_argument(
    case: Mistake, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing lands in the checkout, whatever a command writes
    case.prepare(tmp_path)
    case.setup(tmp_path, monkeypatch)
    code = main(case.argv(tmp_path))
    out, err = capsys.readouterr()
    names = (case.names,) if isinstance(case.names, str) else case.names
    if case.code == 0:
        assert code == 0 and not err.strip(), err
        assert len([line for line in out.splitlines() if all(n in line for n in names)]) == 1, out
        return
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and all(n in lines[0] for n in names), lines[0]
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
    revision = yaml.safe_load(OUTPUTS.with_name("model.yaml").read_text(encoding="utf-8"))["revision"]
    assert {r.generated_by for r in rows} == {f"HuggingFaceTB/SmolLM2-135M-Instruct@{revision}"}


#: invisible format characters (Unicode category Cf): the bidirectional controls first
INVISIBLE = [
    *map(chr, range(0x202A, 0x202F)),  # LRE, RLE, PDF, LRO, RLO
    *map(chr, range(0x2066, 0x206A)),  # LRI, RLI, FSI, PDI
    "\u200e",  # LRM
    "\u200f",  # RLM
    "\u061c",  # ALM
    "\u200b",  # zero-width space
    "\u200d",  # zero-width joiner
    "\u2060",  # word joiner
    "\ufeff",  # byte-order mark
    "\u00ad",  # soft hyphen
    "\U000e0041",  # tag latin capital A
]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_printable_escapes_bidi_controls_and_invisible_format_characters(char: str) -> None:
    from benchmark.core.errors import printable

    shown = printable(f"evil{char}txt.jsonl")
    escape = f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
    assert char not in shown and shown == f"evil{escape}txt.jsonl"


def test_printable_keeps_visible_text_as_it_is() -> None:
    from benchmark.core.errors import printable

    assert printable("café — 日本語 (ñ) ✓") == "café — 日本語 (ñ) ✓"


def test_a_right_to_left_override_in_a_file_name_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``answers<RLO>lmth.jsonl`` would display as ``answersnosj.html``: it prints escaped."""
    code = main(["score", "--outputs", str(tmp_path / "answers\u202elmth.jsonl"), "--tasks", TASK])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "\u202e" not in err and "answers\\u202elmth.jsonl" in err


def test_validate_keeps_a_long_folder_name_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a CI log (not a terminal) rich wrapped at 80 columns, splitting folder names."""
    monkeypatch.delenv("COLUMNS", raising=False)
    folder = tmp_path / ("an-organisation-with-a-long-name__" + "a-model-whose-name-goes-on-" * 4)
    folder.mkdir()
    code = main(["validate", str(folder)])
    out = capsys.readouterr().out
    assert code == 2
    assert any(str(folder) in line for line in out.splitlines()), out
