"""Strict parsing of LLM outputs for claims, aspects and alignment."""

from __future__ import annotations

import pytest

from benchmark.families.icat.aspects import (
    Aspect,
    alignment_to_ids,
    manual_alignment,
    parse_alignment,
    parse_aspects,
)
from benchmark.families.icat.claims import parse_claims, select_claims, sentence_claims


def test_claims_bullets_numbers_none_and_failure() -> None:
    text = "Atomic facts:\n- Coffee contains caffeine.\n2. Caffeine is a stimulant drug.\n- ok\n- Coffee contains caffeine."
    assert parse_claims(text) == [
        "Coffee contains caffeine.",
        "Caffeine is a stimulant drug.",
        "ok",
        "Coffee contains caffeine.",
    ]  # every candidate: the recorded filters of select_claims decide what is a claim
    assert parse_claims("NONE") == []
    assert parse_claims("  none. ") == []
    with pytest.raises(ValueError):
        parse_claims(
            "Coffee is good for you and that is all."
        )  # prose, not a list: retry, never "zero claims"


def test_sentence_claims_split_on_sentences_and_lines_not_abbreviations() -> None:
    answer = (
        "Asbestos risks\n"
        "Asbestos was banned in the U.K. in 1999. Dr. Smith studied it for 20 years, e.g. in mines.\n"
        "- Mesothelioma is linked to asbestos exposure.\n"
        "ok then\n"
        "Asbestos was banned in the U.K. in 1999."
    )
    assert sentence_claims(answer) == [
        "Asbestos risks",
        "Asbestos was banned in the U.K. in 1999.",
        "Dr. Smith studied it for 20 years, e.g. in mines.",
        "Mesothelioma is linked to asbestos exposure.",
        "ok then",
        "Asbestos was banned in the U.K. in 1999.",
    ]
    assert sentence_claims("") == []


def test_select_claims_counts_every_candidate_it_drops() -> None:
    candidates = [
        "Asbestos risks",
        "Asbestos was banned in 1999.",
        "ok then",
        "asbestos WAS banned in  1999.",
    ]
    chosen = select_claims(candidates, min_words=3)
    assert [c.text for c in chosen.claims] == ["Asbestos was banned in 1999."]
    assert [c.claim_id for c in chosen.claims] == ["c1"]
    assert chosen.counts() == {
        "claim_candidates": 4,
        "claims_repeated": 1,
        "claims_too_short": 2,
        "claims_truncated": 0,
    }
    many = select_claims([f"Fact number {i} is stated here." for i in range(69)], max_claims=64)
    assert len(many.claims) == 64 and many.truncated == 5
    assert len(select_claims([f"Fact {i} here." for i in range(200)]).claims) == 200  # no cap: all of AC(y)


def test_aspects_limit_and_ids() -> None:
    text = "\n".join(f"- aspect number {i}" for i in range(1, 14))
    aspects = parse_aspects(text)
    assert len(aspects) == 10 and aspects[0] == Aspect("g1", "aspect number 1")
    with pytest.raises(ValueError):
        parse_aspects("I cannot help with that.")


def test_alignment_paper_format() -> None:
    text = '```\n{"aspect": 1, "claims": [1, 3]}\n{"aspect": 2, "claims": [3]}\n```'
    mapping = parse_alignment(text, n_aspects=3, n_claims=3)
    assert mapping == {1: {1}, 3: {1, 2}}
    aspects = [Aspect("a", "x"), Aspect("b", "y"), Aspect("c", "z")]
    assert alignment_to_ids(mapping, ["c1", "c2", "c3"], aspects) == {"c1": ["a"], "c2": [], "c3": ["a", "b"]}
    assert parse_alignment("NONE", 3, 3) == {}


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "aspect 1 covers claim 2",
        '{"aspect": 4, "claims": [1]}',
        '{"aspect": 1, "claims": [0]}',
        '{"aspect": 1}',
        '{"aspect": true, "claims": [1]}',
    ],
)
def test_alignment_rejects_malformed(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_alignment(bad, n_aspects=3, n_claims=3)


def test_manual_alignment_uses_first_supporting_doc() -> None:
    qrels = {("7", "d1"): {"2", "3"}, ("7", "d2"): {"1"}}
    assert manual_alignment("7", {"c1": "d1", "c2": None, "c3": "d9"}, qrels) == {
        "c1": ["2", "3"],
        "c2": [],
        "c3": [],
    }
