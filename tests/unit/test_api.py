"""The Python API is the command line's run, called from Python.

``benchmark.score`` on a DataFrame, a ``datasets.Dataset`` or a list of dicts writes the
same result files, with the same numbers, as ``benchmark score`` on a JSONL file of the
same answers; bad input raises the :class:`InputError` whose one line the command line
prints; :class:`benchmark.Results` gives the scores, the per-query frame, the traces and
the failures of what was written.  The toy family (``tests/toy_family``) scores with no
model, so this runs in seconds; ``tests/integration/test_api.py`` does the same with a
judge LLM behind an OpenAI-compatible server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import benchmark
from benchmark.cli.main import main
from benchmark.core.errors import InputError
from benchmark.core.results import read_result
from benchmark.families import REGISTRY
from tests.helpers.toy import toy_task

ROWS = [
    {"query_id": "1", "answer": "Tornado formation follows storm physics.", "model": "acme/m"},
    {"query_id": "2", "answer": "Figs like sun.", "model": "acme/m"},
]


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A two-query task the toy family scores, registered for this test, and a working
    directory of its own."""
    assert "toy" in REGISTRY, (
        "the toy plug-in family is installed by scripts/setup.sh --dev (tests/toy_family)"
    )
    task = toy_task(tmp_path)
    monkeypatch.chdir(tmp_path)
    return task


def _cli(task: Path, results: str, *extra: str) -> Path:
    outputs = task.parent / "out.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    argv = [
        "score",
        "--outputs",
        str(outputs),
        "--tasks",
        str(task),
        "--results-dir",
        results,
        "--no-progress",
    ]
    assert main([*argv, *extra]) == 0
    (path,) = Path(results).rglob("toy-task.toy.json")
    return path


def _same(a: Path, b: Path) -> None:
    ra, rb = read_result(a), read_result(b)
    assert ra.scores == rb.scores
    assert [q.model_dump() for q in ra.per_query] == [q.model_dump() for q in rb.per_query]
    assert ra.settings == rb.settings and ra.model == rb.model and ra.task == rb.task


@pytest.mark.parametrize("kind", ["dataframe", "records", "dataset", "path"])
def test_score_gives_the_command_lines_numbers(toy: Path, kind: str) -> None:
    reference = _cli(toy, "cli-results", "--toy-min-length", "5")
    answers: object = {
        "dataframe": pd.DataFrame(ROWS),
        "records": [dict(r) for r in ROWS],
        "path": toy.parent / "out.jsonl",
    }.get(kind)
    if kind == "dataset":
        datasets = pytest.importorskip("datasets")
        answers = datasets.Dataset.from_list(ROWS)
    results = benchmark.score(
        answers,
        task=str(toy),
        settings={"toy": {"min_length": 5}},
        results_dir="api-results",
        progress=False,
    )
    assert isinstance(results, benchmark.Results) and len(results) == 1
    (path,) = Path("api-results").rglob("toy-task.toy.json")
    _same(reference, path)
    assert results.results[0].scores == read_result(path).scores


def test_a_task_object_and_a_model_name_for_answers_without_one(toy: Path) -> None:
    frame = pd.DataFrame(ROWS).drop(columns=["model"])
    results = benchmark.score(
        frame, task=benchmark.load_task(toy), model_name="acme/m", results_dir="r", progress=False
    )
    assert results.results[0].model.id == "acme/m"
    # a second call resumes from the checkpoints: the same numbers, nothing rescored
    again = benchmark.score(frame, task=toy, model_name="acme/m", results_dir="r", progress=False)
    assert again.results[0].scores == results.results[0].scores


def test_results_views(toy: Path) -> None:
    results = benchmark.score(pd.DataFrame(ROWS), task=toy, results_dir="r", progress=False)
    per_query = results.to_pandas()
    assert list(per_query["query_id"]) == ["1", "2"]
    assert set(per_query["family"]) == {"toy"} and "word_recall" in per_query.columns
    scores = results.scores()
    primary = scores[scores["primary"]]
    assert len(primary) == 1 and primary.iloc[0]["n"] == 2
    assert {"value", "ci_low", "ci_high"} <= set(scores.columns)
    assert [t["query_id"] for t in results.traces()] == ["1", "2"]
    assert results.traces(family="other") == []
    assert list(results.failures().columns) == ["model", "task", "family", "query_id", "failure"]
    assert results["toy"] == results.results
    with pytest.raises(KeyError):
        results["nope"]
    assert results.incomplete == []
    assert isinstance(results.judge_card_lines(), list)
    # another model's results on the same board: ranked together, as `benchmark leaderboard` would
    other_rows = [dict(r, model="acme/other", answer="nothing relevant") for r in ROWS]
    other = benchmark.score(other_rows, task=toy, results_dir="r", progress=False)
    board = results.leaderboard(other)
    assert sorted(board.tables["toy"]["model"]) == ["acme/m", "acme/other"]
    loaded = benchmark.Results.load("r")
    assert sorted(r.model.id for r in loaded) == ["acme/m", "acme/other"]


