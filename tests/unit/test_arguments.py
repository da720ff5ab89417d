"""The argument family (ConQRet): formulas by hand, parsers on valid / malformed / partial
replies, prompt rendering, and the whole pipeline on the real arguana-debates task with
a scripted judge whose every score is known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.arguments import formulas as F
from benchmark.families.arguments import judges as J
from benchmark.families.arguments.pipeline import system_position
from benchmark.families.base import ScoringInputs
from benchmark.tasks import load_task
from tests.helpers.arguments import CRITERIA, scripted
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

# -- formulas ---------------------------------------------------------------------------


def test_combine_mean_and_majority_by_hand() -> None:
    samples = [{"clarity": 3, "cogency": 1}, {"clarity": 2, "cogency": 1}, {"clarity": 2, "cogency": None}]
    mean = F.combine(samples, "mean", keys=["clarity", "cogency", "arrangement"])
    assert mean == {"clarity": pytest.approx(7 / 3), "cogency": 1.0, "arrangement": None}
    major = F.combine(samples, "majority", keys=["clarity", "cogency"])
    assert major == {"clarity": 2.0, "cogency": 1.0}
    # no value given by more than half: the median (three that differ), the mean (two)
    assert F.combine([{"x": 1}, {"x": 2}, {"x": 3}], "majority", keys=["x"]) == {"x": 2.0}
    assert F.combine([{"x": 1}, {"x": 3}], "majority", keys=["x"]) == {"x": 2.0}
    with pytest.raises(ValueError):
        F.combine(samples, "median")


def test_context_and_preference_formulas() -> None:
    assert F.unit(7, F.DIRECT_SCALE) == 0.7
    assert F.unit(4, F.RATING_SCALE) == 0.75
    assert F.unit(None, F.RATING_SCALE) is None
    assert F.share_true({"a": True, "b": False, "c": True, "d": None}) == pytest.approx(2 / 3)
    assert F.share_true({}) is None
    assert F.mean_unit([5, 3, None]) == 0.75
    assert F.precision([5, 3, 2, None]) == pytest.approx(2 / 3)
    assert F.precision([None]) is None
    assert [F.preference(w) for w in ("system", "tie", "reference", None)] == [1.0, 0.5, 0.0, None]
    assert F.nugget_preference(["system", "reference", "tie", None]) == 0.5


def test_sc_orders_are_three_permutations_of_the_taxonomy() -> None:
    assert len(F.SC_ORDERS) == 3
    assert all(sorted(o) == sorted(F.DIMENSIONS) for o in F.SC_ORDERS)
    assert len({tuple(o) for o in F.SC_ORDERS}) == 3
    assert len(F.DIMENSIONS) == 15 and F.DIMENSIONS[-1] == "overall_quality"


# -- parsers ----------------------------------------------------------------------------


def test_quality_parser_valid_fenced_and_keyed_forms() -> None:
    reply = "```json\n" + json.dumps({d.replace("_", " ").title(): 2 for d in F.DIMENSIONS}) + "\n```"
    assert J.parse_quality(reply) == dict.fromkeys(F.DIMENSIONS, 2.0)
    nested = json.dumps({d: {"explanation": "x", "rating": 3} for d in F.DIMENSIONS})
    assert set(J.parse_quality(nested).values()) == {3.0}


def test_quality_parser_partial_keeps_what_was_rated() -> None:
    ratings = {d: 2 for d in F.DIMENSIONS if d != "clarity"}
    ratings["arrangement"] = 7  # out of the 1-3 scale
    with pytest.raises(J.Partial) as err:
        J.parse_quality(json.dumps(ratings))
    assert "clarity" in str(err.value) and "arrangement" in str(err.value)
    assert "clarity" not in err.value.found and "arrangement" not in err.value.found
    assert len(err.value.found) == 13


@pytest.mark.parametrize("reply", ["", "I think it is good.", "{not json", "[1, 2]", '{"clarity": true}'])
def test_quality_parser_rejects_malformed(reply: str) -> None:
    with pytest.raises(ValueError):
        J.parse_quality(reply)


def test_score_parsers() -> None:
    assert J.parse_score("Score: 7", F.DIRECT_SCALE) == 7
    assert J.parse_score("rating = 3.", F.QUALITY_SCALE) == 3
    assert J.parse_score(" 4 ", F.RATING_SCALE) == 4
    for bad in ("Score: 11", "Score: 2.5", "very relevant", "Score: -1"):
        with pytest.raises(ValueError):
            J.parse_score(bad, F.DIRECT_SCALE if "11" in bad or "-1" in bad else F.RATING_SCALE)


def test_criteria_and_item_parsers() -> None:
    ok = json.dumps(
        {"explanation": "e", "scores": {c: "True" if i % 2 else False for i, c in enumerate(CRITERIA)}}
    )
    assert J.parse_criteria(ok, CRITERIA) == {c: bool(i % 2) for i, c in enumerate(CRITERIA)}
    with pytest.raises(J.Partial) as err:
        J.parse_criteria(json.dumps({"scores": {"direct_relevance": "maybe"}}), CRITERIA)
    assert err.value.found == {}
    assert J.parse_items("- a\n- b\n* a\n- c\nnoise") == ["a", "b", "c"]
    with pytest.raises(ValueError):
        J.parse_items("- only one")
    assert J.parse_item_ratings("1: 4\n2) 5\n3. 1", 3) == {"1": 4.0, "2": 5.0, "3": 1.0}
    with pytest.raises(J.Partial) as err:
        J.parse_item_ratings("1: 4\n3: 9", 3)
    assert err.value.found == {"1": 4.0}


def test_pairwise_parsers() -> None:
    pair = {"argument_1": 4, "argument_2": 2}
    v = J.parse_rag_direct(json.dumps({k: pair for k in J.RAG_KEYS} | {"preference": "Argument 2"}))
    assert v.answer_groundedness == (4.0, 2.0) and v.preference == "2"
    assert (
        J.parse_rag_direct(json.dumps({k: pair for k in J.RAG_KEYS} | {"preference": "Tie"})).preference
        == "tie"
    )
    with pytest.raises(ValueError):
        J.parse_rag_direct(json.dumps({k: pair for k in J.RAG_KEYS} | {"preference": "the first"}))
    rubric = {
        "key_points": [{"point": 1, "documents": 5, "argument_1": 2, "argument_2": 4, "better": "2"}],
        "document_points": [{"point": "p", "argument_1": 3, "argument_2": 1}],
    }
    r = J.parse_rag_rubric(json.dumps(rubric), 1)
    assert r.key_points == ((5.0, 2.0, 4.0, "2"),) and r.document_points == (("p", 3.0, 1.0),)
    with pytest.raises(ValueError, match="2 key points"):
        J.parse_rag_rubric(json.dumps(rubric), 2)


def test_listwise_rag_fine_grained_needs_one_rating_per_document() -> None:
    full = {"context_relevance": [5, 1], "answer_relevance": 4, "answer_groundedness": 3} | dict.fromkeys(
        F.DIMENSIONS, 2
    )
    assert J.parse_listwise_rag(json.dumps(full), 2)["context_relevance"] == [5.0, 1.0]
    with pytest.raises(J.Partial) as err:
        J.parse_listwise_rag(json.dumps(full), 3)
    assert "context_relevance" not in err.value.found and err.value.found["answer_groundedness"] == 3.0


def test_prompts_render_with_the_given_order() -> None:
    order = F.SC_ORDERS[1]
    msgs = J.prompt("listwise").render(
        topic="T?",
        stance="pro",
        argument="A.",
        dimensions=J.dimension_block(order),
        example=J.example_json(order),
    )
    text = msgs[-1]["content"]
    assert text.index("1. overall_quality") < text.index("15. local_acceptability")
    for name in J.PROMPTS:
        assert J.prompt(name).meta.get("max_new_tokens"), name


# -- the pipeline on the real task, with a scripted judge --------------------------------


@pytest.fixture(scope="module")
def scored() -> tuple[list, FakeLLM]:
    task = load_task("arguana-debates")
    queries = task.table("queries")
    docs = task.table("corpus").doc_id.tolist()
    hits = {t: [(d, d, f"evidence {d}") for d in docs[:3]] for t in queries.topic}
    llm = FakeLLM(scripted)
    stack = fake_stack(llm=llm, entailment=FakeEntailment({}), retriever=FakeRetriever(hits))
    fam = REGISTRY["arguments"]
    settings = fam.settings_model(
        quality_judge="listwise_sc", context_judges=J.CONTEXT_JUDGES, joint_judges=J.JOINT_JUDGES
    )
    prepared = family_base.prepare(fam, task, stack, ScoringInputs(), settings)
    items = [(q, "", "Yes, because of evidence [1].") for q in queries.query_id[:2]]
    return family_base.score_batch(fam, prepared, items), llm


def test_pipeline_scores_by_hand(scored: tuple[list, FakeLLM]) -> None:
    traces, _ = scored
    t = traces[0]
    s = t.scores
    assert s["overall_quality"] == pytest.approx(7 / 3)  # SC mean of 3, 2, 2
    assert s["overall_quality_majority"] == 2.0
    assert s["clarity"] == 2.0  # rated in two of three orders: the mean of those two
    assert s["context_direct"] == 0.6
    assert s["context_fine_grained"] == 0.5
    assert s["context_geval"] == 1.0
    assert s["context_query_rubric"] == 0.5  # ratings 5, 3, 1, 3 -> mean 3 -> 0.5
    pos = system_position(t)
    assert s["win_rag_direct"] == (1.0 if pos == 1 else 0.0)
    assert s["grounded_rag_direct"] == (1.0 if pos == 1 else 0.0)
    assert s["win_rag_rubric"] == 0.5 and s["context_rag_rubric"] == 0.75
    assert s["grounded_rag_rubric"] == (1.0 if pos == 1 else 0.0)
    assert s["context_listwise_rag"] == 0.75 and s["grounded_listwise_rag"] == 0.25
    assert s["overall_listwise_rag"] == 1.0
    # the Fine-Grained judge never answered usably: missing, never zero
    assert s["context_listwise_rag_fg"] is None and s["overall_listwise_rag_fg"] is None
    assert any(f.startswith("listwise_rag_fg:") for f in t.failures)
    assert any("not rated: clarity" in f for f in t.failures)
    assert family_base.recompute(REGISTRY["arguments"], t) == s
    assert t.evidence_source == "retrieved" and t.cited == []
    assert t.reference_id and f"-{t.stance}0" in t.reference_id


def test_pairwise_positions_are_balanced_and_stable(scored: tuple[list, FakeLLM]) -> None:
    traces, llm = scored
    positions = [system_position(t) for t in traces]
    assert positions == [system_position(t) for t in traces]
    for t in traces:  # the system's argument sits where the recorded position says
        prompts = llm.prompts_containing('"preference": "Argument 1"')
        mine = next(p for p in prompts if t.topic in p and f"Stance: {t.stance}" in p)
        first = mine.split("Argument 1:")[1].split("Argument 2:")[0]
        assert (t.answer in first) == (system_position(t) == 1)


def test_raw_replies_kept_and_repairs_asked(scored: tuple[list, FakeLLM]) -> None:
    traces, llm = scored
    rec = traces[0].judges["listwise_rag_fg"]
    assert len(rec.raw) == 3 and rec.raw[0] == "I cannot do this."  # first try + 2 repairs
    assert any("could not be used" in m["content"] for r in llm.requests for m in r)


def test_evidence_given_needs_the_corpus_and_is_cited() -> None:
    task = load_task("arguana-debates")
    q = task.table("queries")
    docs = task.table("corpus").doc_id.tolist()[:2]
    llm = FakeLLM(scripted)
    stack = fake_stack(llm=llm, entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    fam = REGISTRY["arguments"]
    settings = fam.settings_model(context_judges="direct", joint_judges="none", quality_judge="listwise")
    qid = q.query_id[0]
    prepared = family_base.prepare(
        fam, task, stack, ScoringInputs(evidence={qid: [docs[0], docs[1], "nope"]}), settings
    )
    (t,) = family_base.score_batch(fam, prepared, [(qid, "", "As shown [2], and [7].")])
    assert t.evidence_source == "given" and [d.doc_id for d in t.evidence] == docs
    assert t.cited == [docs[1]]
    assert any("not in the corpus" in f for f in t.failures)
    assert t.scores["context_direct"] == 0.6


def test_settings_name_their_flag() -> None:
    from benchmark.core.errors import InputError

    fam = REGISTRY["arguments"]
    with pytest.raises(InputError) as err:
        fam.settings_model(context_judges="direct,telepathy")
    assert "--context-judges" in str(err.value) and "telepathy" in str(err.value)
    assert fam.settings_model(joint_judges="none").joint_judges == ()


def test_a_reply_cut_off_at_the_token_limit_keeps_its_ratings_as_partial() -> None:
    cut = '{"local_acceptability": 2, "Local Relevance": 3, "clarity": 7, "overall_quality": 2, "overall_quality": 3, "ove'
    with pytest.raises(J.Partial) as err:
        J.parse_quality(cut)
    assert err.value.found == {"local_acceptability": 2.0, "local_relevance": 3.0, "overall_quality": 2.0}
    with pytest.raises(J.Partial) as err:
        J.parse_listwise_rag('{"answer_groundedness": 4, "cogency": 1, "context_relevance": [5, 1', 2)
    assert err.value.found == {"answer_groundedness": 4.0, "cogency": 1.0}


def test_plain_listwise_leaves_an_unrated_dimension_missing() -> None:
    """One order, clarity never rated: clarity is None (not 1) and named in the failure."""
    task = load_task("arguana-debates")
    qid, topic = task.table("queries").iloc[0][["query_id", "topic"]]

    def reply(msgs: list[dict[str, str]]) -> str:
        return json.dumps({d: 3 for d in F.DIMENSIONS if d != "clarity"})

    stack = fake_stack(
        llm=FakeLLM(reply), entailment=FakeEntailment({}), retriever=FakeRetriever({topic: []})
    )
    fam = REGISTRY["arguments"]
    settings = fam.settings_model(quality_judge="listwise", context_judges="none", joint_judges="none")
    (t,) = family_base.score_batch(
        fam, family_base.prepare(fam, task, stack, ScoringInputs(), settings), [(qid, "", "An argument.")]
    )
    assert t.scores["clarity"] is None and t.scores["overall_quality"] == 3.0
    assert any("not rated: clarity" in f for f in t.failures)


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    from tests.helpers.arguments import scripted
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    task = load_task("arguana-debates")
    queries = task.table("queries")
    docs = task.table("corpus").doc_id.tolist()[:3]
    hits = {t: [(d, d, f"evidence {d}") for d in docs] for t in queries.topic}
    stack = fake_stack(llm=FakeLLM(scripted), entailment=FakeEntailment({}), retriever=FakeRetriever(hits))
    return task, {q: f"An argument for {q} [1]." for q in queries.query_id[:3]}, stack


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"arguments": contract_mock}
