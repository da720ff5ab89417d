"""Sub-question coverage: the six metrics and the hybrid by hand, judges on fakes, weight
fitting, the pairwise judge, and sub-question-augmented retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmark.core.errors import InputError
from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families import views as family_views
from benchmark.families.base import ScoringInputs
from benchmark.families.subq import formulas
from benchmark.families.subq.family import SubqSettings
from benchmark.families.subq.generate import parse_sub_questions
from benchmark.families.subq.judges import LLMCoverage, Mark, SimilarityCoverage, parse_covered
from benchmark.families.subq.pairwise import PairVerdict, judge_pairs, parse_better
from benchmark.families.subq.pipeline import SubqState, score_batch, task_sub_questions
from benchmark.families.subq.scores import trace_scores
from benchmark.tasks import Task, load_task
from tests.helpers import build_tiny_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, WordEmbedder, fake_stack

P = formulas.Preference
SUBQS = [
    ("q1", "q1/s1", "What causes tornadoes?", "core"),
    ("q1", "q1/s2", "Where do tornadoes occur?", "core"),
    ("q1", "q1/s3", "What is a supercell thunderstorm?", "background"),
    ("q1", "q1/s4", "How are tornadoes rated?", "follow-up"),
    ("q2", "q2/s1", "How do figs grow?", "core"),
]
CORPUS = {
    "D1": "Tornadoes form from supercells. What causes tornadoes is rotating air.",
    "D2": "Tornado Alley is where tornadoes occur most.",
}


def tiny(tmp_path: Path) -> Task:
    return load_task(
        build_tiny_task(
            tmp_path,
            [("q1", "tornadoes"), ("q2", "figs")],
            task_id="tiny-subq",
            tables={
                "sub_questions": pd.DataFrame(SUBQS, columns=["query_id", "sub_question_id", "text", "type"]),
                "corpus": pd.DataFrame({"doc_id": list(CORPUS), "text": list(CORPUS.values())}),
            },
            metrics=["subq"],
            corpus={"kind": "table"},
        )
    )


@dataclass
class KeywordJudge:
    """Covers a sub-question when the text has its second word (a scripted coverage judge)."""

    calls: list[int] = field(default_factory=list)

    @property
    def identity(self) -> dict[str, Any]:
        return {"judge": "keyword"}

    def judge(self, items: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Mark]]:
        self.calls.append(len(items))

        def words(text: str) -> set[str]:
            return {w.strip(".,;?").lower() for w in text.split()}

        return [[Mark(q.split()[1].lower() in words(" ".join(parts))) for q in qs] for parts, qs in items]


# -- formulas --------------------------------------------------------------------------


def test_coverage_by_type_and_the_hybrid_by_hand() -> None:
    types = ["core", "core", "background", "follow-up", "core"]
    cov = formulas.coverage(types, [True, False, True, False, True])
    assert cov == {"core": pytest.approx(2 / 3), "background": 1.0, "follow-up": 0.0}
    assert formulas.hybrid(cov, (0.6, 0.3, 0.1)) == pytest.approx(0.6 * 2 / 3 + 0.3 * 1.0 + 0.1 * 0.0)
    # a query without follow-up sub-questions: the weights renormalise over core and background
    cov2 = formulas.coverage(["core", "background"], [True, False])
    assert cov2["follow-up"] is None
    assert formulas.hybrid(cov2, (0.6, 0.3, 0.1)) == pytest.approx(0.6 / 0.9)
    assert formulas.coverage(["core"], [None])["core"] is None  # undetermined, never 0
    assert formulas.METRICS == (
        "answer_core", "answer_background", "answer_follow_up",
        "retrieval_core", "retrieval_background", "retrieval_follow_up",
    )  # fmt: skip


def test_weight_fitting_by_grid_search() -> None:
    assert len(formulas.weight_grid(0.5)) == 6 and len(formulas.weight_grid(0.1)) == 66
    # people prefer the answer with more core coverage, whatever the background
    pairs = [
        P(
            {"core": 1.0, "background": 0.0, "follow-up": 0.0},
            {"core": 0.0, "background": 1.0, "follow-up": 1.0},
            "A",
        ),
        P(
            {"core": 0.5, "background": 0.0, "follow-up": 1.0},
            {"core": 1.0, "background": 1.0, "follow-up": 0.0},
            "B",
        ),
        P(
            {"core": 0.0, "background": 1.0, "follow-up": 0.0},
            {"core": 0.5, "background": 0.0, "follow-up": 0.0},
            "B",
        ),
    ]
    assert formulas.preference_accuracy(pairs, (1, 0, 0)) == 1.0
    assert formulas.preference_accuracy(pairs, (0, 1, 0)) == pytest.approx(1 / 3)
    # follow-up only: pair 1 wrong, pair 2 wrong, pair 3 a tie (½)
    assert formulas.preference_accuracy(pairs, (0, 0, 1)) == pytest.approx(0.5 / 3)
    weights, acc = formulas.fit_weights(pairs, step=0.5)
    assert acc == 1.0 and weights[0] >= 0.5 and formulas.preference_accuracy(pairs, weights) == acc
    assert formulas.agreement(None, 1.0, "A") is None


# -- judges ------------------------------------------------------------------------------


def test_similarity_coverage_keeps_the_best_window_as_evidence() -> None:
    marks = SimilarityCoverage(WordEmbedder(["tornado", "fig", "supercell"]), 0.6).judge(
        [
            (
                ["Supercells spawn a tornado. Figs are sweet."],
                ["Why do tornadoes form?", "What is a fig?", "Unrelated?"],
            )
        ]
    )[0]
    assert [m.covered for m in marks] == [True, True, False]
    assert "tornado" in (marks[0].evidence or "") and marks[2].evidence is None


def test_llm_coverage_parsing_is_strict_and_failures_leave_coverage_undetermined() -> None:
    assert parse_covered("Answered: 1, 3", 3) == {0, 2} and parse_covered("Answered: none", 3) == set()
    for bad in ("I think 1 and 3", "Answered: 4", "Answered: one"):
        with pytest.raises(ValueError):
            parse_covered(bad, 3)
    good = LLMCoverage(FakeLLM(lambda m: "Answered: 2")).judge([(["text"], ["a b c", "d e f"])])[0]
    assert [m.covered for m in good] == [False, True]
    bad = LLMCoverage(FakeLLM(lambda m: "Yes, both."), max_retries=1).judge([(["text"], ["a b c", "d e f"])])[
        0
    ]
    assert all(m.covered is None and m.error and len(m.raw) == 2 for m in bad)


def test_generated_sub_questions_are_parsed_strictly() -> None:
    reply = "core: What causes tornadoes?\nBackground: Where do they occur?\nSure! Here you go.\nfollow up: How are they rated?\ncore: what causes tornadoes?"
    assert parse_sub_questions(reply, 5) == [
        {"text": "What causes tornadoes?", "type": "core"},
        {"text": "Where do they occur?", "type": "background"},
        {"text": "How are they rated?", "type": "follow-up"},
    ]
    assert len(parse_sub_questions(reply, 2)) == 2
    with pytest.raises(ValueError, match="example"):
        parse_sub_questions(
            "core: What are antibodies and memory cells?",
            5,
            copied=frozenset({"what are antibodies and memory cells?"}),
        )
    for bad in ("core: Why?", "background: What is a fig tree?", "no sub-questions here"):
        with pytest.raises(ValueError):
            parse_sub_questions(bad, 5)


# -- pipeline and family --------------------------------------------------------------------


def test_six_metrics_from_answer_and_retrieved_chunks(tmp_path: Path) -> None:
    task = tiny(tmp_path)
    subqs = task_sub_questions(task)
    state = SubqState(
        subqs,
        KeywordJudge(),
        (0.6, 0.3, 0.1),
        given={"q1": ["D1#0", "D9#0"]},
        passages={"D1#0": CORPUS["D1"]},
    )
    answer = "Rotating air causes them; they are rated on a scale."  # s1 ('causes') and s4 ('are')
    (t,) = score_batch(state, [("q1", "tornadoes", answer)])
    assert [s.in_answer for s in t.sub_questions] == [True, False, False, True]
    assert [s.in_retrieval for s in t.sub_questions] == [True, False, True, False]  # 'causes', 'is'
    assert t.scores == {
        "answer_core": 0.5, "answer_background": 0.0, "answer_follow_up": 1.0,
        "retrieval_core": 0.5, "retrieval_background": 1.0, "retrieval_follow_up": 0.0,
        "subq_hybrid": pytest.approx(0.6 * 0.5 + 0.1 * 1.0),
    }  # fmt: skip
    assert any("not in the corpus" in f and "D9#0" in f for f in t.failures)
    assert trace_scores(t) == t.scores


def test_family_prepares_evidence_from_the_corpus_and_checks_types(tmp_path: Path) -> None:
    task = tiny(tmp_path)
    fam = REGISTRY["subq"]
    stack = fake_stack(
        llm=FakeLLM(lambda m: "Answered: 1"), entailment=FakeEntailment({}), retriever=FakeRetriever({})
    )
    prep = family_base.prepare(
        fam, task, stack, ScoringInputs(evidence={"q1": ["D1#0"]}), SubqSettings(judge="llm")
    )
    assert prep.state.given == {"q1": ["D1#0"]} and prep.state.passages["D1#0"].startswith("Tornadoes form")
    (t,) = family_base.score_batch(fam, prep, [("q1", "tornadoes", "text")])
    assert t.scores["answer_core"] == 0.5 and t.retrieval_judged
    assert family_base.queries_of(fam, task, ScoringInputs()) == ["q1", "q2"]
    html = family_views.trace_html(fam, t.model_dump())
    assert "core" in html and "✓" in html
    bad = pd.DataFrame([("q1", "x", "Why?", "side")], columns=["query_id", "sub_question_id", "text", "type"])
    broken = load_task(
        build_tiny_task(
            tmp_path / "b", [("q1", "t")], task_id="bad", tables={"sub_questions": bad}, metrics=["subq"]
        )
    )
    with pytest.raises(InputError, match=r"line 1.*type"):
        task_sub_questions(broken)


# -- pairwise judge ---------------------------------------------------------------------------


def test_pairwise_judge_asks_both_orders_and_cancels_position_bias() -> None:
    assert parse_better("Better: 2") == 2 and parse_better("better: tie") == 0
    with pytest.raises(ValueError):
        parse_better("The second one")
    first = judge_pairs(FakeLLM(lambda m: "Better: 1"), [("q", "base", "mine")])  # always the first shown
    assert first[0].system_score == 0.5
    likes_mine = judge_pairs(FakeLLM(lambda m: "Better: 1" if m[-1]["content"].index("mine") < m[-1]["content"].index("base") else "Better: 2"), [("q", "base", "mine")])  # fmt: skip
    assert likes_mine[0].system_score == 1.0
    assert PairVerdict(0, 1).system_score == 0.25 and PairVerdict(None, 1).system_score is None


# -- sub-question-augmented retrieval ------------------------------------------------------


def test_interleave_and_subq_retrieval_use_core_sub_questions(tmp_path: Path) -> None:
    from benchmark.core.results import RAGSetting
    from benchmark.generation.rag import core_sub_questions, interleave, sub_question_context
    from benchmark.retrieval import Hit

    a = [Hit("a1", "a", "x", 1.0, 1), Hit("b1", "b", "x", 0.5, 2)]
    b = [Hit("b1", "b", "x", 1.0, 1), Hit("c1", "c", "x", 0.5, 2)]
    assert [h.passage_id for h in interleave([a, b])] == ["a1", "b1", "c1"]
    task = tiny(tmp_path)
    assert core_sub_questions(task, ["q1"]) == {"q1": ["What causes tornadoes?", "Where do tornadoes occur?"]}
    hits = {
        "tornadoes": [("P1", "P1", "query hit")],
        "What causes tornadoes?": [("P2", "P2", "cause hit")],
        "Where do tornadoes occur?": [("P3", "P3", "place hit")],
    }
    retriever = FakeRetriever(hits)
    setting = RAGSetting(retriever="bm25", k=3, prompt="rag-answer-subq@1", corpus="c", subq="retrieval")
    ctx = sub_question_context(
        task,
        setting,
        retriever,
        ["q1"],
        fake_stack(llm=FakeLLM(str), entailment=FakeEntailment({}), retriever=retriever).profile,
        None,
    )
    assert ctx.passage_ids("q1") == ["P1", "P2", "P3"] and setting.slug == "rag-bm25-subq-retrieval-k3"
    assert not ctx.prompt_subqs  # retrieval only: the prompt does not list them
    prompt_setting = setting.model_copy(update={"sub_questions": "prompt"})
    ctx = sub_question_context(
        task,
        prompt_setting,
        retriever,
        ["q1"],
        fake_stack(llm=FakeLLM(str), entailment=FakeEntailment({}), retriever=retriever).profile,
        None,
    )
    text = ctx.prompt("Answer.", "q1", "tornadoes")
    assert "- What causes tornadoes?" in text and ctx.passage_ids("q1") == ["P1"]
    with pytest.raises(InputError, match="no core sub-question"):
        core_sub_questions(task, ["q1", "zz"])


def test_fit_weights_reports_accuracy_next_to_trivial_baselines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    tiny(tmp_path)
    task_dir = str(tmp_path / "tiny-subq")
    prefs = tmp_path / "prefs.csv"
    good = "Tornadoes are caused by rotating supercell storms, and they occur most in Tornado Alley."
    rows = [
        ("q1", good, "Figs are sweet.", "A"),
        ("q1", "Bananas are yellow.", good, "B"),
        ("q2", "Figs grow on trees in warm places.", "Tornadoes spin.", "A"),
    ]
    prefs.write_text(
        "query_id,answer_a,answer_b,preferred\n" + "".join(f'{q},"{a}","{b}",{p}\n' for q, a, b, p in rows)
    )
    assert main(["subq", "fit-weights", "--preferences", str(prefs), "--task", task_dir]) == 0
    out = capsys.readouterr().out
    assert (
        "hybrid, fitted weights" in out and "baseline: the longer answer" in out and "majority label" in out
    )
    assert "use: --subq-weights" in out
    prefs.write_text("query_id,answer_a,answer_b,preferred\nq1,a,b,C\nq1,,b,A\n")
    assert main(["subq", "fit-weights", "--preferences", str(prefs), "--task", task_dir]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "preferred" in err and "line 3" in err and "answer_a" in err


def test_fit_weights_with_no_scored_pair_keeps_the_defaults_and_never_says_fitted(tmp_path: Path) -> None:
    """Every coverage undetermined: no weights score a pair, so nothing was fit; the defaults
    are reported as kept, not presented as the fit."""
    from benchmark.families.subq.fitting import fit_on_preferences

    tiny(tmp_path)
    task = load_task(tmp_path / "tiny-subq")

    class Undecided:
        def judge(self, items: list[tuple[list[str], list[str]]]) -> list[list[Mark]]:
            return [[Mark(None) for _ in subqs] for _, subqs in items]

    prefs = [{"query_id": "q1", "answer_a": "a", "answer_b": "b", "preferred": "A"}]
    best, rows = fit_on_preferences(prefs, task, Undecided(), 0.1)
    assert best == formulas.DEFAULT_WEIGHTS and rows[0][1] is None
    assert "fitted" not in rows[0][0] and "default weights" in rows[0][0] and "kept" in rows[0][0]


def test_one_undetermined_sub_question_leaves_the_hybrid_undetermined() -> None:
    from benchmark.families.subq.trace import SubqTrace, SubQuestionTrace

    t = SubqTrace(query_id="q", query="q", answer="a", weights=(0.6, 0.3, 0.1))
    t.sub_questions = [
        SubQuestionTrace(sub_question_id="1", text="a b c", type="core", in_answer=None),
        SubQuestionTrace(sub_question_id="2", text="d e f", type="background", in_answer=True),
    ]
    scores = trace_scores(t)
    assert scores["answer_core"] is None and scores["answer_background"] == 1.0
    assert scores["subq_hybrid"] is None  # not the background coverage alone


def test_scorable_queries_take_the_corpus_topics_first_and_drop_none(tmp_path: Path) -> None:
    sq = pd.DataFrame(SUBQS, columns=["query_id", "sub_question_id", "text", "type"])
    root = build_tiny_task(
        tmp_path, [("q1", "tornadoes"), ("q2", "figs"), ("q3", "none")], task_id="order",
        tables={"sub_questions": sq}, metrics=["subq"], corpus={"kind": "none", "covers_queries": ["q2"]},
    )  # fmt: skip
    task = load_task(root)
    assert task.quick_order() == ["q2", "q1", "q3"]
    assert family_base.queries_of(REGISTRY["subq"], task, ScoringInputs()) == ["q2", "q1"]


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    stack = fake_stack(llm=FakeLLM(lambda m: ""), entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    return (
        tiny(tmp_path),
        {"q1": "Tornadoes are caused by rotating storms.", "q2": "Figs grow on trees."},
        stack,
    )


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"subq": contract_mock}


def test_generated_sub_questions_become_the_tasks_table_with_write_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``subq generate --write-task`` stores what it drafted as the task's sub_questions table,
    recorded in the card with a new patch version (the flag once did nothing)."""
    from benchmark.cli.main import main
    from benchmark.families.subq import commands

    root = build_tiny_task(
        tmp_path, [("q1", "tornadoes"), ("q2", "figs")], task_id="tiny-subq", metrics=["subq"]
    )
    reply = "core: What causes tornadoes to form?\nbackground: Where do tornadoes usually occur?"
    stack = fake_stack(
        llm=FakeLLM(lambda _m: reply), entailment=FakeEntailment({}), retriever=FakeRetriever({})
    )
    monkeypatch.setattr(commands, "judge_stack", lambda profile: stack)
    out = tmp_path / "sq.jsonl"
    assert main(["subq", "generate", "--task", str(root), "--out", str(out), "--write-task"]) == 0
    task = load_task(root)
    assert task.card.version == "0.0.2" and "generated: " in (task.card.provenance.notes or "")
    assert sorted(task.table("sub_questions")["sub_question_id"]) == ["q1/s1", "q1/s2", "q2/s1", "q2/s2"]
