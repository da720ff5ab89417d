"""A reply that reproduces the prompt's worked example is a failure, never a rating.

Every prompt file that carries examples is checked (arguments, the EXAM reader, claims,
aspects, alignment, decomposition, sub-questions, ...): its example's output, returned as
the reply to a fresh input, is refused and retried when it holds free text, and only
counted as a match when it is ratings or labels alone."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from benchmark.models import example_copies
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured
from tests.helpers.fakes import FakeLLM


def _every_prompt_file() -> list[Path]:
    """The shared prompts and every registered family's own (``families/<id>/prompts/``)."""
    from benchmark.models import prompts

    return sorted({p for folder in prompts.folders() for p in folder.glob("*.yaml")})


def _ref(path: Path) -> str:
    name, _, version = path.stem.rpartition("-v")
    return f"{name}@{version}"


WITH_EXAMPLES = sorted(
    _ref(p)
    for p in _every_prompt_file()
    if "template:" in p.read_text(encoding="utf-8") and load_prompt(_ref(p)).examples
)


def _fresh_messages(ref: str):  # type: ignore[no-untyped-def]
    """The prompt rendered for an input that shares nothing with its examples."""
    prompt = load_prompt(ref)
    fields = {f for _, f, _, _ in string.Formatter().parse(prompt.template) if f}
    return prompt.render(**{f: "zebra quantum marmalade" for f in fields})


def test_every_prompt_family_with_examples_is_covered() -> None:
    assert {"argument-quality-listwise@1", "exam-rate@1", "exam-reader@1", "aspects@1", "alignment@1"} <= set(
        WITH_EXAMPLES
    )
    assert len(WITH_EXAMPLES) >= 15, WITH_EXAMPLES


@pytest.mark.parametrize("ref", WITH_EXAMPLES)
def test_the_example_returned_verbatim_is_refused_or_only_counted(ref: str) -> None:
    prompt = load_prompt(ref)
    example = prompt.examples[0][1]
    messages = _fresh_messages(ref)
    llm = FakeLLM(reply=lambda _m: example)
    (out,) = run_structured(llm, [messages], lambda s: s, max_retries=1)
    request = example_copies.request_text(messages)
    if example_copies.distinctive(example, request):  # wording, or many ratings: a copy, retried, failed
        assert not out.ok and example_copies.COPY_ERROR in (out.error or ""), (ref, out)
        assert out.copies == 2 and out.raw == [example, example] and out.value is None
        repair = llm.requests[1][-1]["content"]
        assert "worked example" in repair  # the repair turn says what was wrong
    else:  # a few ratings or labels: a real judge may agree with an example; counted when a vector
        assert out.ok and out.copies == 0, (ref, out)
        assert out.matched_example == (example_copies.values(example) >= 2), (ref, out)


def test_listwise_argument_judge_copy_and_a_fresh_judgement() -> None:
    """The offline argument judge's failure: the listwise example, verbatim, for every argument."""
    prompt = load_prompt("argument-quality-listwise@1")
    example = prompt.examples[0][1]
    request = example_copies.request_text(_fresh_messages("argument-quality-listwise@1"))
    assert example_copies.copied(example, [example], request) == "the whole reply"
    # fifteen ratings, whitespace and case aside, equal to the example's: a copy
    assert example_copies.copied(example.upper().replace(", ", ",\n  "), [example], request)
    # the judge's own ratings (one differs): not a copy, and not a match
    import json

    own = json.loads(example)
    own["cogency"] = 3 if own["cogency"] != 3 else 1
    assert example_copies.copied(json.dumps(own), [example], request) is None
    assert not example_copies.matches(json.dumps(own), [example])


def test_the_same_ratings_with_fresh_wording_are_a_match_not_a_copy() -> None:
    example = '{"rating": 2, "rationale": "The argument gives one example about electric cars."}'
    fresh = '{"rating": 2, "rationale": "It offers no support for its claim about zebras."}'
    assert example_copies.copied(fresh, [example], "zebras") is None
    assert example_copies.matches(fresh, [example])
    assert example_copies.copied(example, [example], "zebras") == "the whole reply"


def test_exam_reader_copies_and_the_honest_no_answer() -> None:
    examples = [out for _, out in load_prompt("exam-rate@1").examples]
    assert examples == ["Rating: 5\nAnswer: 330 metres", "Rating: 0\nAnswer: -"]
    request = "text: zebras eat grass. question: what do zebras eat?"
    assert example_copies.copied("rating: 5\n answer:   330 METRES", examples, request) == "the whole reply"
    # "no answer" is what an honest reader says whenever the text is silent: counted, not refused
    assert example_copies.copied("Rating: 0\nAnswer: -", examples, request) is None
    assert example_copies.matches("Rating: 0\nAnswer: -", examples)
    assert example_copies.copied("Rating: 5\nAnswer: grass", examples, request) is None
    assert example_copies.matches("Rating: 5\nAnswer: grass", examples) is False  # "grass" is a label here
    assert not example_copies.matches("yes", ["yes", "no"])  # one label is no rating vector
    # when the input itself says what the example says, repeating it is answering
    eiffel = "text: the tower is 330 metres tall. question: how tall is it?"
    assert example_copies.copied("Rating: 5\nAnswer: 330 metres", examples, eiffel) is None


