"""Conformance with castorini's nuggetizer (the pinned dev dependency): its own metric code
and groundcover's reader and formulas, side by side on the very same files.

nuggetizer scores an assignment file with ``scripts/calculate_metrics.py``: it reads the
JSON lines, calls ``nuggetizer.core.metrics.calculate_nugget_scores`` on each record and
``calculate_global_metrics`` on all of them (the script is not installed with the package;
:func:`nuggetizer_metrics` makes the same two calls of the installed package).  The track
writes one assignment file per run, so a file's global line is the run's mean.

On every file, including the edge cases — nuggetizer's ``"failed"`` assignments and
importance labels, one run answering a topic on two lines, a topic with an empty nugget
list, a topic without vital nuggets — ``--nuggetizer-compatible`` gives nuggetizer's
numbers per topic and per run, and the default gives the departures
``docs/conformance.md`` (section nuggetizer) lists, each checked here.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from benchmark.core.errors import InputError
from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.nuggetizer_files import read_assignments, score_assignments

metrics = pytest.importorskip("nuggetizer.core.metrics", reason="pip install -e '.[dev]' (nuggetizer)")

#: groundcover's score -> nuggetizer's field
NAMES = {
    "vital_strict": "strict_vital_score",
    "vital_partial": "vital_score",
    "all_strict": "strict_all_score",
    "all_partial": "all_score",
}

S, P, N, F = "support", "partial_support", "not_support", "failed"

#: (qid, [(importance, assignment)]) per run: one assignment file each, as the track writes them
RUNS: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {
    "run-a": [
        ("t1", [("vital", S), ("vital", N), ("okay", P), ("okay", S), ("vital", P)]),
        ("t2", [("okay", S), ("okay", P), ("okay", N)]),  # no vital nugget
        ("t3", [("vital", S), ("vital", F), ("okay", S)]),  # an assignment failed
        ("t4", [("vital", S), (F, S), ("okay", N), ("vital", N)]),  # an importance failed
        ("t5", []),  # an empty nugget list
        ("t6", [("vital", P), ("okay", N)]),
    ],
    "run-b": [
        ("t1", [("vital", N), ("vital", N), ("okay", S), ("okay", S), ("vital", S)]),
        ("t2", [("okay", N), ("okay", N), ("okay", S)]),
        ("t3", [("vital", F), ("vital", F), ("okay", F)]),  # a whole window failed
        ("t4", [("vital", P), (F, N), ("okay", S), ("vital", S)]),
        ("t5", []),
        ("t6", [("vital", S), ("okay", S)]),
    ],
}
#: the same run answering t1 twice, and t6 three times
DUPLICATED = [
    ("t1", [("vital", S), ("okay", N)]),
    ("t6", [("vital", N)]),
    ("t1", [("vital", N), ("okay", N)]),
    ("t2", [("okay", S)]),
    ("t6", [("vital", S)]),
    ("t6", [("vital", P)]),
]

#: labels outside nuggetizer's prompts' vocabulary, as it writes an LLM's reply (lowercased)
UNKNOWN = [
    ("t1", [("vital", "supported"), ("vital", S), ("important", S), ("okay", "partially")]),
    ("t2", [("vital", P), ("okay", S)]),
]


#: null labels and other JSON values: nuggetizer counts a null assignment as not supported
#: and a null (or any non-"vital") importance as okay
NULLS: list[tuple[str, list[tuple[Any, Any]]]] = [
    ("t1", [("vital", None), ("vital", S), (None, S), (None, P), ("okay", None)]),
    ("t2", [(None, S), (None, None)]),  # no vital nugget once null is read as okay
    ("t3", [("vital", P), (1, S), ("vital", 0), ("okay", ["support"])]),
]


def write_assignment_file(path: Path, run: str, rows: list[tuple[str, list[tuple[Any, Any]]]]) -> Path:
    """An assignment file as nuggetizer's assign writes it (answers mode)."""
    lines = [
        {"query": f"query {qid}", "qid": qid, "answer_text": f"{run} on {qid}", "response_length": 3,
         "run_id": run,
         "nuggets": [{"text": f"{qid} fact {k}.", "importance": imp, "assignment": lab}
                     for k, (imp, lab) in enumerate(ns, start=1)]}
        for qid, ns in rows
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def nuggetizer_metrics(path: Path) -> tuple[list[tuple[str, dict[str, float]]], dict[str, float]]:
    """What nuggetizer's calculate_metrics.py computes on an assignment file: per record
    (qid, its four scores), and the global means, by the installed package's own functions."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    per = [metrics.calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records]
    glob = metrics.calculate_global_metrics(records)
    return (
        [(m.qid, {ours: getattr(m, theirs) for ours, theirs in NAMES.items()}) for m in per],
        {ours: glob[theirs] for ours, theirs in NAMES.items()},
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {run: write_assignment_file(tmp_path / f"{run}.jsonl", run, rows) for run, rows in RUNS.items()}
    out["dup"] = write_assignment_file(tmp_path / "dup.jsonl", "run-d", DUPLICATED)
    out["unknown"] = write_assignment_file(tmp_path / "unknown.jsonl", "run-u", UNKNOWN)
    out["null"] = write_assignment_file(tmp_path / "null.jsonl", "run-n", NULLS)
    return out


# -- assignment files: nuggetizer's metrics against score-assignments ----------------------------


@pytest.mark.parametrize("name", ["run-a", "run-b", "dup", "unknown", "null"])
def test_compatible_mode_equals_nuggetizer_per_topic_and_per_run(files: dict[str, Path], name: str) -> None:
    path = files[name]
    theirs_per, theirs_run = nuggetizer_metrics(path)
    (run,) = score_assignments(read_assignments(path, nuggetizer_compatible=True), compatible=True).values()
    assert len(run.records) == len(theirs_per)  # every line is a record, as nuggetizer's
    for (qid, theirs), (key, ours) in zip(theirs_per, run.records.items(), strict=True):
        assert key.split(" ")[0] == qid
        assert ours == pytest.approx(theirs), key
    for key in formulas.SCORES:
        assert run.mean(key) == pytest.approx(theirs_run[key]), key
        assert run.failed(key) == 0


def test_the_default_departs_where_docs_conformance_says(files: dict[str, Path]) -> None:
    """Per topic, the default gives nuggetizer's number or no number, never another one:
    no vital score without vital nuggets, no score for an empty list (and no failure: it is
    the file's problem), a failure where nuggetizer's judgement failed."""
    theirs_per, _ = nuggetizer_metrics(files["run-a"])
    theirs = dict(theirs_per)
    (run,) = score_assignments(read_assignments(files["run-a"])).values()
    ours = run.records
    assert ours["t1"] == pytest.approx(theirs["t1"]) and ours["t6"] == pytest.approx(theirs["t6"])
    # no vital nugget: nuggetizer says 0.0, the default has no vital score (not a failure)
    assert theirs["t2"]["vital_strict"] == 0.0 and ours["t2"]["vital_strict"] is None
    assert ours["t2"]["all_partial"] == theirs["t2"]["all_partial"] == 0.5
    assert "t2" not in run.failures
    # a failed assignment: nuggetizer counts it as not supported; the default, a failure
    assert theirs["t3"]["vital_strict"] == 0.5 and ours["t3"] == dict.fromkeys(formulas.SCORES)
    assert run.failures["t3"] == ["assignment: 1 nugget(s) labelled 'failed' (nuggetizer's judgement failed)"]
    # a failed importance: nuggetizer counts it as okay; the default, vital undetermined, all kept
    assert theirs["t4"]["vital_strict"] == 0.5 and ours["t4"]["vital_strict"] is None
    assert ours["t4"]["all_strict"] == theirs["t4"]["all_strict"] == 0.5
    assert run.failures["t4"][0].startswith("importance: 1 nugget(s)")
    # an empty nugget list: nuggetizer says 0.0 four times; the default has no score and no failure
    assert theirs["t5"] == dict.fromkeys(formulas.SCORES, 0.0) and ours["t5"] == dict.fromkeys(
        formulas.SCORES
    )
    assert "t5" not in run.failures
    # run means over the topics that have the score; failures counted beside them
    assert run.mean("vital_strict") == pytest.approx(
        mean([ours["t1"]["vital_strict"], ours["t6"]["vital_strict"]])
    )
    assert run.mean("all_strict") == pytest.approx(
        mean(ours[q]["all_strict"] for q in ("t1", "t2", "t4", "t6"))  # type: ignore[type-var]
    )
    assert run.failed("vital_strict") == 2 and run.failed("all_strict") == 1


def test_one_run_answering_a_topic_twice_is_refused_naming_both_lines(files: dict[str, Path]) -> None:
    """nuggetizer counts every line (t1 twice, t6 three times in the run's mean); the default
    refuses the file, naming both lines of each repeat; compatible mode counts as nuggetizer."""
    with pytest.raises(InputError) as err:
        read_assignments(files["dup"])
    where = [(p.line, p.field) for p in err.value.problems]
    assert where == [(3, "qid"), (5, "qid"), (6, "qid")]
    messages = [p.message for p in err.value.problems]
    assert "run 'run-d' answers topic 't1' on lines 1 and 3" in messages[0]
    assert "lines 2 and 5" in messages[1] and "lines 2 and 6" in messages[2]
    assert all("--nuggetizer-compatible" in m for m in messages)
    _, theirs = nuggetizer_metrics(files["dup"])
    assert theirs["vital_strict"] == pytest.approx(mean([1, 0, 0, 0, 1, 0]))  # every line one record


def test_a_label_outside_nuggetizers_vocabulary_is_refused_by_default(files: dict[str, Path]) -> None:
    """nuggetizer counts an unknown assignment as not supported and an unknown importance as
    okay; the default refuses the file, naming line and field (compatible: as nuggetizer)."""
    with pytest.raises(InputError) as err:
        read_assignments(files["unknown"])
    where = [(p.line, p.field) for p in err.value.problems]
    assert where == [(1, "nuggets[0].assignment"), (1, "nuggets[2].importance"), (1, "nuggets[3].assignment")]
    (theirs, _), _ = nuggetizer_metrics(files["unknown"])
    assert theirs == (
        "t1",
        {"vital_strict": 0.5, "vital_partial": 0.5, "all_strict": 0.5, "all_partial": 0.5},
    )


def test_a_null_label_is_refused_by_default_and_read_as_nuggetizer_reads_it_when_compatible(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """nuggetizer: a null assignment is not supported, a null importance okay.  The default
    refuses each, naming line and field; --nuggetizer-compatible gives nuggetizer's number
    (the equality is test_compatible_mode_equals_nuggetizer_per_topic_and_per_run[null]).
    A missing key stops nuggetizer's metrics (KeyError) and is refused in every mode."""
    with pytest.raises(InputError) as err:
        read_assignments(files["null"])
    where = {(p.line, p.field) for p in err.value.problems}
    assert {(1, "nuggets[0].assignment"), (1, "nuggets[2].importance"), (2, "nuggets[0].importance")} <= where
    per, _ = nuggetizer_metrics(files["null"])
    assert per[0] == (
        "t1",
        {"vital_strict": 0.5, "vital_partial": 0.5, "all_strict": 0.4, "all_partial": 0.5},
    )
    no_key = tmp_path / "no-key.jsonl"
    no_key.write_text(
        json.dumps({"qid": "t1", "nuggets": [{"text": "A fact.", "importance": "vital"}]}) + "\n"
    )
    for compatible in (False, True):
        with pytest.raises(InputError, match=r"line 1, field 'nuggets\[0\].assignment'"):
            read_assignments(no_key, nuggetizer_compatible=compatible)


def test_score_assignments_prints_nuggetizers_run_means(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmark.cli.main import main

    monkeypatch.setenv("COLUMNS", "240")  # the notes on one line each

    _, theirs = nuggetizer_metrics(files["run-b"])
    assert (
        main(
            ["nuggets", "score-assignments", "--assignments", str(files["run-b"]), "--nuggetizer-compatible"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "nuggetizer-compatible" in out and f"{theirs['all_partial']:.3f}" in out
    assert main(["nuggets", "score-assignments", "--assignments", str(files["run-b"])]) == 0
    out = capsys.readouterr().out
    assert "vital_strict · run-b: 2 answer(s) undetermined by a failed judgement (not 0)" in out
    assert "3 assignment(s), 1 importance label(s) — each a failure of its answer" in out
    assert (
        out.count("empty nugget list (t5): a problem of the nugget file — their answers have no score") == 1
    )


# -- scoring answers against a nugget file: results, exported, scored by nuggetizer ---------------

#: a nugget file nuggetizer's creation could write: (qid, [(text, importance)])
NUGGET_FILE = [
    ("t1", [("Figs grow on trees.", "vital"), ("Figs are sweet.", "vital"), ("Figs are old.", "okay")]),
    ("t2", [("Tornadoes spin.", "okay"), ("Tornado Alley is central.", "okay")]),  # no vital nugget
    ("t4", [("Bees make honey.", "vital"), ("Bees dance.", F), ("Bees sting.", "okay")]),
    ("t5", []),  # creation found nothing
]
#: what each run's answer is judged to say about each nugget
LABELS = {
    "ALPHA": {"Figs grow on trees.": S, "Figs are sweet.": P, "Figs are old.": N, "Tornadoes spin.": S,
              "Tornado Alley is central.": P, "Bees make honey.": N, "Bees dance.": S, "Bees sting.": S},
    "BETA": {"Figs grow on trees.": N, "Figs are sweet.": N, "Figs are old.": S, "Tornadoes spin.": N,
             "Tornado Alley is central.": N, "Bees make honey.": S, "Bees dance.": N, "Bees sting.": P},
}  # fmt: skip


def _reply(messages: list[dict[str, str]]) -> str:
    turn = messages[-1]["content"]
    run = "ALPHA" if "ALPHA" in turn else "BETA"
    facts = [ln.split(". ", 1)[1] for ln in turn.split("Facts:", 1)[1].splitlines() if ln[:1].isdigit()]
    return "\n".join(f"{i}: {LABELS[run][f]}" for i, f in enumerate(facts, start=1))


def _score(tmp_path: Path, compatible: bool) -> tuple[dict[str, Any], Path]:
    """Both runs scored on the nugget file with the LLM assigner; their results and traces."""
    from benchmark.core.results import ModelInfo
    from benchmark.families import REGISTRY
    from benchmark.families.base import ScoringInputs
    from benchmark.families.nuggets.family import NuggetsSettings
    from benchmark.scoring.runner import RunOptions, score_task
    from benchmark.tasks import load_task
    from tests.helpers import build_tiny_task
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    tmp_path.mkdir(parents=True, exist_ok=True)
    nuggets = tmp_path / "nuggets.jsonl"
    nuggets.write_text(
        "".join(
            json.dumps(
                {"qid": q, "query": f"query {q}", "nuggets": [{"text": t, "importance": i} for t, i in ns]}
            )
            + "\n"
            for q, ns in NUGGET_FILE
        ),
        encoding="utf-8",
    )
    task = load_task(
        build_tiny_task(
            tmp_path, [(q, f"query {q}") for q, _ in NUGGET_FILE], task_id="conf", metrics=["nuggets"]
        )
    )
    stack = fake_stack(llm=FakeLLM(_reply), entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    root = tmp_path / ("compatible" if compatible else "default")
    results = {}
    for run in ("ALPHA", "BETA"):
        results[run], _ = score_task(
            REGISTRY["nuggets"], task, {q: f"The {run} answer about {q}." for q, _ in NUGGET_FILE}, stack,
            model=ModelInfo(id=f"acme/{run.lower()}"), results_root=root,
            inputs=ScoringInputs(files={"nuggets": str(nuggets)}),
            settings=NuggetsSettings(assigner="llm", nuggetizer_compatible=compatible),
            options=RunOptions(progress=False),
        )  # fmt: skip
    return results, root


def test_compatible_results_equal_nuggetizer_on_their_exported_assignment_files(tmp_path: Path) -> None:
    """Results scored --nuggetizer-compatible, exported per run as nuggetizer assignment files
    (export-assignments), scored by nuggetizer: the same number per topic and per run."""
    from benchmark.cli.main import main

    results, root = _score(tmp_path, compatible=True)
    for run, result in results.items():
        out = tmp_path / f"{run}.jsonl"
        folder = next(root.glob(f"acme__{run.lower()}"))
        assert main(["nuggets", "export-assignments", "--results", str(folder), "--out", str(out)]) == 0
        theirs_per, theirs_run = nuggetizer_metrics(out)
        assert sorted(q for q, _ in theirs_per) == ["t1", "t2", "t4", "t5"]  # the empty list's line too
        ours = {q.query_id: q.scores for q in result.per_query}
        for qid, theirs in theirs_per:
            assert ours[qid] == pytest.approx(theirs), qid
        for key in formulas.SCORES:
            assert result.scores[key].value == pytest.approx(theirs_run[key]), (run, key)
            assert result.scores[key].n == 4 and result.scores[key].failed == 0
        assert result.board_settings == {"assigner": "llm", "nuggetizer_compatible": True}
        assert any("t5" in n and "scored 0, as nuggetizer does" in n for n in result.notes)


def test_default_results_depart_as_documented_and_never_share_a_board(tmp_path: Path) -> None:
    results, _ = _score(tmp_path, compatible=False)
    compatible, _ = _score(tmp_path / "c", compatible=True)
    for run, result in results.items():
        by_q = {q.query_id: q for q in result.per_query}
        # the empty list: no score, and no failed query — noted once, as the file's problem
        assert by_q["t5"].scores == dict.fromkeys(formulas.SCORES) and not by_q["t5"].failures
        assert not by_q["t5"].failed and "t5" not in result.failed_queries
        assert sum("empty nugget list (t5 on line 4)" in n for n in result.notes) == 1
        # no vital nugget: no vital score, not a failure
        assert by_q["t2"].scores["vital_strict"] is None and not by_q["t2"].failures
        # a failed importance: vital undetermined and counted failed; all scores kept
        assert by_q["t4"].scores["vital_strict"] is None and by_q["t4"].scores["all_strict"] is not None
        assert by_q["t4"].failures[0].startswith("importance: 1 nugget(s)")
        assert result.scores["vital_strict"].failed == 1 and result.scores["vital_strict"].n == 1
        assert result.scores["all_strict"].n == 3 and result.scores["all_strict"].failed == 0
        assert result.settings == {"assigner": "llm"} and result.board_settings == {"assigner": "llm"}
        ours, theirs = result.board_key(), compatible[run].board_key()
        assert [k for k, (x, y) in enumerate(zip(ours, theirs, strict=True)) if x != y] == [
            6
        ]  # board_settings
        # where both give a number, it is the same one
        for q in ("t1", "t2", "t4"):
            for key, v in by_q[q].scores.items():
                if v is not None:
                    assert v == pytest.approx(
                        {p.query_id: p for p in compatible[run].per_query}[q].scores[key]
                    )


def test_candidates_count_when_judged_relevant_as_in_nuggetizers_creation(tmp_path: Path) -> None:
    """nuggetizer's create input keeps a candidate when ``judgment > 0``; so does --candidates,
    and --judgment-above moves the threshold ('none': every candidate)."""
    from benchmark.families.nuggets.commands import read_candidates

    path = tmp_path / "create.jsonl"
    cands = [
        {"docid": "d0", "doc": {"segment": "Not relevant."}, "judgment": 0},
        {"docid": "d1", "doc": {"segment": "Relevant."}, "judgment": 1},
        {"docid": "d2", "doc": {"segment": "Very relevant."}, "judgment": 3},
        {"docid": "d3", "doc": {"segment": "Unjudged."}},
        "A bare string.",
    ]
    path.write_text(json.dumps({"query": {"qid": "q1", "text": "figs"}, "candidates": cands}) + "\n")
    assert read_candidates(path) == [("q1", "figs", ["Relevant.", "Very relevant."])]
    assert read_candidates(path, above=1) == [("q1", "figs", ["Very relevant."])]
    assert read_candidates(path, above=None)[0][2] == [
        "Not relevant.", "Relevant.", "Very relevant.", "Unjudged.", "A bare string.",
    ]  # fmt: skip
    path.write_text(
        json.dumps(
            {"query": {"qid": "q1", "text": "f"}, "candidates": [{"doc": {"segment": "x"}, "judgment": "2"}]}
        )
        + "\n"
    )
    with pytest.raises(InputError, match=r"candidates\[0\].judgment"):
        read_candidates(path)


def test_the_judgment_flag_parses(tmp_path: Path) -> None:
    from benchmark.cli.main import build_parser

    def parsed(*extra: str) -> Any:
        return build_parser().parse_args(["nuggets", "generate", "--out", "x", *extra]).judgment_above

    assert (
        parsed() == 0.0
        and parsed("--judgment-above", "2") == 2.0
        and parsed("--judgment-above", "none") is None
    )
    with pytest.raises(InputError, match="a number or 'none', not 'high'"):
        parsed("--judgment-above", "high")
