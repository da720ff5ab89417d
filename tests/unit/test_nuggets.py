"""The nugget family: the TREC RAG track's four scores by hand, side by side with castorini's
nuggetizer, its file formats both ways, and the two assignment judges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmark.core.errors import InputError
from benchmark.families import base as family_base
from benchmark.families.nuggets import formulas
from benchmark.families.nuggets.judges import EntailmentAssigner, LLMAssigner, parse_labels
from benchmark.families.nuggets.nuggetizer_files import (
    Nugget,
    read_assignments,
    read_nuggets,
    write_assignments,
    write_nuggets,
)
from benchmark.tasks import Task, load_task
from tests.helpers import build_tiny_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

# -- the formulas, by hand -------------------------------------------------------------------


def test_four_scores_by_hand() -> None:
    imp = ["vital", "vital", "okay", "okay"]
    got = formulas.nugget_scores(imp, ["support", "partial_support", "partial_support", "not_support"])
    assert got == {"vital_strict": 0.5, "vital_partial": 0.75, "all_strict": 0.25, "all_partial": 0.5}


def test_a_topic_without_vital_nuggets_has_no_vital_score() -> None:
    got = formulas.nugget_scores(["okay", "okay"], ["support", "partial_support"])
    assert got["vital_strict"] is None and got["vital_partial"] is None  # nuggetizer says 0.0
    assert got["all_strict"] == 0.5 and got["all_partial"] == 0.75


def test_a_failed_assignment_leaves_every_score_undetermined_never_zero() -> None:
    got = formulas.nugget_scores(["vital", "okay"], ["support", None])
    assert got == dict.fromkeys(formulas.SCORES)
    assert formulas.nugget_scores([], []) == dict.fromkeys(formulas.SCORES)


def test_nuggetizers_failed_judgements_and_its_compatible_mode() -> None:
    """nuggetizer's "failed": an assignment leaves every score undetermined, an importance
    the vital ones; --nuggetizer-compatible counts them its way (not supported, okay), and 0.0
    where there is nothing to share — but our own failed judgement (None) never."""
    assert formulas.nugget_scores(["vital", "okay"], ["support", "failed"]) == dict.fromkeys(formulas.SCORES)
    got = formulas.nugget_scores(["failed", "vital"], ["support", "not_support"])
    assert got["vital_strict"] is None and got["all_strict"] == 0.5
    assert (
        formulas.nugget_scores(["vital", "okay"], ["support", "failed"], compatible=True)["all_strict"] == 0.5
    )
    assert (
        formulas.nugget_scores(["failed", "vital"], ["support", "support"], compatible=True)["vital_strict"]
        == 1.0
    )
    assert formulas.nugget_scores(["okay"], ["support"], compatible=True)["vital_partial"] == 0.0
    assert formulas.nugget_scores([], [], compatible=True) == dict.fromkeys(formulas.SCORES, 0.0)
    assert formulas.nugget_scores(["vital"], [None], compatible=True) == dict.fromkeys(formulas.SCORES)


# -- side by side with nuggetizer --------------------------------------------------------------

ASSIGNED = [  # (qid, run, [(text, importance, assignment)])
    ("q1", "run-a", [("Fact one.", "vital", "support"), ("Fact two.", "vital", "not_support"),
                     ("Fact three.", "okay", "partial_support")]),
    ("q2", "run-a", [("Fact four.", "vital", "partial_support"), ("Fact five.", "okay", "support"),
                     ("Fact six.", "okay", "not_support"), ("Fact seven.", "vital", "partial_support")]),
    ("q3", "run-a", [("Only okay.", "okay", "support")]),
]  # fmt: skip


def _assignment_file(path: Path) -> Path:
    lines = [
        {"query": f"query {q}", "qid": q, "answer_text": "an answer", "response_length": 2, "run_id": run,
         "nuggets": [{"text": t, "importance": i, "assignment": a} for t, i, a in ns]}
        for q, run, ns in ASSIGNED
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_the_four_scores_equal_nuggetizers_own_metric_functions(tmp_path: Path) -> None:
    """On one assignment file, groundcover's per-topic scores equal what the nuggetizer
    package computes; the one difference is documented: a topic without vital nuggets."""
    metrics = pytest.importorskip("nuggetizer.core.metrics", reason="pip install nuggetizer (a dev extra)")
    path = _assignment_file(tmp_path / "assignments.jsonl")
    ours = {
        a.query_id: formulas.nugget_scores([n.importance for n in a.nuggets], list(a.labels))
        for a in read_assignments(path)
    }
    records = [json.loads(line) for line in path.read_text().splitlines()]
    theirs = {r["qid"]: metrics.calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records}
    names = {"vital_strict": "strict_vital_score", "vital_partial": "vital_score",
             "all_strict": "strict_all_score", "all_partial": "all_score"}  # fmt: skip
    for qid in ("q1", "q2"):
        for ours_key, their_key in names.items():
            assert ours[qid][ours_key] == pytest.approx(getattr(theirs[qid], their_key)), (qid, ours_key)
    assert ours["q3"]["vital_strict"] is None and theirs["q3"].strict_vital_score == 0.0
    assert ours["q3"]["all_strict"] == theirs["q3"].strict_all_score == 1.0
    # macro averages over the topics both define
    glob = metrics.calculate_global_metrics([r for r in records if r["qid"] != "q3"])
    assert (ours["q1"]["all_partial"] + ours["q2"]["all_partial"]) / 2 == pytest.approx(glob["all_score"])


# -- files, both ways ----------------------------------------------------------------------------


def test_nugget_and_assignment_files_round_trip(tmp_path: Path) -> None:
    nuggets = {
        "q1": [Nugget("q1", "q1/n1", "Fact one.", "vital", "imported: n.jsonl"),
               Nugget("q1", "q1/n2", "Fact two.", "okay", "imported: n.jsonl")],
        "7": [Nugget("7", "7/n1", "Fakt — ü.", "vital", "imported: n.jsonl")],
    }  # fmt: skip
    path = write_nuggets(nuggets, {"q1": "first"}, tmp_path / "n.jsonl")
    assert read_nuggets(path) == nuggets
    assert json.loads(path.read_text().splitlines()[0])["nuggets"][0] == {
        "text": "Fact one.",
        "importance": "vital",
    }
    src = read_assignments(_assignment_file(tmp_path / "a.jsonl"))
    again = read_assignments(write_assignments(src, {}, tmp_path / "b.jsonl"))
    assert again == src and again[0].run_id == "run-a" and again[1].labels[0] == "partial_support"


def test_bad_files_name_the_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"qid": "q1", "nuggets": [{"text": "ok", "importance": "vital"}]}) + "\n"
        + json.dumps({"qid": "q2", "nuggets": [{"text": "x", "importance": "crucial"}]}) + "\n"
        + json.dumps({"nuggets": []}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    with pytest.raises(InputError) as err:
        read_nuggets(path)
    text = str(err.value)
    assert "bad.jsonl, line 2" in text and "nuggets[0].importance" in text and "'crucial'" in text
    assert "line 3" in text and "qid" in text
    bad = tmp_path / "bad-a.jsonl"
    bad.write_text(
        json.dumps({"qid": "q1", "nuggets": [{"text": "t", "importance": "okay", "assignment": "yes"}]})
        + "\n"
    )
    with pytest.raises(InputError, match=r"line 1.*nuggets\[0\].assignment.*'yes'"):
        read_assignments(bad)


# -- the judges ------------------------------------------------------------------------------------


def test_labels_parse_strictly() -> None:
    assert parse_labels("1: support\n2: partial_support\n3: not support", 3) == [
        "support", "partial_support", "not_support",
    ]  # fmt: skip
    for bad, why in (
        ("1: support", "exactly one label"),
        ("1: yes\n2: no", "one of"),
        ("support", "<number>"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_labels(bad, 2)


def test_the_llm_assigner_batches_ten_and_records_failures_never_not_support() -> None:
    def reply(messages: list[dict[str, str]]) -> str:
        listed = [ln for ln in messages[-1]["content"].splitlines() if ln[:1].isdigit() and ". " in ln]
        if "broken" in messages[-1]["content"]:
            return "I think they are all fine."
        return "\n".join(
            f"{i}: {'support' if 'yes' in ln else 'not_support'}" for i, ln in enumerate(listed, 1)
        )

    llm = FakeLLM(reply)
    judged = LLMAssigner(llm, max_retries=1).assign(  # type: ignore[arg-type]
        [
            ("q", "an answer", [f"fact {i} {'yes' if i % 2 else 'no'}" for i in range(12)]),
            ("q", "broken", ["a", "b"]),
        ]
    )
    assert [j.label for j in judged[0]] == ["not_support", "support"] * 6
    assert all(j.label is None and j.error and j.raw for j in judged[1])  # a failure, with its raw replies
    first_round = 3  # 12 nuggets in two requests of at most ten, and the broken answer's one
    assert len(llm.requests) == first_round + 1  # one repair turn for the broken one


def test_the_entailment_assigner_has_no_partial_level() -> None:
    ent = FakeEntailment({("The tower opened in 1889.", "It opened in 1889."): 0.9}, threshold=0.5)
    (judged,) = EntailmentAssigner(ent).assign(  # type: ignore[arg-type]
        [("q", "The tower opened in 1889. It is tall.", ["It opened in 1889.", "It is red."])]
    )
    assert [j.label for j in judged] == ["support", "not_support"] and judged[
        0
    ].evidence == "The tower opened in 1889."
    assert EntailmentAssigner.partial_level is False


# -- the family, through the runner ------------------------------------------------------------

NUGGETS = [
    ("q1", "q1/n1", "Tornadoes form from rotating thunderstorms.", "vital", "written: tests"),
    ("q1", "q1/n2", "Tornado Alley is in the central United States.", "okay", "written: tests"),
    ("q2", "q2/n1", "Figs grow on trees.", "vital", "written: tests"),
]


def tiny(tmp_path: Path) -> Task:
    return load_task(
        build_tiny_task(
            tmp_path,
            [("q1", "tornadoes"), ("q2", "figs")],
            task_id="tiny-nuggets",
            tables={
                "nuggets": pd.DataFrame(
                    NUGGETS, columns=["query_id", "nugget_id", "text", "importance", "provenance"]
                )
            },
            metrics=["nuggets"],
        )
    )


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    ent = FakeEntailment({("Tornadoes are caused by rotating storms.", NUGGETS[0][2]): 0.9}, threshold=0.5)
    stack = fake_stack(llm=FakeLLM(lambda m: ""), entailment=ent, retriever=FakeRetriever({}))
    return (
        tiny(tmp_path),
        {"q1": "Tornadoes are caused by rotating storms.", "q2": "Figs grow on trees."},
        stack,
    )


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"nuggets": contract_mock}


def test_a_nuggetizer_file_replaces_the_task_table_and_names_its_board(tmp_path: Path) -> None:
    from benchmark.families import REGISTRY
    from benchmark.families.base import ScoringInputs

    task, answers, stack = contract_mock(tmp_path)
    family = REGISTRY["nuggets"]
    path = write_nuggets(
        {"q2": [Nugget("q2", "q2/n1", "Figs grow on trees.", "okay")]}, {}, tmp_path / "n.jsonl"
    )
    inputs = ScoringInputs(files={"nuggets": str(path)})
    assert family_base.queries_of(family, task, inputs) == ["q2"]
    prepared = family_base.prepare(family, task, stack, inputs, family.settings_model())
    assert prepared.corpus_id.startswith("nuggets:") and prepared.corpus_id != "nuggets:task"
    assert any("no partial level" in n for n in prepared.notes)
    (trace,) = family_base.score_batch(family, prepared, [("q2", "figs", answers["q2"])])
    assert trace.scores["all_strict"] == 0.0 and trace.scores["vital_strict"] is None


def test_our_results_export_as_a_file_nuggetizer_scores_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Results → nuggetizer assignment file → nuggetizer's own metrics: the same per-topic
    numbers as the result; and the file scores back here (score-assignments)."""
    metrics = pytest.importorskip("nuggetizer.core.metrics", reason="pip install nuggetizer (a dev extra)")
    from benchmark.cli.main import main
    from benchmark.core.results import ModelInfo
    from benchmark.families import REGISTRY
    from benchmark.scoring.runner import RunOptions, score_task

    task, answers, stack = contract_mock(tmp_path)
    result, _ = score_task(
        REGISTRY["nuggets"], task, answers, stack, model=ModelInfo(id="acme/model"),
        results_root=tmp_path / "results", options=RunOptions(progress=False),
    )  # fmt: skip
    out = tmp_path / "assignments.jsonl"
    assert (
        main(["nuggets", "export-assignments", "--results", str(tmp_path / "results"), "--out", str(out)])
        == 0
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["run_id"] for r in records} == {"acme/model"}
    ours = {q.query_id: q.scores for q in result.per_query}
    for r in records:
        m = metrics.calculate_nugget_scores(r["qid"], r["nuggets"])
        assert ours[r["qid"]]["all_strict"] == m.strict_all_score
        assert ours[r["qid"]]["vital_strict"] == m.strict_vital_score
    assert main(["nuggets", "score-assignments", "--assignments", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "vital_strict" in printed and "acme/model" in printed
    assert (
        main(
            [
                "nuggets",
                "export-nuggets",
                "--task",
                str(tmp_path / "tiny-nuggets"),
                "--out",
                str(tmp_path / "n.jsonl"),
            ]
        )
        == 0
    )
    assert sum(len(v) for v in read_nuggets(tmp_path / "n.jsonl").values()) == len(NUGGETS)


# -- generation ------------------------------------------------------------------------------------


def test_nuggets_are_created_window_by_window_then_labelled() -> None:
    from benchmark.families.nuggets.generate import generate_nuggets, parse_importance, parse_nugget_list

    assert parse_nugget_list("Here:\n- Figs grow on trees.\n2. Figs are sweet fruit.\n- figs grow on trees.", 30) == [
        "Figs grow on trees.", "Figs are sweet fruit.",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="three words"):
        parse_nugget_list("- Figs.", 30)
    assert parse_importance("1: vital\n2: okay", 2) == ["vital", "okay"]

    def reply(messages: list[dict[str, str]]) -> str:
        turn = next(m["content"] for m in reversed(messages) if "Facts" in m["content"])  # repairs come after
        if "Label each fact" in turn:
            facts = [ln for ln in turn.split("Facts:", 1)[1].splitlines() if ln[:1].isdigit()]
            if "BADLABELS" in turn:
                return "all vital"
            return "\n".join(
                f"{i}: {'vital' if 'passage 1 ' in f else 'okay'}" for i, f in enumerate(facts, 1)
            )
        so_far = [
            ln
            for ln in turn.split("Facts so far:", 1)[1].split("Passages:", 1)[0].splitlines()
            if ln.startswith("- ")
        ]
        new = [
            f"- The fact of {p.split('] ', 1)[1]}."
            for p in turn.split("Passages:", 1)[1].splitlines()
            if p.startswith("[")
        ]
        return "\n".join(so_far + new)

    llm = FakeLLM(reply)
    made = generate_nuggets(
        llm,  # type: ignore[arg-type]
        [("q1", "figs", [f"passage {i} text" for i in range(1, 6)]), ("q2", "BADLABELS", ["passage 9 text"]),
         ("q3", "none", [])],
        window=2, max_nuggets=4,
    )  # fmt: skip
    q1, q2, q3 = made
    assert q1.nuggets == [f"The fact of passage {i} text." for i in range(1, 5)]  # 3 windows; at most 4 kept
    assert q1.importance == ["vital", "okay", "okay", "okay"] and not q1.failures
    assert q2.nuggets == [] and any(f.startswith("importance:") for f in q2.failures)  # no guessed labels
    assert q3.nuggets == [] and q3.failures == ["creation: no relevant passages"]
    # q1's 5 passages in 3 windows of 2; q2's one passage is a fourth request, in the first round's batch
    assert sum("Update the list" in r[-1]["content"] for r in llm.requests) == 4


# -- a card that lists the family with nothing to score it on ------------------------------


def _score_args(tmp_path: Path, *extra: str) -> Any:
    from benchmark.cli.main import build_parser

    return build_parser().parse_args(
        ["score", "--outputs", "x.jsonl", "--tasks", "trec-rag24", "--results-dir", str(tmp_path), *extra]
    )


def test_trec_rag24_scores_nuggets_only_with_a_nugget_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec-rag24 lists nuggets but ships none: without --nuggets the family is skipped with a
    note and sub-questions are still scored; asked for by --metrics it is an error naming
    the flag; with a file it scores exactly the file's topics."""
    from benchmark.api.run import prepare_tasks
    from benchmark.cli.common import family_settings, run_options, scoring_config

    def plan(args: Any, tasks: list[Any]) -> Any:  # what `benchmark score` checks and chooses
        return prepare_tasks(tasks, scoring_config(args), run_options(args), settings=family_settings(args))

    task = load_task("trec-rag24")
    assert "nuggets" in task.card.metrics and not task.has_table("nuggets")

    from benchmark.families import REGISTRY, scorable_queries
    from benchmark.families.base import ScoringInputs

    subq_queries = family_base.queries_of(REGISTRY["subq"], task, ScoringInputs())
    assert len(subq_queries) == 20 and scorable_queries(task) == subq_queries  # answered, exported
    _, chosen = plan(_score_args(tmp_path), [task])
    assert "nuggets" not in [f.id for f, _ in chosen["trec-rag24"]] and chosen["trec-rag24"]
    assert "nuggets can score no query of task trec-rag24" in capsys.readouterr().err

    with pytest.raises(InputError, match="--nuggets FILE"):
        plan(_score_args(tmp_path, "--metrics", "nuggets"), [task])

    first = str(task.table("queries")["query_id"].iloc[0])
    path = write_nuggets(
        {first: [Nugget(first, f"{first}/n1", "A fact.", "vital")]}, {}, tmp_path / "n.jsonl"
    )
    _, chosen = plan(_score_args(tmp_path, "--nuggets", str(path)), [task])
    assert "nuggets" in [f.id for f, _ in chosen["trec-rag24"]]
    inputs = ScoringInputs(files={"nuggets": str(path)})
    assert family_base.queries_of(REGISTRY["nuggets"], task, inputs) == [first]


def test_the_llm_assigner_asks_v2_and_its_identity_names_the_prompt() -> None:
    """``nugget-assign@2`` says its instruction once (system turn) and carries a three-fact
    example instead of v1's four-fact one that repeated the instruction (issue 41: v1 made a
    judged answer cost more prompt tokens than nuggetizer's); its identity names the version,
    so results and cached replies of v1 are never taken for v2's. v1 stays readable."""
    llm = FakeLLM(lambda messages: "1: support\n2: partial_support")  # not the example's reply
    v2, v1 = LLMAssigner(llm), LLMAssigner(llm, prompt="nugget-assign@1")  # type: ignore[arg-type]
    assert v2.identity["prompt"] == "nugget-assign@2" and v1.identity["prompt"] == "nugget-assign@1"
    item = [("when was the tower built", "It opened in 1889.", ["It opened in 1889.", "It is red."])]
    (ask2,), _, _ = v2.requests(item)
    (ask1,), _, _ = v1.requests(item)
    assert [m["role"] for m in ask2] == [m["role"] for m in ask1] == ["system", "user", "assistant", "user"]
    assert "1. It opened in 1889.\n2. It is red." in ask2[-1]["content"]
    assert "<number>: <label>" in ask2[0]["content"] and "<number>" not in ask2[-1]["content"]  # said once
    assert sum(len(m["content"]) for m in ask2) < 0.7 * sum(len(m["content"]) for m in ask1)
    assert [j.label for j in v2.assign(item)[0]] == ["support", "partial_support"]


def test_the_peer_meters_replay_parses_as_a_v2_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks/peer_replies.py`` recognises v2's requests by their system text and answers
    in the format v2's strict parser takes, so the peer table's groundcover row is v2's."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from peer_replies import groundcover

    nuggets = ["The tower opened in 1889.", "Gustave Eiffel designed the tower.", "It is painted red."]
    (asked,), _, _ = LLMAssigner(FakeLLM(str)).requests([("q", "The tower opened in 1889.", nuggets)])  # type: ignore[arg-type]
    system, user = asked[0]["content"], asked[-1]["content"]  # the meter's: system text, last user turn
    judgement, reply = groundcover(system, user) or ("", "")
    assert judgement == "groundcover/nugget-assign"
    assert parse_labels(reply, 3)[0] == "support" and len(parse_labels(reply, 3)) == 3
