"""Careless and hostile use of the CLI and the files it writes: clear errors, nothing lost."""

from __future__ import annotations

import errno
import io
import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from benchmark.cli.main import main
from benchmark.core.checkpoint import JsonlCheckpoint, exclusive
from benchmark.core.errors import InputError
from benchmark.models.cache import ModelCallCache

TASK = "webtrack-2009-2012"


# -- checkpoints and locks ---------------------------------------------------------------


def test_a_damaged_middle_line_costs_only_its_item(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "v": 1}\n{"id": "b", "v": \x00garbage\n{"id": "c", "v": 3}\n{"id": "d", "v"')
    ck = JsonlCheckpoint(path, id_field="id")
    items = ck.load()
    assert sorted(items) == ["a", "c"] and ck.bad_lines == [2]
    assert path.read_text().endswith('{"id": "c", "v": 3}\n')  # only the torn last line was cut


def _rewrite_many(path: str, tag: str) -> None:
    ck = JsonlCheckpoint(Path(path), id_field="id")
    for i in range(150):
        ck.rewrite([{"id": f"{tag}{j}", "i": i} for j in range(20)])


def test_two_processes_rewriting_one_file_never_tear_it(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_rewrite_many, args=(str(path), tag)) for tag in "xy"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 20 and len({r["id"][0] for r in rows}) == 1  # one writer's whole file
    assert not list(tmp_path.glob("*.tmp"))


def test_a_second_writer_is_told_who_holds_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each process with its own GROUNDCOVER_HOME: the lock lives in the result folder, so
    it holds across homes (a lock under the home let both runs write one folder)."""
    target = tmp_path / "result.json"
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-b"))
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, pathlib\n"
            "from benchmark.core.checkpoint import exclusive\n"
            f"with exclusive(pathlib.Path({str(target)!r})):\n"
            f"    pathlib.Path({str(ready)!r}).touch()\n"
            "    time.sleep(60)\n",
        ],
        env={**os.environ, "GROUNDCOVER_HOME": str(tmp_path / "home-a")},
    )
    try:
        deadline = time.time() + 60
        while not ready.exists():
            assert holder.poll() is None and time.time() < deadline
            time.sleep(0.05)
        with pytest.raises(InputError, match=f"being written by pid {holder.pid}"), exclusive(target):
            pass
    finally:
        holder.kill()
        holder.wait()
    with exclusive(target):  # released when its holder died, even by SIGKILL
        pass


# -- the model-call cache ---------------------------------------------------------------------


def test_a_cache_file_of_random_bytes_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    path.write_bytes(os.urandom(4096))
    cache = ModelCallCache(path)
    assert cache.cached_batch("ns", "m", [1, 2], lambda b: [x * 10 for x in b]) == [10, 20]
    assert len(list(tmp_path.glob("calls.sqlite.damaged-*"))) == 1


def test_unreadable_cached_values_are_recomputed(tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    cache.cached_batch("ns", "m", [1], lambda b: ["first"])
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        conn.execute("UPDATE calls SET value = '{not json'")
    again = ModelCallCache(tmp_path / "c.sqlite")
    assert again.cached_batch("ns", "m", [1], lambda b: ["recomputed"]) == ["recomputed"]
    assert again.stats.misses == 1


def test_damaged_pages_name_the_file_and_how_to_clear_it(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = ModelCallCache(path)
    cache.cached_batch("ns", "m", list(range(3000)), lambda b: ["x" * 200 for _ in b])
    cache.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page : 40 * page] = os.urandom(37 * page)  # trash pages after the first ones
    path.write_bytes(bytes(data))
    try:  # either a one-line error naming the file and the fix, or correct results: never a traceback
        got = ModelCallCache(path).cached_batch(
            "ns", "m", list(range(3000)), lambda b: ["y" * 200 for _ in b]
        )
    except InputError as exc:
        assert str(path) in str(exc) and "delete it" in str(exc)
    else:
        assert set(got) <= {"x" * 200, "y" * 200} and len(got) == 3000


# -- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--model", "no-such-model"], "--model"),
        (["--model", "hf", "--model-args", "foo"], "--model-args"),
        (["--model", "hf", "--model-args", "pretrained=/nonexistent/model"], "--model-args pretrained"),
        (["--model", "groundcover-offline", "--gen-kwargs", "max_gen_toks=abc"], "--gen-kwargs"),
        (["--model", "groundcover-offline", "--gen-kwargs", "temperature=-1"], "--gen-kwargs"),
        (["--model", "groundcover-offline", "--gen-kwargs", "justtext"], "--gen-kwargs"),
        (["--model", "groundcover-offline", "--limit", "-1"], "--limit"),
        (["--model", "groundcover-offline", "--query-batch", "0"], "--query-batch"),
        (["--model", "groundcover-offline", "--rag", "bm25", "--rag-k", "0"], "--rag-k"),
        (["--model", "groundcover-offline", "--corpus", "."], "--corpus"),
    ],
)
def test_evaluate_fails_in_one_line_before_any_model_loads(
    args: list[str], field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "--tasks", TASK, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and f"field '{field}'" in err and "Traceback" not in err


def test_tasks_that_name_nothing_fail(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--model", "groundcover-offline", "--tasks", ","]) == 2
    assert "--tasks" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: [unclosed\n", "not valid YAML"),
        ("- a list\n- not a mapping\n", "must be a YAML mapping"),
        ("name: x\nversion: '1'\n", "field 'description'"),
    ],
)
def test_bad_profile_files_name_file_and_line(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile-without-suffix"
    profile.write_text(text)
    assert (
        main(["evaluate", "--model", "groundcover-offline", "--tasks", TASK, "--judge-profile", str(profile)])
        == 2
    )
    err = capsys.readouterr().err
    assert str(profile.name) in err and message in err


def test_a_profile_path_that_does_not_exist_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["evaluate", "--model", "groundcover-offline", "--tasks", TASK, "--judge-profile", "./nope"])
        == 2
    )
    assert "judge profile file does not exist" in capsys.readouterr().err


def test_bad_chunking_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from benchmark.core.paths import PROFILES_DIR

    raw = yaml.safe_load((PROFILES_DIR / "offline-smollm2-minilm-sim.yaml").read_text())
    raw["retriever"]["chunk_overlap"] = raw["retriever"]["chunk_words"]
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(raw))
    assert (
        main(
            [
                "evaluate",
                "--model",
                "groundcover-offline",
                "--tasks",
                TASK,
                "--judge-profile",
                str(tmp_path / "p.yaml"),
            ]
        )
        == 2
    )
    assert "chunk_overlap" in capsys.readouterr().err


# -- files written: all or nothing, never overwritten silently ---------------------------------------


def _outputs(tmp_path: Path, answer: str = "An answer.") -> Path:
    from benchmark.board.submissions import required_queries

    path = tmp_path / "out" / f"{TASK}.jsonl"
    path.parent.mkdir(parents=True)
    rows = [
        {"query_id": q, "answer": answer, "model": "acme/m", "task": TASK} for q in required_queries(TASK)[1]
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


CARD_ARGS = ["--org", "acme", "--name", "m", "--license", "mit", "--open-weights", "--contact", "a@b.c"]


def test_a_failed_submit_leaves_nothing_behind(tmp_path: Path) -> None:
    out = _outputs(tmp_path, answer="bad \x1b[31m escape")
    assert (
        main(["submit", "--outputs", str(out), *CARD_ARGS, "--submissions-dir", str(tmp_path / "subs")]) == 2
    )
    assert list((tmp_path / "subs").iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import benchmark.board.submissions as submissions

    def full(*a: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "submissions/acme__m")

    monkeypatch.setattr(submissions.os, "replace", full)
    out = _outputs(tmp_path)
    assert (
        main(["submit", "--outputs", str(out), *CARD_ARGS, "--submissions-dir", str(tmp_path / "subs")]) == 2
    )
    assert "no space left on the device" in capsys.readouterr().err
    assert list((tmp_path / "subs").iterdir()) == []


def test_a_result_is_not_overwritten_by_other_settings(tmp_path: Path) -> None:
    from benchmark.core.results import ModelInfo
    from benchmark.families import REGISTRY
    from benchmark.families.icat.family import ICATSettings
    from benchmark.scoring.runner import RunOptions, score_task
    from tests.unit.test_families import MOCKS

    task, answers, judges = MOCKS["icat"](tmp_path)

    def run(beta: float) -> None:
        score_task(
            REGISTRY["icat"],
            task,
            answers,
            judges,
            model=ModelInfo(id="t/m"),
            results_root=tmp_path / "r",
            settings=ICATSettings(beta=beta),
            options=RunOptions(progress=False),
        )

    run(1.0)
    run(1.0)  # the same settings again: fine, nothing recomputed
    with pytest.raises(InputError, match=r"another settings under the same name|another --results-dir"):
        run(2.0)


def test_markup_in_a_profile_version_prints_literally(tmp_path: Path) -> None:
    from benchmark.board.leaderboard import from_results
    from benchmark.board.render import print_leaderboard
    from tests.helpers.results_fixture import MODELS, PROFILE, make_result

    result = make_result("a/b", MODELS["acme/strong"], {**PROFILE, "version": "2[/]"})
    buf = io.StringIO()
    print_leaderboard(from_results([result]), Console(file=buf, width=250))
    assert "offline-smollm2-minilm-sim@2[/]" in buf.getvalue()


# -- exports ----------------------------------------------------------------------------------


def test_every_csv_neutralises_formula_cells(tmp_path: Path) -> None:
    """A model id like ``=HYPERLINK(…)`` (possible through `score --outputs`) must reach the
    snapshot CSVs and the Space's download as text, not as a formula."""
    import csv

    import pandas as pd

    from benchmark.core.exports import write_csv

    df = pd.DataFrame(
        {
            "model": ['=HYPERLINK("http://x")', "+1", "-cmd", "@SUM(A1)", "plain"],
            "score": [0.5, -0.5, 1, 0, 2],
        }
    )
    path = write_csv(df, tmp_path / "t.csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert [r["model"] for r in rows] == ['\'=HYPERLINK("http://x")', "'+1", "'-cmd", "'@SUM(A1)", "plain"]
    assert [float(r["score"]) for r in rows] == [0.5, -0.5, 1, 0, 2]  # numbers stay numbers
    assert df["model"][0].startswith("=")  # the caller's frame is not changed


def test_the_snapshot_and_the_space_write_csv_through_the_guard() -> None:
    """No CSV is written around :func:`benchmark.core.exports.write_csv`."""
    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(p.relative_to(root))
        for folder in ("benchmark", "hf_space")
        for p in (root / folder).rglob("*.py")
        if ".to_csv(" in p.read_text(encoding="utf-8") and p.name != "exports.py"
    ]
    assert offenders == []


def test_a_corpus_is_read_once_until_it_changes(tmp_path: Path) -> None:
    """`--corpus` is checked before any model loads and then indexed: one read, not two."""
    from benchmark.retrieval import load_corpus
    from benchmark.retrieval.corpora import _read_corpus

    path = tmp_path / "c.jsonl"
    path.write_text('{"doc_id": "a", "text": "one"}\n', encoding="utf-8")
    _read_corpus.cache_clear()
    assert load_corpus(path) == load_corpus(str(path)) == [{"doc_id": "a", "title": None, "text": "one"}]
    assert _read_corpus.cache_info().misses == 1
    path.write_text('{"doc_id": "a", "text": "one"}\n{"doc_id": "b", "text": "two"}\n', encoding="utf-8")
    assert [d["doc_id"] for d in load_corpus(path)] == ["a", "b"]  # an edited file is read again


@pytest.mark.parametrize("reader", ["corpus", "rows", "outputs"])
def test_non_utf8_user_files_name_file_and_line(tmp_path: Path, reader: str) -> None:
    from benchmark.answers.outputs import read_outputs
    from benchmark.core.untrusted import read_rows
    from benchmark.retrieval import load_corpus

    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"doc_id": "a", "text": "fine"}\n{"doc_id": "b", "text": "\xff"}\n')
    read = {"corpus": load_corpus, "rows": read_rows, "outputs": read_outputs}[reader]
    with pytest.raises(InputError) as err:
        read(path)
    (problem,) = err.value.problems
    assert problem.line == 2 and "UTF-8" in problem.message and problem.file.endswith("f.jsonl")
