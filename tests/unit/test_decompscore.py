"""Claim decomposition methods and DecompScore, number for number on scripted models.

The scripted LLM answers decomposition prompts from a table (by source sentence) and
the support judge from a set of (source, subclaim) pairs it accepts, so every count
below is checked by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmark.core.results import ModelInfo
from benchmark.families import REGISTRY
from benchmark.families.decompscore import formulas
from benchmark.families.decompscore.family import DecompSettings
from benchmark.families.decompscore.scores import trace_scores
from benchmark.families.decompscore.trace import DecompTrace
from benchmark.judging.decomposition import Decomposer, Example, parse_subclaims, select_examples, units_of
from benchmark.judging.stack import JudgeStack
from benchmark.scoring.runner import RunOptions, score_task
from benchmark.tasks import Task, load_task
from tests.helpers import build_tiny_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

V = formulas.Verdicts

# -- formulas ----------------------------------------------------------------------------


def test_passage_scores_by_hand() -> None:
    units = [[V(True, True), V(False, False), V(True, False)], [V(True, True)]]
    assert formulas.passage_scores(units) == {
        "decompscore": 3.0,  # supported subclaims
        "decompscore_nli": 2.0,  # entailed subclaims
        "coherence": 0.75,  # 3 of 4
        "subclaims_per_unit": 2.0,  # 4 subclaims, 2 units
        "subclaims": 4.0,
    }


def test_grounding_effect_by_hand() -> None:
    # 4 subclaims, 3 supported; grounded: 2 of all, 2 of the supported ones
    units = [
        [V(True, grounded=True), V(False, grounded=False), V(True, grounded=True), V(True, grounded=False)]
    ]
    s = formulas.passage_scores(units, grounded=True)
    assert s["s_fact_all"] == 0.5 and s["s_fact_coherent"] == pytest.approx(2 / 3)
    assert s["s_fact_change"] == pytest.approx(2 / 3 - 0.5)


def test_undetermined_verdicts_are_never_zero() -> None:
    s = formulas.passage_scores([[V(True, True), V(None, False)]])
    assert s["decompscore"] is None and s["coherence"] is None and s["decompscore_nli"] == 1.0
    s = formulas.passage_scores([[V(True, grounded=None)]], grounded=True)
    assert s["s_fact_all"] is None and s["s_fact_change"] is None and s["decompscore"] == 1.0
    empty = formulas.passage_scores([])  # an empty passage claims nothing: 0, coherence undefined
    assert empty["decompscore"] == 0.0 and empty["coherence"] is None and empty["subclaims_per_unit"] is None


# -- methods -----------------------------------------------------------------------------

JUDGE_SYSTEM = "You check whether a passage supports a claim."
DECOMPOSITIONS = {
    "Marie Curie won two Nobel Prizes.": "- Marie Curie won Nobel Prizes.\n- Marie Curie won two Nobel Prizes.",
    "Paris is in France and is large.": "- Paris is in France.\n- Paris is large.\n- paris is  large.\n- Paris is old.",
    "It rains.": "I cannot help with that.",  # never a usable list: retried, then a failure
}
SUPPORTED = {
    ("Marie Curie won two Nobel Prizes.", "Marie Curie won Nobel Prizes."),
    ("Marie Curie won two Nobel Prizes.", "Marie Curie won two Nobel Prizes."),
    ("Paris is in France and is large.", "Paris is in France."),
    ("Paris is in France and is large.", "Paris is large."),
}


def reply(messages: list[dict[str, str]]) -> str:
    if messages[0]["content"].startswith(JUDGE_SYSTEM):
        last = messages[-1]["content"]
        passage = last.split("Passage:\n", 1)[1].split("\n\nClaim: ", 1)[0]
        claim = last.split("\n\nClaim: ", 1)[1].split("\n", 1)[0]
        return "yes" if (passage, claim) in SUPPORTED else "no"
    # a decomposition request; a repair turn repeats the conversation with the bad reply
    user_turns = [m["content"] for m in messages if m["role"] == "user"]
    source = next((s for s in DECOMPOSITIONS if any(u.endswith(s) for u in user_turns)), None)
    return DECOMPOSITIONS.get(source or "", "NONE")


def bag_of_words(texts: list[str]) -> np.ndarray:
    vocab = ["rain", "river", "prize", "tower", "bridge", "novel"]
    return np.array([[t.lower().count(w) + 0.01 for w in vocab] for t in texts], dtype=float)


def test_parse_subclaims_is_strict() -> None:
    assert parse_subclaims("- a fact.\n2. another fact") == ["a fact.", "another fact"]
    assert parse_subclaims(" none. ") == []
    with pytest.raises(ValueError, match="no facts found"):
        parse_subclaims("Here are the facts: a, b")


def test_examples_static_first_then_retrieved_by_similarity() -> None:
    pool = [Example(s, {}) for s in ("a river", "a tower", "a prize", "a bridge", "a novel prize")]
    chosen = select_examples("the prize went to her", pool, 2, 1, bag_of_words)
    assert [e.sentence for e in chosen] == ["a river", "a tower", "a prize"]
    assert select_examples("x", pool, 2, 0, None) == pool[:2]
    with pytest.raises(ValueError, match="embedder"):
        select_examples("x", pool, 2, 1, None)


def test_llm_method_prompt_parse_repair_and_failure() -> None:
    llm = FakeLLM(reply)
    dec = Decomposer("russellian", llm=llm, embed=bag_of_words, static_examples=2, retrieved_examples=1)
    units = dec.decompose(
        ["Marie Curie won two Nobel Prizes.", "Paris is in France and is large.", "It rains."]
    )
    assert units[0].subclaims == ["Marie Curie won Nobel Prizes.", "Marie Curie won two Nobel Prizes."]
    # a repeat (same words, other case and spacing) is kept once and counted
    assert units[1].subclaims == ["Paris is in France.", "Paris is large.", "Paris is old."]
    assert units[1].repeated == 1
    # unusable output: retried with a repair turn, then a failure with every raw reply — not "no subclaims"
    assert units[2].error and "no facts found" in units[2].error and len(units[2].raw) == 3
    first = llm.requests[0]
    assert first[0]["role"] == "system" and len([m for m in first if m["role"] == "assistant"]) == 3
    # the style's example decompositions are the shots: the first static example is Marie Curie's
    assert "Marie Curie was born in Poland." in first[2]["content"]
    assert first[-1]["content"].endswith("Marie Curie won two Nobel Prizes.")
    assert dec.identity["prompt"] == "decompose-russellian@1" and dec.identity["static_examples"] == 2


def test_sentence_baseline_and_units() -> None:
    text = "The tower opened in 1889. It is 330 metres tall."
    assert units_of(text, "sentence") == ["The tower opened in 1889.", "It is 330 metres tall."]
    assert units_of(text, "passage") == [text] and units_of("  ", "passage") == []
    [unit] = Decomposer("sentences").decompose([text])
    assert unit.subclaims == ["The tower opened in 1889.", "It is 330 metres tall."]
    with pytest.raises(ValueError, match="needs an LLM"):
        Decomposer("factscore")
    with pytest.raises(ValueError, match="unknown decomposition method"):
        Decomposer("magic")


# -- the family, through the real runner -------------------------------------------------------

PASSAGES = {
    "p1": "Marie Curie won two Nobel Prizes. Paris is in France and is large.",
    "p2": "It rains.",
    "p3": "",
}
CORPUS_HITS = {
    "Marie Curie won Nobel Prizes.": [("d1#0", "d1", "Curie received the Nobel Prize twice.")],
    "Paris is old.": [("d2#0", "d2", "Paris was founded long ago.")],
}
GROUNDED = {
    ("Curie received the Nobel Prize twice.", "Marie Curie won Nobel Prizes."): 0.9,
    ("Paris was founded long ago.", "Paris is old."): 0.9,
}


def mock(tmp_path: Path, method: str = "russellian") -> tuple[Task, dict[str, str], JudgeStack]:
    task = load_task(
        build_tiny_task(
            tmp_path, [(q, f"passage {q}") for q in PASSAGES], task_id="passages", metrics=["decompscore"]
        )
    )
    stack = fake_stack(
        llm=FakeLLM(reply), entailment=FakeEntailment(GROUNDED), retriever=FakeRetriever(CORPUS_HITS)
    )
    return task, dict(PASSAGES), stack


def score(task: Task, answers: dict[str, str], judges: JudgeStack, tmp_path: Path) -> tuple[Any, Path]:
    """The Russellian method with one static example, through the real runner."""
    return score_task(
        REGISTRY["decompscore"],
        task,
        answers,
        judges,
        model=ModelInfo(id="decomposer/russellian"),
        results_root=tmp_path / "results",
        settings=DecompSettings(method="russellian", static_examples=1, retrieved_examples=0),
        options=RunOptions(progress=False),
    )


def test_decompscore_number_for_number(tmp_path: Path) -> None:
    task, answers, judges = mock(tmp_path)
    result, path = score(task, answers, judges, tmp_path)
    per = {q.query_id: q for q in result.per_query}
    # p1: 2 + 3 subclaims; supported 2 + 2; NLI (fake table) entails none of them
    assert per["p1"].scores["decompscore"] == 4.0 and per["p1"].scores["coherence"] == 0.8
    assert per["p1"].scores["subclaims_per_unit"] == 2.5 and per["p1"].scores["decompscore_nli"] == 0.0
    assert per["p1"].counts["subclaims_repeated"] == 1
    # p2: the only sentence could not be decomposed: failed, no scores (never 0)
    assert per["p2"].failed and per["p2"].failures[0].startswith("decomposition:")
    # p3: nothing to decompose: 0 supported subclaims
    assert per["p3"].scores["decompscore"] == 0.0
    assert result.scores["decompscore"].value == 2.0 and result.scores["decompscore"].n == 2
    assert result.notes == ["S_fact effect not computed: no corpus (pass --corpus or --task with a corpus)"]
    traces = [
        DecompTrace.model_validate_json(line)
        for line in path.with_name(path.stem + ".traces.jsonl").read_text().splitlines()
    ]
    assert all(trace_scores(t) == t.scores for t in traces)  # published results recompute from traces


def test_s_fact_effect_with_a_corpus(tmp_path: Path) -> None:
    task, answers, judges = mock(tmp_path)
    task.card = task.card.model_copy(update={"corpus": task.card.corpus.model_copy(update={"kind": "table"})})
    result, _ = score(task, {"p1": answers["p1"]}, judges, tmp_path)
    [p1] = result.per_query
    # grounded: "Marie Curie won Nobel Prizes." (supported) and "Paris is old." (not supported)
    assert p1.scores["s_fact_all"] == pytest.approx(2 / 5)
    assert p1.scores["s_fact_coherent"] == pytest.approx(1 / 4)  # dropping "Paris is old." lowers S_fact
    assert p1.scores["s_fact_change"] == pytest.approx(1 / 4 - 2 / 5)


def test_icat_claims_by_a_named_decomposition_method(tmp_path: Path) -> None:
    from benchmark.families.icat.pipeline import ICATState, _Query, extract_claims
    from benchmark.families.icat.trace import ICATTrace

    _, _, judges = mock(tmp_path)
    judges.profile = judges.profile.model_copy(
        update={
            "claims": judges.profile.claims.model_copy(update={"extractor": "russellian", "min_words": 1})
        }
    )
    state = ICATState(task=None, judges=judges, retriever=None, aspect_qrels={}, variants=("m",), beta=1.0)  # type: ignore[arg-type]
    queries = [_Query(q, "", a, ICATTrace(query_id=q, query="", answer=a)) for q, a in PASSAGES.items() if a]
    extract_claims(state, queries)
    assert [c.text for c in queries[0].claims.claims] == [
        "Marie Curie won Nobel Prizes.",
        "Marie Curie won two Nobel Prizes.",
        "Paris is in France.",
        "Paris is large.",
        "Paris is old.",
    ]
    assert queries[1].trace.failures[0].startswith("claims: 1 sentence(s) could not be decomposed")


# -- the dependency method (spaCy) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Marie Curie discovered polonium and radium in 1898.",
            [
                "Marie Curie discovered polonium.",
                "Marie Curie discovered radium.",
                "Marie Curie discovered polonium in 1898.",
            ],
        ),
        (
            "The bridge, which opened in 1937, was the longest suspension bridge in the world.",
            [
                "The bridge opened.",
                "The bridge opened in 1937.",
                "The bridge was the longest suspension bridge.",
                "The bridge was the longest suspension bridge in the world.",
            ],
        ),
        (
            "The museum was founded in 1870 and moved to its current building in 1902.",
            [
                "The museum was founded.",
                "The museum was founded in 1870.",
                "The museum moved.",
                "The museum moved to its current building.",
                "The museum moved in 1902.",
            ],
        ),
    ],
)
def test_dependency_method_on_fixed_sentences(sentence: str, expected: list[str]) -> None:
    [unit] = Decomposer("dependency").decompose([sentence])
    assert unit.subclaims == expected


def test_texts_file_errors_name_file_line_and_field(tmp_path: Path) -> None:
    from benchmark.core.errors import InputError
    from benchmark.families.decompscore.texts import read_texts

    path = tmp_path / "texts.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"id": "a", "text": "fine"}),
                "{not json",
                json.dumps({"id": "b", "text": 3}),
                json.dumps({"id": "a", "text": "again"}),
                json.dumps({"query_id": "", "answer": "x"}),
            ]
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as exc:
        read_texts(path)
    text = str(exc.value)
    for needle in ("line 2", "line 3, field 'text'", "line 4, field 'id'", "line 5, field 'query_id'"):
        assert needle in text


def test_texts_become_a_task_with_the_base_tasks_queries_and_corpus(tmp_path: Path) -> None:
    from benchmark.core.errors import InputError
    from benchmark.families.decompscore.texts import load_texts_task, read_texts, texts_task

    path = tmp_path / "My Answers.v2.jsonl"  # an outputs file: query_id and answer
    path.write_text(
        "\n".join(json.dumps({"query_id": q, "answer": f"Answer to {q}."}) for q in ("175", "182")),
        encoding="utf-8",
    )
    rows = read_texts(path)
    assert rows == [("175", "Answer to 175."), ("182", "Answer to 182.")]
    task = texts_task(path, rows, load_task("webtrack-2009-2012"))
    assert task.id == "webtrack-2009-2012.my-answers-v2"  # no dots in the stem: the id splits on one
    assert task.has_table("corpus") and task.card.corpus.kind == "table"
    assert task.table("queries")["text"].tolist()[0] == "signs of a heartattack"  # the topic, not the answer
    assert task.data_fingerprint.startswith("sha256:") and "+" in task.data_fingerprint
    (tmp_path / "my-answers-v2.jsonl").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_texts_task(task.id, tmp_path).table("queries").equals(task.table("queries"))
    alone = texts_task(path, rows, None)
    assert alone.id == "texts.my-answers-v2" and alone.card.corpus.kind == "none"
    with pytest.raises(InputError, match="not among webtrack-2009-2012's query ids"):
        texts_task(path, [("nope", "x")], load_task("webtrack-2009-2012"))


def test_the_retrieved_example_is_the_most_similar_not_the_next_in_line() -> None:
    pool = [Example(s, {}) for s in ("a river", "a tower", "a prize", "a bridge", "a novel prize")]
    chosen = select_examples("they built the bridge", pool, 2, 1, bag_of_words)
    assert [e.sentence for e in chosen] == ["a river", "a tower", "a bridge"]
    vector = bag_of_words(["they built the bridge"])[0]  # a caller's batched vector gives the same choice
    assert select_examples("ignored", pool, 2, 1, bag_of_words, source_vector=vector) == chosen


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    return mock(tmp_path)


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"decompscore": contract_mock}
