"""The attribution family: ALCE's citation recall and precision and the TREC RAG weighted
support scores by hand, sentences and citations parsed from answers and from TREC RAG run
files (2024 and 2025 formats), both support judges, and runs through the real command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmark.answers.citations import CitedSentence, cited_sentences
from benchmark.answers.trec_rag_run import read_trec_rag_run
from benchmark.core.errors import InputError
from benchmark.families.attribution import formulas
from benchmark.families.attribution.formulas import FULL, NONE, PARTIAL, Sentence
from benchmark.families.attribution.judges import EntailmentSupport, LLMSupport, parse_level
from benchmark.families.attribution.pipeline import AttributionState, score_batch
from benchmark.tasks import Task, load_task
from tests.helpers import build_tiny_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

# -- the formulas, by hand -------------------------------------------------------------------


def test_a_redundant_citation_costs_precision_and_a_jointly_needed_one_does_not() -> None:
    # s1 cites [a, b]: a supports alone, b does not and a still supports without it -> b is redundant
    redundant = Sentence(alone=(FULL, NONE), joint=FULL, without=(None, FULL))
    # s2 cites [c, d]: neither supports alone, only together -> both needed
    joint = Sentence(alone=(NONE, NONE), joint=FULL, without=(NONE, NONE))
    # s3 cites nothing; s4 cites [7] of five passages (out of range) and nothing valid
    uncited, out_of_range = Sentence(), Sentence(invalid=1)
    sents = [redundant, joint, uncited, out_of_range]
    assert formulas.citation_recall(sents) == pytest.approx(2 / 4)
    # citations: 2 + 2 + 0 + 1 invalid = 5; relevant: a, c, d
    assert formulas.citation_precision(sents) == pytest.approx(3 / 5)
    assert formulas.uncited(sents) == pytest.approx(2 / 4)
    assert formulas.invalid_citations(sents) == pytest.approx(1 / 5)
    # TREC weighted: per citation alone 1,0,0,0 + invalid 0 -> 1/5; per sentence best: 1,0,0,0 -> 1/4
    assert formulas.support_precision(sents) == pytest.approx(1 / 5)
    assert formulas.support_recall(sents) == pytest.approx(1 / 4)


def test_partial_support_counts_half_in_the_trec_scores_and_not_at_all_in_alces() -> None:
    s = [
        Sentence(alone=(PARTIAL,), joint=PARTIAL),
        Sentence(alone=(FULL, PARTIAL), joint=FULL, without=(None, FULL)),
    ]
    assert formulas.citation_recall(s) == pytest.approx(1 / 2)
    assert formulas.citation_precision(s) == pytest.approx(1 / 3)  # only the second sentence's first
    assert formulas.support_precision(s) == pytest.approx((0.5 + 1 + 0.5) / 3)
    assert formulas.support_recall(s) == pytest.approx((0.5 + 1) / 2)


def test_a_failed_judgement_leaves_the_answer_undetermined_never_zero() -> None:
    failed = [Sentence(alone=(None,), joint=None), Sentence(alone=(FULL,), joint=FULL)]
    scores = formulas.attribution_scores(failed)
    assert scores["citation_recall"] is None and scores["citation_precision"] is None
    assert scores["support_recall"] is None and scores["support_precision"] is None
    # a leave-one-out judgement that decides precision and is missing
    undecided = [Sentence(alone=(NONE, FULL), joint=FULL, without=(None, None))]
    assert formulas.citation_precision(undecided) is None
    assert formulas.citation_recall(undecided) == 1.0


def test_an_answer_citing_nothing_has_recall_zero_and_no_precision() -> None:
    s = [Sentence(), Sentence()]
    assert formulas.citation_recall(s) == 0.0 and formulas.support_recall(s) == 0.0
    assert formulas.citation_precision(s) is None and formulas.support_precision(s) is None
    assert formulas.attribution_scores([])["citation_recall"] is None


# -- sentences and citations ---------------------------------------------------------------------


def test_citations_belong_to_the_sentence_they_close() -> None:
    got = cited_sentences("Paris is in France [1]. It is old. [2][9] Lyon is too [1, 3].\n[2]", 3)
    assert got == [
        CitedSentence("Paris is in France.", (0,)),
        CitedSentence("It is old.", (1,), ("9",)),
        CitedSentence("Lyon is too.", (0, 2, 1)),
    ]


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


REFS = ["seg-a#0_1", "seg-b#3_9", "seg-c#1_4"]
RUN_2024 = {
    "run_id": "my-run",
    "topic_id": "q1",
    "topic": "where is paris",
    "references": REFS,
    "response_length": 9,
    "answer": [
        {"text": "Paris is in France.", "citations": [0, 2]},
        {"text": "It is old.", "citations": [5]},
        {"text": "Nothing cited.", "citations": []},
    ],
}
RUN_2025 = {
    "metadata": {
        "team_id": "team",
        "run_id": "r25",
        "type": "automatic",
        "narrative_id": 2,
        "narrative": "n",
    },
    "references": REFS,
    "answer": [{"text": "Lyon is in France.", "citations": ["seg-b#3_9", "seg-z#0_0"]}],
}


def test_trec_rag_run_files_of_both_years_read_as_they_are(tmp_path: Path) -> None:
    (run,) = read_trec_rag_run(_write(tmp_path / "r24.jsonl", [RUN_2024]))
    topic = run.topics["q1"]
    assert (run.run_id, run.team_id, topic.references, topic.topic) == (
        "my-run",
        None,
        REFS,
        "where is paris",
    )
    assert topic.sentences == [
        CitedSentence("Paris is in France.", (0, 2)),
        CitedSentence("It is old.", (), ("5",)),
        CitedSentence("Nothing cited."),
    ]
    # the answer text as the run gave it: no citation markers inserted (they travel in sentences)
    assert topic.answer == "Paris is in France. It is old. Nothing cited."
    (run25,) = read_trec_rag_run(_write(tmp_path / "r25.jsonl", [RUN_2025]))  # format 2: segment ids
    assert run25.team_id == "team" and list(run25.topics) == ["2"]
    assert run25.topics["2"].sentences == [CitedSentence("Lyon is in France.", (1,), ("seg-z#0_0",))]


def test_a_malformed_run_line_is_refused_by_line_and_field(tmp_path: Path) -> None:
    bad = [
        RUN_2024,
        "{not json",
        {**RUN_2024, "topic_id": "q2", "references": "seg-a"},
        {**RUN_2024, "topic_id": "q3", "answer": [{"text": "x", "citations": [0.5]}]},
        {k: v for k, v in RUN_2024.items() if k != "run_id"} | {"topic_id": "q4"},
        {"metadata": {"run_id": "r"}, "references": REFS, "answer": [{"text": "x", "citations": []}]},
        {**RUN_2024},  # the first topic again
    ]
    with pytest.raises(InputError) as err:
        read_trec_rag_run(_write(tmp_path / "bad.jsonl", bad))
    where = {(p.line, p.field) for p in err.value.problems}
    assert {
        (2, None),
        (3, "references"),
        (4, "answer[0].citations"),
        (5, "run_id"),
        (6, "metadata.narrative_id"),
        (7, None),
    } <= where
    assert all(p.file.endswith("bad.jsonl") for p in err.value.problems)


# -- the judges and the pipeline ---------------------------------------------------------------

TEXTS = {
    "A": "Paris is the capital of France.",
    "B": "The Seine flows through Paris.",
    "C": "Lyon is a city.",
}


def _state(
    judge: Any, given: dict[str, list[str]], split: dict[str, list[CitedSentence]] | None = None
) -> AttributionState:
    return AttributionState(judge, TEXTS.get, given, split or {})


def test_the_pipeline_asks_leave_one_out_only_where_it_decides_precision() -> None:
    s1 = "Paris is the French capital."
    ent = FakeEntailment(
        {(TEXTS["A"], s1): 0.9, (TEXTS["A"] + "\n\n" + TEXTS["C"], s1): 0.9, (TEXTS["A"], s1 + "x"): 0.1}
    )
    answer = f"{s1} [1][3] An uncited claim. Lyon [9]."
    (t,) = score_batch(_state(EntailmentSupport(ent), {"q": ["A", "B", "C"]}), [("q", "paris", answer)])
    first = t.sentences[0]
    assert [c.alone for c in first.citations] == ["full", "none"] and first.joint == "full"
    # C does not support alone, A still does without C: one leave-one-out question, C redundant
    assert [c.without for c in first.citations] == [None, "full"]
    assert ([TEXTS["A"]], s1) in [([p], h) for p, h in ent.calls[-1]]
    assert len(ent.calls) == 2 and len(ent.calls[-1]) == 1
    assert t.scores["citation_recall"] == pytest.approx(1 / 3)
    assert t.scores["citation_precision"] == pytest.approx(1 / 3)  # A of A, C, [9]
    assert t.scores["invalid_citations"] == pytest.approx(1 / 3)
    assert t.counts["citations"] == 2 and t.partial_level is False


def test_a_cited_passage_missing_from_the_corpus_is_a_failure_not_a_zero() -> None:
    ent = FakeEntailment({}, default=0.9)
    (t,) = score_batch(_state(EntailmentSupport(ent), {"q": ["A", "GONE"]}), [("q", "x", "Claim one [2].")])
    assert t.scores["citation_recall"] is None and t.scores["support_precision"] is None
    assert t.scores["uncited"] == 0.0  # what needs no judge is still known
    assert "GONE" in t.failures[0] and t.failures[0].startswith("support:")


def test_the_llm_judge_says_partial_and_a_bad_reply_is_a_failure_with_its_raw_text() -> None:
    assert parse_level(" Partial.") == "partial"
    with pytest.raises(ValueError, match="full, partial or none"):
        parse_level("yes")
    llm = FakeLLM(lambda m: "partial" if "Paris" in m[-1]["content"] else "maybe")
    runs = {"q": [CitedSentence("Paris is big.", (0,)), CitedSentence("Lyon is big.", (2,))]}
    (t,) = score_batch(
        _state(LLMSupport(llm, max_retries=1), {"q": ["A", "B", "C"]}, runs), [("q", "x", "ignored")]
    )
    assert t.sentences[0].citations[0].alone == "partial"
    assert t.sentences[1].citations[0].alone is None and t.sentences[1].raw == ["maybe", "maybe"]
    assert t.scores["support_recall"] is None and t.failures
    assert t.partial_level is True


# -- the family, through the runner and the command line --------------------------------------

CORPUS = pd.DataFrame({"doc_id": list(TEXTS), "text": list(TEXTS.values())})


def tiny(tmp_path: Path) -> Task:
    return load_task(
        build_tiny_task(
            tmp_path,
            [("q1", "paris"), ("q2", "lyon")],
            task_id="tiny-attribution",
            tables={"corpus": CORPUS},
            metrics=["attribution"],
            corpus={"kind": "table"},
        )
    )


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    ent = FakeEntailment({}, default=0.9)
    stack = fake_stack(llm=FakeLLM(lambda m: "full"), entailment=ent, retriever=FakeRetriever({}))
    return tiny(tmp_path), {"q1": "Paris is a capital.", "q2": "Lyon is a city."}, stack


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"attribution": contract_mock}


def test_closed_book_answers_are_not_applicable_never_zero(tmp_path: Path) -> None:
    from benchmark.core.results import ModelInfo
    from benchmark.families import REGISTRY
    from benchmark.scoring.run import Job, score_jobs

    task, answers, stack = contract_mock(tmp_path)
    family = REGISTRY["attribution"]
    skipped: list[str] = []
    jobs = [
        Job(task, answers, ModelInfo(id="m/closed"), None, [(family, family.settings_model())]),
        Job(
            task,
            answers,
            ModelInfo(id="m/rag"),
            {"q1": ["A"], "q2": ["C"]},
            [(family, family.settings_model())],
        ),
    ]
    done = score_jobs(
        jobs,
        stack,
        results_root=tmp_path / "r",
        on_skip=lambda f, j, why: skipped.append(f"{j.model.id}: {why}"),
    )
    assert skipped == ["m/closed: closed-book answers were given no passages and cite none"]
    assert [r.model.id for r, _ in done] == ["m/rag"]


def test_a_trec_rag_run_scores_through_the_command_line(tmp_path: Path) -> None:
    """A 2024-format run file on trec-rag24 with a segment corpus, the real offline judge."""
    from benchmark.cli.main import main
    from benchmark.core.results import read_result

    task = load_task("trec-rag24")
    qid, query = (str(v) for v in task.table("queries").iloc[0][["query_id", "text"]])
    segs = [
        {
            "docid": "msmarco_v2.1_doc_00_1#0_1",
            "title": "WBC",
            "segment": "A white blood cell count above 11,000 is called leukocytosis.",
        },
        {"docid": "msmarco_v2.1_doc_00_1#1_2", "title": "Cats", "segment": "Cats sleep for most of the day."},
    ]
    corpus = _write(tmp_path / "segments.jsonl", segs)
    run = {
        "run_id": "tiny-run",
        "topic_id": qid,
        "topic": query,
        "references": ["msmarco_v2.1_doc_00_1#0_1", "msmarco_v2.1_doc_00_1#1_2"],
        "response_length": 20,
        "answer": [
            {"text": "A white blood cell count above 11,000 is called leukocytosis.", "citations": [0]},
            {"text": "Cats sleep for most of the day.", "citations": [0]},
            {"text": "See a doctor.", "citations": []},
        ],
    }
    path = _write(tmp_path / "run.jsonl", [run])
    out = tmp_path / "results"
    code = main(
        ["score", "--trec-rag-run", str(path), "--tasks", "trec-rag24", "--corpus", str(corpus),
         "--metrics", "attribution", "--results-dir", str(out), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    (res,) = [read_result(p) for p in out.rglob("*.attribution.json")]
    assert res.model.id == "tiny-run" and res.model.rag is not None and res.model.rag.retriever == "run"
    # sentence 1 is its cited segment word for word; sentence 2 cites the wrong one; 3 cites none
    assert res.scores["citation_recall"].value == pytest.approx(1 / 3)
    assert res.scores["citation_precision"].value == pytest.approx(1 / 2)
    assert res.scores["uncited"].value == pytest.approx(1 / 3)


# -- RAG diagnostics ----------------------------------------------------------------------------


def test_rag_diagnostics_tell_context_self_knowledge_and_hallucination_apart() -> None:
    from benchmark.families.attribution.pipeline import Diagnostics

    in_context, known, made_up = "Paris is the capital.", "Lyon is in France.", "The moon is cheese."
    ent = FakeEntailment(
        {(TEXTS["A"], in_context): 0.9, ("Lyon is a French city on the Rhone.", known): 0.8}, threshold=0.5
    )
    corpus = FakeRetriever({known: [("L#0", "L", "Lyon is a French city on the Rhone.")], made_up: []})
    d = Diagnostics(ent, corpus, 10, relevant={"q": {"A", "B"}})  # type: ignore[arg-type]
    state = _state(EntailmentSupport(ent), {"q": ["A", "B", "C"]})
    state.diagnostics = d
    answer = f"{in_context} [1] {known} {made_up} [3]"
    (t,) = score_batch(state, [("q", "x", answer)])
    assert [s.source for s in t.sentences] == ["context", "corpus", "neither"]
    assert t.sentences[0].context_support == ["A"] and t.sentences[1].corpus_passage == "L#0"
    assert t.relevant_given == ["A", "B"]
    assert t.scores["faithfulness"] == pytest.approx(1 / 3)
    assert t.scores["self_knowledge"] == pytest.approx(1 / 3)
    assert t.scores["hallucination"] == pytest.approx(1 / 3)
    assert t.scores["context_utilisation"] == pytest.approx(1 / 2)  # A used, B (relevant) not
    assert not t.failures

    # a check that fails leaves that sentence's source undetermined, recorded, never "neither"
    ent.table[(TEXTS["B"], made_up)] = None
    (t,) = score_batch(state, [("q", "x", answer)])
    assert t.sentences[2].source is None and t.scores["hallucination"] is None
    assert any(f.startswith("diagnostics:") for f in t.failures)


def test_claims_as_units_inherit_their_sentences_citations() -> None:
    from benchmark.judging.decomposition import Decomposer

    def split(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "Lyon" in text:
            return "- Paris is the capital of France.\n- Lyon is a city."
        return "I cannot do that."

    both = TEXTS["A"] + "\n\n" + TEXTS["C"]
    ent = FakeEntailment(
        {
            (TEXTS["A"], "Paris is the capital of France."): 0.9,
            (both, "Paris is the capital of France."): 0.9,
            (TEXTS["C"], "Lyon is a city."): 0.9,
            (both, "Lyon is a city."): 0.9,
        }
    )
    state = _state(EntailmentSupport(ent), {"q": ["A", "B", "C"]})
    state.decomposer = Decomposer("factscore", llm=FakeLLM(split), retrieved_examples=0, max_retries=1)  # type: ignore[arg-type]
    answer = "Paris is the capital of France and Lyon is a city [1][3]. Figs grow [2]."
    (t,) = score_batch(state, [("q", "x", answer)])
    first, second, third = t.sentences
    assert [first.text, second.text] == ["Paris is the capital of France.", "Lyon is a city."]
    assert first.sentence == second.sentence == "Paris is the capital of France and Lyon is a city."
    assert [c.number for c in first.citations] == [c.number for c in second.citations] == [1, 3]
    # each claim is supported by one of the two citations: recall counts both, precision ½ each
    assert (first.joint, second.joint) == ("full", "full")
    assert [c.alone for c in first.citations] == ["full", "none"] and first.citations[1].without == "full"
    # the sentence the method could not split stays one unit, failed, not "no claims"
    assert third.text == "Figs grow." and third.errors[0].startswith("claims:")
    assert t.scores["citation_recall"] is None and t.failures
