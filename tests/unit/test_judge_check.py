"""The judge robustness check's perturbations and trend report, on scripted models."""

from __future__ import annotations

import pytest
from scipy import stats as st

from benchmark.metaeval.judge_check import IrrelevantHits, inject_contradictions, parse_rewrite, trend
from benchmark.retrieval import Passage
from tests.helpers.fakes import FakeLLM, FakeRetriever

HITS = {
    "claim": [(f"rel{i}#0", f"rel{i}", f"relevant passage {i}") for i in range(10)],
}
POOL = [Passage(f"other{i}#0", f"other{i}", f"irrelevant passage {i}", 0) for i in range(30)] + [
    Passage("rel3#1", "rel3", "another passage of a relevant document", 96)
]


@pytest.mark.parametrize(
    ("fraction", "replaced"), [(0.0, 0), (0.1, 1), (0.2, 2), (0.5, 5), (0.7, 7), (1.0, 10)]
)
def test_a_share_of_hits_is_replaced_by_other_documents(fraction: float, replaced: int) -> None:
    perturbed = IrrelevantHits(FakeRetriever(HITS), POOL, fraction, seed=1)
    [hits] = perturbed.search(["claim"], 10)
    swapped = [h for h in hits if h.doc_id.startswith("other")]
    assert len(swapped) == replaced and len(hits) == 10
    assert [h.rank for h in hits] == list(range(1, 11))  # places kept
    assert not any(h.doc_id == "rel3" and h.passage_id == "rel3#1" for h in hits)  # never a relevant doc
    again = IrrelevantHits(FakeRetriever(HITS), POOL, fraction, seed=1).search(["claim"], 10)[0]
    assert again == hits  # seeded
    assert perturbed.identity["irrelevant_fraction"] == fraction


def test_contradictions_cycle_through_sentences_and_failures_are_counted() -> None:
    def reply(messages: list[dict[str, str]]) -> str:
        asked = next(
            m["content"] for m in reversed(messages) if m["role"] == "user" and "Sentence: " in m["content"]
        )
        sentence = asked.split("Sentence: ", 1)[1].split("\n", 1)[0]
        return "ok" if "never" in sentence else f"It is false that {sentence.rstrip('.').lower()}."

    llm = FakeLLM(reply)
    answers = {"q1": "Cats purr. Dogs bark.", "q2": "This never works.", "q3": ""}
    out = inject_contradictions(answers, 3, llm, seed=0, max_retries=1)
    assert out["q1"].injected == 3 and out["q1"].failed == 0
    assert out["q1"].text.count("It is false that") == 3 and out["q1"].text.startswith(("Cats purr.", "Dogs"))
    # "ok" is not a rewrite: retried once, then left out and counted
    assert out["q2"].injected == 0 and out["q2"].failed == 3 and out["q2"].text == "This never works."
    assert out["q3"].text == "" and out["q3"].injected == 0
    assert inject_contradictions(answers, 0, llm)["q1"].text == answers["q1"]
    with pytest.raises(ValueError):
        parse_rewrite("ok")


def test_trend_reports_r_and_monotonic_decrease() -> None:
    levels, values = [0, 10, 20, 50, 70, 100], [0.9, 0.85, 0.85, 0.6, 0.4, 0.1]
    t = trend(levels, values)
    assert (t.pearson, t.pearson_p) == pytest.approx(tuple(st.pearsonr(levels, values)))
    assert t.monotonic_decrease is True
    assert trend(levels, [0.9, 0.95, 0.8, 0.6, 0.4, 0.1]).monotonic_decrease is False
    assert trend(levels, [0.9, None, 0.8, 0.6, 0.4, 0.1]).monotonic_decrease is None
    assert trend([0, 5, 20], [0.5, 0.5, 0.5]).pearson is None  # constant: r undefined, not 0


@pytest.mark.parametrize(("fraction", "replaced"), [(0.5, 2), (0.1, 0), (0.2, 1)])
def test_the_share_of_a_short_list_rounds_half_up(fraction: float, replaced: int) -> None:
    three = {"claim": HITS["claim"][:3]}  # 1.5 hits -> 2, 0.3 -> 0, 0.6 -> 1
    [hits] = IrrelevantHits(FakeRetriever(three), POOL, fraction, seed=1).search(["claim"], 3)
    assert sum(h.doc_id.startswith("other") for h in hits) == replaced
