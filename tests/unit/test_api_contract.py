"""The Python API's contract: every argument checked before any work, one line per problem.

A misspelt keyword, family, setting or input file is never dropped: it is an
:class:`InputError` naming the closest one that exists.  A value of the wrong type is refused
in words, not as a raw ``TypeError`` from deep inside.  Answers of two models in one frame
are scored as two entries.  The toy family (``tests/toy_family``) scores with no model.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import benchmark
from benchmark.core.errors import InputError
from tests.helpers.toy import toy_task
from tests.unit.test_api import ROWS, toy  # noqa: F401  (the fixture)


def _problems(call: Any) -> list[str]:
    with pytest.raises(InputError) as err:
        call()
    return [str(p) for p in err.value.problems]


@pytest.mark.parametrize(
    ("keywords", "says"),
    [
        ({"settings": {"toyy": {}}}, "unknown metric family in settings 'toyy' (did you mean 'toy'?)"),
        ({"settings": {"icat": {"betta": 2.0}}}, "unknown icat setting 'betta' (did you mean 'beta'?)"),
        ({"settings": ["subq"]}, "settings must map family ids to their settings"),
        ({"files": {"nugetts": "n.jsonl"}}, "unknown input file 'nugetts' (did you mean 'nuggets'?)"),
        ({"files": "n.jsonl"}, "files must map input names to paths"),
        ({"metrics": 5}, "metrics must be family ids"),
        ({"metric": ["toy"]}, "unknown keyword 'metric' (did you mean 'metrics'?)"),
        ({"query_bach": 2}, "unknown keyword 'query_bach' (did you mean 'query_batch'?)"),
        ({"judge_url": 8001}, "judge_url must be a string"),
        ({"judge_url": "http://me:s3cret@127.0.0.1:8001/v1"}, "give the key in OPENAI_API_KEY instead"),
        ({"options": {"seed": 1}}, "options must be a RunOptions"),
        ({"ray": "local"}, "ray must be a RayOptions"),
        ({"model_name": 3}, "model_name must be a model id"),
        ({"truncate": "no"}, "must be True or False"),
        ({"results_dir": "/proc/forbidden/r"}, "cannot write here"),
    ],
)
def test_a_bad_keyword_is_refused_in_words_before_any_work(
    toy: Path,  # noqa: F811
    keywords: dict[str, Any],
    says: str,
) -> None:
    for fn in (benchmark.score, benchmark.plan) if "ray" not in keywords else (benchmark.score,):
        found = _problems(lambda fn=fn: fn(pd.DataFrame(ROWS), task=toy, progress=False, **keywords))
        assert any(says in p for p in found), (fn.__name__, found)
    assert not list(Path(".").rglob("*.json"))  # nothing was scored


@pytest.mark.parametrize("task", [None, 7, "", ["toy-task"]])
def test_a_task_that_is_no_task_is_refused(toy: Path, task: Any) -> None:  # noqa: F811
    found = _problems(lambda: benchmark.score(ROWS, task=task, progress=False))
    assert any("task must be a task id, a task folder or a Task" in p for p in found), found


def test_every_problem_of_a_call_is_said_at_once(toy: Path) -> None:  # noqa: F811
    found = _problems(
        lambda: benchmark.score(
            ROWS, task=None, metrics=5, query_bach=1, settings={"toyy": {}}, progress=False
        )
    )
    assert len(found) == 4, found


def test_numpy_ids_are_ids_and_a_column_twice_is_refused(toy: Path) -> None:  # noqa: F811
    frame = pd.DataFrame(ROWS).assign(query_id=np.array([1, 2], dtype=np.int64))
    results = benchmark.score(frame, task=toy, progress=False)
    assert {q.query_id for q in results.results[0].per_query} == {"1", "2"}
    twice = pd.concat([pd.DataFrame(ROWS), pd.DataFrame({"answer": ["x", "y"]})], axis=1)
    assert any(
        "['answer'] appear more than once" in p for p in _problems(lambda: benchmark.score(twice, task=toy))
    )


def test_rows_without_a_model_say_so_once_and_name_model_name(toy: Path) -> None:  # noqa: F811
    rows = [{k: v for k, v in r.items() if k != "model"} for r in ROWS]
    (problem,) = _problems(lambda: benchmark.score(rows, task=toy, progress=False))
    assert "2 row(s) name no model" in problem and "model_name=" in problem
    assert benchmark.score(rows, task=toy, model_name="acme/m", progress=False).complete


def test_two_models_in_one_frame_are_scored_as_two_entries_and_ranked(toy: Path) -> None:  # noqa: F811
    frame = pd.DataFrame([*ROWS, *({**r, "model": "acme/other", "answer": "Storms."} for r in ROWS)])
    results = benchmark.score(frame, task=toy, progress=False)
    assert sorted(r.model.id for r in results) == ["acme/m", "acme/other"]
    table = results.leaderboard().tables["toy"]
    assert sorted(table["model"]) == ["acme/m", "acme/other"] and table["rank"].notna().all()
    assert "acme/other" in repr(results.leaderboard())  # a notebook shows the board, not a dump
    assert "<table" in results.leaderboard()._repr_html_()


@pytest.mark.parametrize(
    ("keywords", "says", "fld"),
    [
        ({"model": "gpt4"}, "no model backend 'gpt4'", "model"),
        ({"model": "hf", "model_args": "{bad"}, "", "model_args"),
        (
            {"model": "hf", "model_args": {"pretrained": "x"}, "batch_size": 0},
            "use a whole number of at least 1",
            "batch_size",
        ),
        (
            {"model": "hf", "model_args": {"pretrained": "x"}, "gen_kwargs": 5},
            "gen_kwargs must be",
            "gen_kwargs",
        ),
        ({"model": 7}, "model must be a backend name", "model"),
        ({"model": "hf", "tasks": 7}, "tasks must be", "tasks"),
    ],
)
def test_evaluate_checks_its_model_before_anything_loads(
    toy: Path,  # noqa: F811
    keywords: dict[str, Any],
    says: str,
    fld: str,
) -> None:
    arguments = {"tasks": [str(toy)], **keywords}
    with pytest.raises(InputError) as err:
        benchmark.evaluate(arguments.pop("model"), progress=False, **arguments)
    (problem,) = err.value.problems
    assert problem.file == "benchmark.evaluate" and problem.field == fld and says in problem.message
    assert not Path("outputs").exists()


def test_the_keywords_are_declared_once_and_shown_by_help() -> None:
    for fn in (benchmark.score, benchmark.plan, benchmark.evaluate):
        params = inspect.signature(fn).parameters
        for name in ("judge_profile", "metrics", "corpus", "files", "results_dir", "retry_failed", "seed"):
            assert name in params, (fn.__name__, name)
        assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_an_options_object_never_beats_an_explicit_keyword(toy: Path) -> None:  # noqa: F811
    opts = benchmark.RunOptions(seed=11, progress=False, results_dir=Path("from-options"))
    results = benchmark.score(ROWS, task=toy, options=opts, seed=3)
    assert results.results[0].statistics.seed == 3
    assert all(
        Path(p).is_relative_to(Path("from-options").resolve()) or "from-options" in str(p)
        for p in results.paths
    )


def test_from_records_refuses_an_unknown_keyword_with_the_closest(tmp_path: Path) -> None:
    found = _problems(
        lambda: benchmark.Task.from_records(
            "t", out_dir=tmp_path / "t", queries=[{"query_id": "1", "text": "q"}], nugets=[]
        )
    )
    assert found == ["Task.from_records, field 'nugets': unknown keyword 'nugets' (did you mean 'nuggets'?)"]
    found = _problems(
        lambda: benchmark.Task.from_records("t", out_dir="/proc/forbidden/t", queries=toy_task(tmp_path))
    )
    assert any("cannot write here" in p and "out_dir" in p for p in found), found


def test_progress_false_keeps_a_notebook_quiet(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    capsys.readouterr()
    benchmark.score(ROWS, task=toy, progress=False)
    out = capsys.readouterr()
    assert "wrote" not in out.err + out.out and "Loading" not in out.err + out.out
    benchmark.score(ROWS, task=toy, progress=True, results_dir="loud")
    assert "wrote" in capsys.readouterr().err


def test_a_failed_query_is_nan_out_of_n_and_an_incomplete_result_raises(
    toy: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The toy judge made to fail on one answer of two: the API raises by default, returns the
    result with ``complete`` False when asked, gives NaN (never 0) for the failed query and
    leaves it out of ``n``; a rate that tolerates one failure in two ranks it."""
    import groundcover_toy_family.pipeline as toy_pipeline

    real = toy_pipeline.score_batch

    def failing(state: Any, items: Any) -> Any:
        traces = real(state, items)
        for t in traces:
            if "UNUSABLE" in t.answer:
                t.scores = dict.fromkeys(t.scores)
                t.failures = ["toy: the judge's reply could not be used"]
        return traces

    monkeypatch.setattr(toy_pipeline, "score_batch", failing)
    rows = [ROWS[0], {**ROWS[1], "answer": "UNUSABLE"}]
    with pytest.raises(benchmark.IncompleteResults):
        benchmark.score(rows, task=toy, progress=False)
    results = benchmark.score(rows, task=toy, progress=False, raise_incomplete=False, results_dir="r2")
    assert not results.complete and results.incomplete
    frame = results.to_pandas().set_index("query_id")
    score_columns = [c for c in frame.columns if c not in ("model", "task", "family", "failed", "failures")]
    assert frame.loc["2", score_columns].isna().all() and bool(frame.loc["2", "failed"])
    assert frame.loc["1", score_columns].notna().any()
    scores = results.scores()
    assert (scores["n"] == 1).all() and (scores["failed"] == 1).all() and scores["withheld"].notna().all()
    assert scores["value"].isna().all()  # a withheld score is no number, even here
    tolerant = benchmark.score(rows, task=toy, progress=False, max_failure_rate=0.5, results_dir="r3")
    assert tolerant.complete and tolerant.scores()["value"].notna().all()
    assert tolerant.leaderboard().tables["toy"]["n"].tolist() == [1]