def test_a_copied_part_of_a_longer_reply_is_a_copy() -> None:
    aspects = load_prompt("aspects@1").examples[0][1]
    reply = "- Zebra stripes and camouflage\n- Charging electric cars at home and in public\n- Zebra diets"
    assert "charging electric cars" in (example_copies.copied(reply, [aspects], "query: zebras") or "")
    # a short shared phrase is not enough
    assert example_copies.copied("- Electric cars\n- Zebra diets", [aspects], "query: zebras") is None


def test_a_copy_then_a_fresh_reply_is_accepted_after_the_repair_turn() -> None:
    messages = _fresh_messages("aspects@1")
    example = load_prompt("aspects@1").examples[0][1]
    replies = iter([example, "- Zebra stripes\n- What zebras eat and where they live"])
    (out,) = run_structured(FakeLLM(reply=lambda _m: next(replies)), [messages], lambda s: s, max_retries=2)
    assert out.ok and out.copies == 1 and out.attempts == 2 and not out.matched_example


def test_prompts_without_examples_are_not_checked(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "say something"}]
    (out,) = run_structured(FakeLLM(reply=lambda _m: "anything at all here"), [messages], lambda s: s)
    assert out.ok and out.copies == 0 and not out.matched_example


def test_decomposition_subclaims_borrowed_from_an_example_sentence_fail() -> None:
    """Decomposition's examples are chosen per sentence (static and retrieved): a reply that
    carries an example's subclaim into another sentence's decomposition is refused."""
    from benchmark.judging.decomposition import Decomposer, load_examples

    curie = load_examples()[0]
    source = "Born in Texas, Ada Lovelace moved to Los Angeles in 1990."
    borrowed = "- Ada Lovelace was born in Texas.\n- " + curie.decompositions["atomic"][2]
    honest = "- Ada Lovelace was born in Texas.\n- Ada Lovelace moved to Los Angeles in 1990."
    replies = iter([borrowed, borrowed, borrowed])
    llm = FakeLLM(reply=lambda _m: next(replies))
    (unit,) = Decomposer("factscore", llm=llm, max_retries=2, retrieved_examples=0).decompose([source])
    assert unit.error and example_copies.COPY_ERROR in unit.error and "born in poland" in unit.error
    llm = FakeLLM(reply=lambda _m: honest)
    (unit,) = Decomposer("factscore", llm=llm, max_retries=2, retrieved_examples=0).decompose([source])
    assert unit.error is None and len(unit.subclaims) == 2


def test_the_example_minus_a_field_is_still_a_copy_and_a_later_failure_says_so() -> None:
    """Fourteen of the listwise example's fifteen ratings, unchanged, are a copy; a failure
    whose first reply was refused as a copy says so even when its last reply failed otherwise."""
    import json

    example = load_prompt("argument-quality-listwise@1").examples[0][1]
    partial = json.loads(example)
    partial.pop("appropriateness")
    assert example_copies.copied(json.dumps(partial), [example], "") == "14 of the example's values"
    changed = {**partial, "cogency": 3 if partial["cogency"] != 3 else 1}
    assert example_copies.copied(json.dumps(changed), [example], "") is None  # its own ratings
    messages = _fresh_messages("argument-quality-listwise@1")
    replies = iter([json.dumps(partial), "I am sorry, here is my answer.", "still no JSON"])
    (out,) = run_structured(FakeLLM(reply=lambda _m: next(replies)), [messages], json.loads, max_retries=2)
    assert not out.ok and out.copies == 1
    assert example_copies.COPY_ERROR in (out.error or "") and "after 1 reply refused" in (out.error or "")


def test_for_the_exam_reader_the_short_label_is_a_copy() -> None:
    """Where a prompt's short label cannot be told from a copy (the EXAM reader's rating),
    the example's whole reply is refused however short; the same rating in other words is
    a rating, and a passage that itself says what the example says may be rated as it is."""
    examples = [out for _, out in load_prompt("exam-rate@1").examples]
    request = "text: zebras eat grass. question: where do zebras sleep?"
    assert example_copies.label_copy("rating: 0\n answer: -", examples, request)
    assert not example_copies.label_copy("Rating: 0\nAnswer: the text does not say", examples, request)
    assert example_copies.label_copy("Rating: 5\nAnswer: 330 metres", examples, request)
    eiffel = "text: the tower is 330 metres tall. question: how tall is it?"
    assert not example_copies.label_copy("Rating: 5\nAnswer: 330 metres", examples, eiffel)
    parse = example_copies.refusing_label_copies(str.upper, examples, request)
    with pytest.raises(ValueError, match="worked example"):
        parse("Rating: 0\nAnswer: -")
    assert parse("Rating: 1\nAnswer: -") == "RATING: 1\nANSWER: -"