def test_plan_counts_and_computes_nothing(toy: Path) -> None:
    found = benchmark.plan(pd.DataFrame(ROWS), task=toy, results_dir="r", progress=False)
    assert isinstance(found, benchmark.DryRun)
    assert found.queries == {("toy-task", "acme/m", "toy"): (2, 0)}
    assert not Path("r").exists() or not list(Path("r").rglob("*.json"))
    benchmark.score(pd.DataFrame(ROWS), task=toy, results_dir="r", progress=False)
    again = benchmark.plan(pd.DataFrame(ROWS), task=toy, results_dir="r", progress=False)
    assert again.queries == {("toy-task", "acme/m", "toy"): (0, 2)}  # the checkpoints hold both


def _cli_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    return capsys.readouterr().err.strip().removeprefix("error: ")


@pytest.mark.parametrize(
    ("flags", "keywords"),
    [
        (["--query-batch", "0"], {"query_batch": 0}),
        (["--max-failure-rate", "2"], {"max_failure_rate": 2.0}),
        (["--metrics", ","], {"metrics": []}),
        (["--metrics", "nope"], {"metrics": ["nope"]}),
        (["--judge-profile", "no-such-profile"], {"judge_profile": "no-such-profile"}),
    ],
)
def test_errors_are_the_command_lines_one_line_messages(
    toy: Path, capsys: pytest.CaptureFixture[str], flags: list[str], keywords: dict[str, object]
) -> None:
    _cli(toy, "warm")  # the outputs file the command line reads
    argv = ["score", "--outputs", str(toy.parent / "out.jsonl"), "--tasks", str(toy), "--no-progress", *flags]
    printed = _cli_error(argv, capsys)
    with pytest.raises(InputError) as err:
        benchmark.score(pd.DataFrame(ROWS), task=toy, progress=False, **keywords)  # type: ignore[arg-type]
    # the same rule in the same words; each door names the argument as its caller wrote it
    (problem,) = err.value.problems
    assert printed.endswith(f": {problem.message}")
    if problem.file == "benchmark.score":  # a keyword's value: named as the call wrote it
        assert problem.field == next(iter(keywords))
        assert f"field '--{problem.field.replace('_', '-')}'" in printed
    else:  # found by a later check both doors share (the profile's name, the family's id)
        assert str(err.value) == printed


def test_bad_records_are_named_by_row_and_field(toy: Path) -> None:
    with pytest.raises(InputError) as err:
        benchmark.score([ROWS[0], {"query_id": "2", "model": "acme/m"}], task=toy, progress=False)
    (problem,) = err.value.problems
    assert (problem.file, problem.line, problem.field) == ("answers", 2, "answer")
    with pytest.raises(InputError) as err:
        benchmark.score([dict(ROWS[0], query_id="99")], task=toy, progress=False)
    assert "is not in task toy-task" in str(err.value) and err.value.problems[0].field == "query_id"
    with pytest.raises(InputError, match="not one dict"):
        benchmark.score(ROWS[0], task=toy, progress=False)
    with pytest.raises(InputError, match="no such task"):
        benchmark.score(ROWS, task="no-such-task", progress=False)


def test_run_options_are_declared_once() -> None:
    """The flags come from the model: the defaults an empty command line gives are the
    model's, and no command declares --seed or --query-batch by hand."""
    from benchmark.api import RunOptions, ScoringConfig
    from benchmark.cli.common import run_options, scoring_config
    from benchmark.cli.main import build_parser

    args = build_parser().parse_args(["score", "--outputs", "x.jsonl", "--tasks", "t"])
    assert run_options(args).model_dump(exclude={"command"}) == RunOptions().model_dump(exclude={"command"})
    assert scoring_config(args) == ScoringConfig()
    cli = Path(benchmark.__file__).parent / "cli"
    declared = [
        p.name for p in cli.glob("*.py") if '"--seed"' in p.read_text() or '"--query-batch"' in p.read_text()
    ]
    assert declared == ["meta_eval.py"]  # its --seed is the ties' seed, not a scoring run's


def test_the_judge_llms_backend_arguments_are_typed() -> None:
    """``llm.args`` is a model: a wrong type is refused when the profile loads, a field
    reads as an attribute, and only what the profile set is recorded (so results and cache
    identities stay what the YAML says)."""
    from pydantic import ValidationError

    from benchmark.models.profiles import LLMArgs, LLMSpec

    spec = LLMSpec(backend="openai", model="m", args={"base_url": "http://x/v1", "max_concurrency": 8})
    assert isinstance(spec.args, LLMArgs) and spec.args.max_concurrency == 8 and spec.args.timeout is None
    assert spec.model_dump()["args"] == {"base_url": "http://x/v1", "max_concurrency": 8}
    with pytest.raises(ValidationError, match="max_concurrency"):
        LLMSpec(backend="openai", model="m", args={"max_concurrency": "many"})
    engine = LLMSpec(backend="vllm", model="m", args={"gpu_memory_utilization": 0.5})
    assert engine.args.as_dict() == {"gpu_memory_utilization": 0.5}  # vLLM engine arguments pass through
