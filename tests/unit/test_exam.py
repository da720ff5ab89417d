"""EXAM / n-EXAM against hand-computed examples; answerers on fakes; EXAM++ round trips."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.errors import InputError
from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families import views as family_views
from benchmark.families.base import ScoringInputs
from benchmark.families.exam import formulas
from benchmark.families.exam.bank import ExamQuestion, questions_from_rows, task_bank
from benchmark.families.exam.exampp import (
    exam_from_grades,
    graders,
    judged_passages,
    read_bank,
    read_grades,
    write_bank,
    write_grades,
)
from benchmark.families.exam.family import ExamSettings
from benchmark.families.exam.judges import (
    EntailmentAnswerer,
    LLMAnswerer,
    SimilarityAnswerer,
    parse_choice,
    parse_rating,
)
from benchmark.families.exam.trace import ExamTrace
from benchmark.tasks import load_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, WordEmbedder, fake_stack

V = formulas.Verdict


@dataclass
class ContainsEntailment:
    """Supports an assertion "<question>? <option>" when the premise contains the option."""

    threshold: float = 0.5
    identity: str = "contains"
    calls: list[int] = field(default_factory=list)

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        self.calls.append(len(pairs))
        return [1.0 if h.rsplit("? ", 1)[-1].lower() in p.lower() else 0.2 for p, h in pairs]


MC = ExamQuestion(
    "q1", "q1/a", "Which planet is seventh?", "multiple-choice", ("Mars", "Uranus", "Venus"), "Uranus", "1"
)
FT = ExamQuestion("q1", "q1/b", "Who discovered it?", "free-text", (), "William Herschel", "2")


# -- formulas ------------------------------------------------------------------------


def test_exam_and_n_exam_by_hand() -> None:
    # query 1: 2 of 4 right (an abstention earns nothing); query 2: 3 of 3; query 3: skipped (empty text)
    q1 = [V(True, True), V(False, True), V(False, False), V(True, True)]
    q2 = [V(True, True)] * 3
    q3 = [V(False, False)] * 2
    system = [formulas.exam(q) for q in (q1, q2, q3)]
    assert system == [0.5, 1.0, 0.0]
    gold = [1.0, 0.5, 0.5]
    assert formulas.pooled_n_exam(system, gold) == pytest.approx(1.5 / 2.0)
    mean_gold = sum(gold) / 3
    per_query = [formulas.normalised(s, mean_gold) for s in system]
    assert sum(per_query) / 3 == pytest.approx(formulas.pooled_n_exam(system, gold))  # type: ignore[operator]
    assert formulas.answered_share(q1) == 0.75
    # n-EXAM exceeds 1 when the system's texts answer more than the gold articles
    assert formulas.pooled_n_exam([1.0, 1.0], [0.5, 0.5]) == 2.0
    assert formulas.pooled_n_exam([0.3], [0.0]) is None
    with pytest.raises(ValueError):
        formulas.pooled_n_exam([0.1], [0.1, 0.2])


def test_an_undetermined_verdict_leaves_exam_undetermined_never_zero() -> None:
    assert formulas.exam([V(True, True), V(None, None)]) is None
    assert formulas.exam([]) is None


def test_choose_option_abstains_below_threshold_and_on_near_ties() -> None:
    assert formulas.choose_option([0.2, 0.9, 0.4], threshold=0.5) == 1
    assert formulas.choose_option([0.2, 0.45, 0.4], threshold=0.5) is None
    assert formulas.choose_option([0.80, 0.81, 0.1], threshold=0.5, margin=0.02) is None
    assert formulas.choose_option([0.70, 0.81, 0.1], threshold=0.5, margin=0.02) == 1
    assert formulas.rated_answerable(4) is True and formulas.rated_answerable(3) is False
    assert formulas.rated_answerable(None) is None
    with pytest.raises(ValueError):
        formulas.choose_option([0.9, None], threshold=0.5)


# -- answerers -----------------------------------------------------------------------


def test_entailment_answerer_picks_the_supported_option_with_its_evidence() -> None:
    text = "Uranus is the seventh planet. William Herschel found it in 1781. It has rings."
    ent = ContainsEntailment()
    right, empty, ft = EntailmentAnswerer(ent, 0.5).read([(MC, text), (MC, ""), (FT, text)])
    assert ent.calls and len(ent.calls) == 1  # one batched call for every pair
    assert (right.correct, right.answered, right.choice) == (True, True, "Uranus")
    assert "Uranus" in (right.evidence or "") and right.support[1] == 1.0
    assert (empty.correct, empty.answered, empty.choice) == (False, False, None)
    assert (ft.correct, ft.answered) == (True, True) and "Herschel" in (ft.evidence or "")
    wrong = EntailmentAnswerer(ent, 0.5).read([(MC, "Mars is red. It is the fourth planet.")])[0]
    assert (wrong.correct, wrong.answered, wrong.choice) == (False, True, "Mars")
    no_key = EntailmentAnswerer(ent, 0.5).read([(ExamQuestion("q", "x", "Why?", "free-text"), text)])[0]
    assert no_key.correct is None and "LLM or the similarity answerer" in (no_key.error or "")


WORDS = ("tower", "tall", "paris", "bread")


def test_similarity_answerer_reads_free_text_by_its_closest_window_and_refuses_choices() -> None:
    """The offline reader of keyless free-text questions (EXAM++'s generated ones): answered
    when the closest sentence window reaches the threshold cosine, with that window as evidence;
    an empty text answers nothing; a multiple-choice question is a failure, not a guess."""
    text = "The tower is tall. It stands in Paris. Bread is cheap."
    items = [
        (ExamQuestion("q", "q/1", "How tall is the tower?", "free-text"), text),
        (ExamQuestion("q", "q/2", "Where does the tower stand?", "free-text"), text),
        (ExamQuestion("q", "q/3", "How tall is the tower?", "free-text"), ""),
        (ExamQuestion("q", "q/4", "Where?", "multiple-choice", ("Paris", "Rome"), "Paris"), text),
    ]
    tall, stand, empty, choice = SimilarityAnswerer(WordEmbedder(WORDS), 0.9).read(items)
    assert tall.answered and tall.correct and tall.support[0] > 0.9
    assert tall.evidence is not None and "tall" in tall.evidence
    assert stand.answered is False and stand.correct is False and stand.evidence is None
    assert 0.5 < stand.support[0] < 0.9  # on topic ("tower"), not close enough
    assert empty.answered is False and empty.support == [0.0] and empty.error is None
    assert choice.error and "multiple-choice" in choice.error and choice.answered is None
    # the threshold is the only setting, and it is part of what the answerer records
    assert SimilarityAnswerer(WordEmbedder(WORDS), 0.9).identity == {
        "answerer": "similarity",
        "embedder": "words",
        "threshold": 0.9,
    }


def test_entailment_failure_is_a_failed_question() -> None:
    ent = FakeEntailment({}, default=None)  # type: ignore[arg-type]
    (r,) = EntailmentAnswerer(ent, 0.5).read([(MC, "Uranus is the seventh planet.")])
    assert r.correct is None and r.error


def test_parsers_are_strict() -> None:
    opts = ("Mars", "Uranus", "Venus")
    assert parse_choice("Answer: B", opts) == 1 and parse_choice("answer: (a)", opts) == 0
    assert parse_choice("Answer: none", opts) is None
    assert parse_choice("B) Uranus", opts) == 1 and parse_choice("(c) Venus", opts) == 2
    assert parse_choice("C)", opts) == 2 and parse_choice("uranus.", opts) == 1
    for bad in ("Answer: D", "I think it is the second one", "Answer: BB", "D) Pluto", "A lot of planets"):
        with pytest.raises(ValueError):
            parse_choice(bad, opts)
    with pytest.raises(ValueError, match="name different options"):
        parse_choice("A) Uranus", opts)  # the label says Mars, the text Uranus: ambiguous, not read
    assert parse_rating("Rating: 4\nAnswer: William Herschel") == (4, "William Herschel")
    assert parse_rating("Rating: 0\nAnswer: -") == (0, "")
    for bad in ("Rating: 9\nAnswer: x", "four", "Answer: x"):
        with pytest.raises(ValueError):
            parse_rating(bad)


def _llm(reply_mc: str, reply_rate: str, reply_verify: str) -> FakeLLM:
    def reply(messages: list[dict[str, str]]) -> str:
        last = messages[-1]["content"]
        if "could not be used" in last:  # a repair turn gets the same reply again
            last = messages[-3]["content"]
        if "Answer key:" in last:
            return reply_verify
        return reply_mc if "which option answers" in last else reply_rate

    return FakeLLM(reply)


def test_llm_answerer_reads_letters_ratings_and_verifies_free_text() -> None:
    llm = _llm("Answer: B", "Rating: 5\nAnswer: Herschel", "yes")
    mc, ft = LLMAnswerer(llm, min_rating=4).read([(MC, "text"), (FT, "text")])
    assert (mc.correct, mc.choice) == (True, "Uranus")
    assert (ft.rating, ft.choice, ft.correct) == (5, "Herschel", True)
    low = LLMAnswerer(_llm("Answer: none", "Rating: 3\nAnswer: Herschel", "yes"), min_rating=4)
    mc, ft = low.read([(MC, "text"), (FT, "text")])
    assert (mc.correct, mc.answered) == (False, False)
    assert (ft.correct, ft.answered) == (False, False)  # below the threshold: not verified at all
    wrong = LLMAnswerer(_llm("Answer: A", "Rating: 5\nAnswer: Galileo", "no")).read([(MC, "t"), (FT, "t")])
    assert [r.correct for r in wrong] == [False, False]


def test_malformed_llm_answers_are_retried_then_recorded_as_failures() -> None:
    llm = _llm("The answer is probably Uranus", "I am not sure", "maybe")
    mc, ft = LLMAnswerer(llm, max_retries=2).read([(MC, "text"), (FT, "text")])
    assert mc.correct is None and mc.error and mc.error.startswith("reader:") and len(mc.raw) == 3
    assert ft.correct is None and ft.error and ft.error.startswith("rating:")
    trace = ExamTrace(query_id="q1", query="q", answer="a")
    from benchmark.families.exam.pipeline import question_trace
    from benchmark.families.exam.scores import trace_scores

    trace.questions = [question_trace(MC, mc)]
    assert trace_scores(trace)["exam"] is None  # a failure, not a zero


# -- bank checks ---------------------------------------------------------------------


def test_bank_problems_name_row_and_field() -> None:
    rows: list[dict[str, Any]] = [
        {
            "query_id": "1",
            "question_id": "a",
            "question": "Q?",
            "kind": "multiple-choice",
            "options": ["x", "y"],
            "answer": "z",
        },
        {"query_id": "1", "question_id": "b", "question": "Q?", "kind": "essay", "answer": "z"},
        {"query_id": "1", "question_id": "a", "question": "", "kind": "free-text"},
    ]
    with pytest.raises(InputError) as e:
        questions_from_rows(rows, "bank.parquet")
    text = str(e.value)
    assert "bank.parquet, line 1" in text and "answer" in text and "not one of the options" in text
    assert "line 2" in text and "kind" in text
    assert "line 3" in text and "question_id 'a' is repeated" in text


def test_the_written_webtrack_bank_is_valid_and_held_out() -> None:
    task = load_task("webtrack-2009-2012")
    bank = task_bank(task)
    assert len(bank) == 12 and sum(map(len, bank.values())) == 60
    assert all(q.key_index is not None and q.provenance == "written" for qs in bank.values() for q in qs)
    assert set(bank) == set(task.card.corpus.covers_queries or [])
    # the written files list the key first; the table must not (an LLM reader favours "A")
    positions = [q.key_index for qs in bank.values() for q in qs]
    assert all(positions.count(k) >= 8 for k in range(4)), positions


# -- EXAM++ interoperability ---------------------------------------------------------


def test_exampp_question_bank_round_trip(tmp_path: Path) -> None:
    bank = {"q1": [MC, FT]}
    path = write_bank(bank, {"q1": "uranus"}, tmp_path / "bank.jsonl.gz", test_collection="t")
    with gzip.open(path, "rt") as fh:
        line = json.loads(fh.readline())
    assert line["query_id"] == "q1" and line["items"][1]["question_text"] == "Who discovered it?"
    assert line["items"][1]["gold_answers"] == ["William Herschel"]
    assert read_bank(path) == bank
    # a question holding U+2028 (written raw: ensure_ascii=False) is one line, not two
    odd = {"q1": [ExamQuestion("q1", "q1/c", "Which line\u2028separator?", "free-text", (), "this one")]}
    assert read_bank(write_bank(odd, {}, tmp_path / "odd.jsonl", test_collection="t")) == odd


def test_exampp_free_text_bank_from_the_reference_tool(tmp_path: Path) -> None:
    # as EXAM++ writes it: free-text questions, no answer keys, ids "<query>/<md5>"
    item = {
        "query_id": "7",
        "facet_id": None,
        "info": None,
        "question_id": "7/abc",
        "question_text": "What is X?",
        "gold_answers": None,
    }
    line = {
        "query_id": "7",
        "facet_id": None,
        "test_collection": "car",
        "query_text": "x",
        "info": None,
        "items": [item],
    }
    (tmp_path / "b.jsonl").write_text(json.dumps(line) + "\n")
    (q,) = read_bank(tmp_path / "b.jsonl")["7"]
    assert (q.kind, q.answer, q.options, q.question) == ("free-text", None, (), "What is X?")
    (tmp_path / "bad.jsonl").write_text(json.dumps(line) + "\n" + json.dumps({"query_id": "8"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl, line 2.*items"):
        read_bank(tmp_path / "bad.jsonl")


def test_exampp_grades_round_trip(tmp_path: Path) -> None:
    traces = [
        {
            "query_id": "q1",
            "answer": "Uranus is seventh.",
            "scores": {"exam": 0.5},
            "answerer": {"answerer": "llm", "llm": "m"},
            "questions": [
                {"question_id": "q1/a", "correct": True, "choice": "Uranus", "rating": None},
                {"question_id": "q1/b", "correct": False, "choice": "", "rating": 2},
            ],
        }
    ]
    path = write_grades({"sys-A": traces}, tmp_path / "g.jsonl.gz")
    grades = read_grades(path)
    assert [(p.rankings, p.query_id, set(p.grades[0].correct)) for p in grades] == [
        ((("sys-A", 1),), "q1", {"q1/a"})
    ]
    (grader,) = graders(grades)
    assert grader == "m groundcover-llm question-bank"  # the model, the prompt class, the question set
    bank = {"q1": [MC, FT]}
    # with self-ratings, EXAM++ counts a question when its rating reaches the threshold
    assert exam_from_grades(grades, grader, bank, min_rating=2) == {"sys-A": {"q1": 0.5}}
    assert exam_from_grades(grades, grader, bank, min_rating=None) == {"sys-A": {"q1": 0.5}}
    assert exam_from_grades(grades, grader, bank, min_rating=3) == {"sys-A": {"q1": 0.0}}
    # a ranking must name its system (a paragraph with no rankings at all is a judged passage)
    (tmp_path / "bad.jsonl").write_text(
        '["q1", [{"text": "x", "paragraph_data": {"rankings": [{"rank": 1}]}}]]\n'
    )
    with pytest.raises(InputError, match=r"line 1.*rankings"):
        read_grades(tmp_path / "bad.jsonl")


# -- held out, and the family end to end ---------------------------------------------


def test_a_held_out_question_in_a_generation_prompt_is_refused() -> None:
    from benchmark.generation.prompting import build_messages

    task = load_task("webtrack-2009-2012")
    build_messages(task, "signs of a heartattack", "175")  # the query itself is fine
    question = task.table("exam_questions").question.iloc[0]
    with pytest.raises(InputError, match="held-out text from table exam_questions"):
        build_messages(task, f"signs of a heartattack. {question.upper()}", "175")


def test_family_scores_n_exam_against_the_gold_articles() -> None:
    task = load_task("webtrack-2009-2012")
    fam = REGISTRY["exam"]
    stack = fake_stack(
        llm=FakeLLM(lambda m: ""), entailment=ContainsEntailment(), retriever=FakeRetriever({})
    )  # type: ignore[arg-type]
    settings = ExamSettings()  # margin 0.02: a tie between two supported options is an abstention
    prep = family_base.prepare(fam, task, stack, ScoringInputs(), settings)
    gold = prep.state.gold_exam
    # the fake supports only options written literally in the text. Topic 154's gold article
    # names only the key of q1; q2 ("About 250", "About 74") and q3 (all four varieties) are
    # ties, so abstentions; q4 and q5 are paraphrased: 1 of 5
    assert set(gold) == set(task_bank(task)) and (gold["175"], gold["84"], gold["154"]) == (1.0, 1.0, 0.2)
    mean = prep.state.gold_mean
    assert mean == pytest.approx(43 / 60)
    bank = task_bank(task)["175"]
    answer = " ".join(f"{q.question} {q.answer}." for q in bank[:3])
    (t,) = family_base.score_batch(fam, prep, [("175", "signs of a heartattack", answer)])
    assert t.scores["exam"] == pytest.approx(3 / 5) and t.scores["n_exam"] == pytest.approx(0.6 / mean)
    assert family_base.recompute(fam, ExamTrace.model_validate(t.model_dump())) == t.scores
    assert [q.correct for q in t.questions] == [True, True, True, False, False]
    html = family_views.trace_html(fam, t.model_dump())
    assert "▶" in html and "abstained" in html


def test_a_generated_bank_is_written_into_the_task_and_marked_in_its_card(tmp_path: Path) -> None:
    import pandas as pd
    import yaml

    from benchmark.families.exam.generate import draft_bank, parse_questions
    from benchmark.tasks import add_table
    from tests.helpers import build_tiny_task

    reply = '{"question": "Which planet is seventh?", "options": ["Mars", "Uranus", "Venus", "Earth"], "answer": "Uranus"}'
    with pytest.raises(ValueError, match="copied exactly"):
        parse_questions(reply.replace('"answer": "Uranus"', '"answer": "Pluto"'), 2)
    aspects = pd.DataFrame([("q1", "1", "Facts about Uranus")], columns=["query_id", "aspect_id", "text"])
    task = load_task(
        build_tiny_task(tmp_path, [("q1", "uranus")], tables={"aspects": aspects}, metrics=["exam"])
    )
    bank, failures = draft_bank(FakeLLM(lambda m: reply), task.queries(), task.table("aspects"), per_aspect=1)
    assert not failures and bank["q1"][0].provenance == "generated: fake-llm exam-generate@1"
    rows = pd.DataFrame([{**vars(q), "options": list(q.options)} for qs in bank.values() for q in qs])
    add_table(task, "exam_questions", rows, "exam_questions: 1 question generated: fake-llm exam-generate@1.")
    card = yaml.safe_load((tmp_path / "tiny" / "task.yaml").read_text())
    assert card["version"] == "0.0.2" and "exam_questions.parquet" in card["data"]["checksums"]
    assert "generated: fake-llm exam-generate@1" in card["provenance"]["notes"]
    assert task_bank(load_task(tmp_path / "tiny"))["q1"][0].answer == "Uranus"
    bad = rows.assign(query_id="nope")
    with pytest.raises(InputError):
        add_table(load_task(tmp_path / "tiny"), "exam_questions", bad, "x")


def test_exam_cli_exchanges_the_published_grades_with_exampp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    result = next(
        Path("leaderboard/results/groundcover__bm25-extractive-top3").rglob("webtrack-2009-2012.exam.json")
    )
    bank, grades = tmp_path / "bank.jsonl.gz", tmp_path / "grades.jsonl"
    assert main(["exam", "export-bank", "--task", "webtrack-2009-2012", "--out", str(bank)]) == 0
    assert main(["exam", "export-grades", "--results", str(result), "--out", str(grades)]) == 0
    capsys.readouterr()
    assert main(["exam", "score-grades", "--grades", str(grades), "--exam-bank", str(bank)]) == 0
    out = capsys.readouterr().out
    published = json.loads(result.read_text())["scores"]["exam"]["value"]
    assert f"{published:.3f}" in out and "groundcover/bm25-extractive-top3" in out
    assert main(["exam", "score-grades"]) == 2  # --grades is required


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    from tests.helpers.fakes import FakeLLM, FakeRetriever, fake_stack

    task = load_task("webtrack-2009-2012")
    stack = fake_stack(
        llm=FakeLLM(lambda m: ""), entailment=ContainsEntailment(), retriever=FakeRetriever({})
    )  # type: ignore[arg-type]
    return task, {"175": "Chest pain or discomfort. Angina.", "182": "Within 20 minutes.", "196": ""}, stack


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"exam": contract_mock}


def _exampp_passage(pid: str, qid: str, text: str, relevance: int | None, ratings: dict[str, int]) -> dict:
    """One paragraph as EXAM++ writes a judged passage from a qrels pool: no rankings."""
    return {
        "paragraph_id": pid,
        "text": text,
        "paragraph": None,
        "paragraph_data": {
            "judgments": []
            if relevance is None
            else [{"paragraphId": pid, "query": qid, "relevance": relevance, "titleQuery": qid}],
            "rankings": [],
        },
        "exam_grades": [
            {
                "correctAnswered": [q for q, r in ratings.items() if r >= 4],
                "wrongAnswered": [q for q, r in ratings.items() if r < 4],
                "answers": [[q, "..."] for q in ratings],
                "llm": "google/flan-t5-large",
                "llm_options": {},
                "exam_ratio": sum(r >= 4 for r in ratings.values()) / len(ratings),
                "prompt_info": {
                    "prompt_class": "QuestionSelfRatedUnanswerablePromptWithChoices",
                    "is_self_rated": True,
                },
                "self_ratings": [{"question_id": q, "self_rating": r} for q, r in ratings.items()],
                "prompt_type": "question",
            }
        ],
        "grades": None,
    }


def test_exampp_judged_passages_are_read_and_compared_with_relevance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graded file of judged passages (empty rankings, as EXAM++ writes for relevance
    analyses) is read, counts for no system, and its answerability is correlated with the
    relevance grades: EXAM++'s qrels mode."""
    from benchmark.cli.main import main
    from benchmark.metaeval.answerability import JudgedPassage, answerability_vs_relevance

    qs = ("q1/a", "q1/b", "q1/c")
    rows = [  # relevant passages answer more questions; the long ones are not the relevant ones
        _exampp_passage("p1", "q1", "short relevant", 2, dict(zip(qs, (5, 5, 4), strict=True))),
        _exampp_passage("p2", "q1", "short relevant too", 1, dict(zip(qs, (5, 0, 1), strict=True))),
        _exampp_passage(
            "p3", "q1", "a long passage about something else " * 5, 0, dict(zip(qs, (0, 1, 0), strict=True))
        ),
        _exampp_passage(
            "p4", "q1", "another long passage off the topic " * 6, 0, dict(zip(qs, (0, 0, 0), strict=True))
        ),
        _exampp_passage("p5", "q1", "not judged", None, dict(zip(qs, (5, 5, 5), strict=True))),
    ]
    path = tmp_path / "qrels-graded.jsonl"
    path.write_text(json.dumps(["q1", rows]) + "\n", encoding="utf-8")
    grades = read_grades(path)
    assert [(p.rankings, p.paragraph_id, p.relevance) for p in grades] == [
        ((), "p1", 2), ((), "p2", 1), ((), "p3", 0), ((), "p4", 0), ((), "p5", None),
    ]  # fmt: skip
    (grader,) = graders(grades)
    assert exam_from_grades(grades, grader, min_rating=4) == {}  # passages count for no system
    judged = [
        JudgedPassage(p.query_id, answered, p.relevance or 0, p.text)
        for p, answered in judged_passages(grades, grader, 4)
    ]
    agreement = answerability_vs_relevance(judged)
    assert agreement is not None and (agreement.passages, agreement.relevant) == (4, 2)
    assert agreement.answered.spearman is not None and agreement.answered.spearman > 0.8
    assert agreement.length.spearman is not None and agreement.length.spearman < 0  # the baseline
    assert agreement.kappa == 1.0 and agreement.accuracy == 1.0 and agreement.majority == 0.5

    out = tmp_path / "out.json"
    assert main(["exam", "score-grades", "--grades", str(path), "--min-rating", "4", "--out", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())  # the table title wraps with the terminal
    assert "qrels mode" in printed and "4 judged passages" in printed and "passage length" in printed
    written = json.loads(out.read_text())
    assert written["graders"][grader]["qrels_mode"]["relevant"] == 2 and written["rank_cutoff"] == 20

    bad = [_exampp_passage("p1", "q1", "x", 1, {"q1/a": 5})]
    bad[0]["paragraph_data"]["judgments"][0]["relevance"] = "high"
    (tmp_path / "bad.jsonl").write_text(json.dumps(["q1", bad]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl, line 1.*judgments.*integer relevance"):
        read_grades(tmp_path / "bad.jsonl")


def test_the_exam_answerer_is_measured_on_judged_passages_for_its_card(tmp_path: Path) -> None:
    """A judge card measures the family's default answerer on an EXAM++ file of judged
    passages: per passage, the questions it answers from it, next to the file's own grades;
    a passage whose query has no questions is kept as a failure, never as answering none."""
    from benchmark.families import REGISTRY
    from benchmark.metaeval import judge_cards
    from tests.helpers.fakes import FakeLLM, FakeRetriever, fake_stack

    class WordSupport:  # a window supports "question option" when it holds the option's words
        identity, threshold = "word-support", 0.5

        def support_scores(self, pairs):  # type: ignore[no-untyped-def]
            return [float(c.split("? ")[-1].lower() in w.lower()) for w, c in pairs]

    bank = {"q1": [MC]}
    bank_path = write_bank(bank, {"q1": "uranus"}, tmp_path / "bank.jsonl", test_collection="t")
    key = MC.answer or ""
    rows = [
        _exampp_passage("p1", "q1", f"It is {key}, as probes found.", 2, {MC.question_id: 5}),
        _exampp_passage("p2", "q1", f"Astronomers agree: {key}.", 1, {MC.question_id: 4}),
        _exampp_passage("p3", "q1", "A passage about Jupiter's storms.", 0, {MC.question_id: 5}),
        _exampp_passage("p4", "q1", "Nothing on the topic here at all.", 0, {MC.question_id: 0}),
    ]
    grades = tmp_path / "qrels-graded.jsonl"
    grades.write_text(
        json.dumps(["q1", rows])
        + "\n"
        + json.dumps(["q9", [_exampp_passage("p9", "q9", "x", 1, {"q9/a": 0})]])
        + "\n",
        encoding="utf-8",
    )
    judges = fake_stack(llm=FakeLLM(lambda _m: ""), entailment=WordSupport(), retriever=FakeRetriever({}))  # type: ignore[arg-type]
    family = REGISTRY["exam"]
    assert family_base.hook(family, "answer_for_card")("entailment", judges, grades, bank_path) is None
    got = family_base.hook(family, "answer_for_card")("exam-answerer", judges, grades, bank_path)
    assert got is not None
    assert [(p.relevance, p.ours, p.theirs) for p in got[:4]] == [(2, 1, 1), (1, 1, 1), (0, 0, 1), (0, 0, 0)]
    assert got[4].ours is None and "no questions" in got[4].failures[0]
    fig = judge_cards.answerability_figure(grades.name, got, "CC BY 4.0")
    assert fig.n == 4 and fig.value == 1.0 and fig.extra["failed"] == 1.0
    assert fig.extra["ROC AUC, the file's own grades"] == 0.75 and "passage length" in fig.baselines
    assert (
        fig.title == "EXAM++ judged passages (qrels-graded.jsonl)" and fig.source == "file:qrels-graded.jsonl"
    )


def test_the_card_reads_every_judged_passage_under_one_named_grader(tmp_path: Path) -> None:
    """A judged passage some system also ranked is measured too, and a file with two
    graders needs --exam-grader: the card compares with one grader, never their merge."""
    from benchmark.families import REGISTRY
    from tests.helpers.fakes import FakeLLM, FakeRetriever, fake_stack

    class WordSupport:
        identity, threshold = "word-support", 0.5

        def support_scores(self, pairs):  # type: ignore[no-untyped-def]
            return [float(c.split("? ")[-1].lower() in w.lower()) for w, c in pairs]

    bank_path = write_bank({"q1": [MC]}, {"q1": "uranus"}, tmp_path / "bank.jsonl", test_collection="t")
    ranked = _exampp_passage("p1", "q1", f"It is {MC.answer}.", 2, {MC.question_id: 5})
    ranked["paragraph_data"]["rankings"] = [
        {"method": "sys", "paragraphId": "p1", "queryId": "q1", "rank": 3, "score": 1.0}
    ]
    other = _exampp_passage("p2", "q1", "Nothing here.", 0, {MC.question_id: 0})
    path = tmp_path / "graded.jsonl"
    path.write_text(json.dumps(["q1", [ranked, other]]) + "\n", encoding="utf-8")
    judges = fake_stack(llm=FakeLLM(lambda _m: ""), entailment=WordSupport(), retriever=FakeRetriever({}))  # type: ignore[arg-type]
    family = REGISTRY["exam"]
    got = family_base.hook(family, "answer_for_card")("exam-answerer", judges, path, bank_path)
    assert got is not None and [(p.relevance, p.ours, p.theirs) for p in got] == [(2, 1, 1), (0, 0, 0)]

    second = dict(
        ranked["exam_grades"][0],
        llm="gpt-4o",
        self_ratings=[{"question_id": MC.question_id, "self_rating": 0}],
    )
    ranked["exam_grades"].append(second)
    other["exam_grades"].append(dict(second))
    path.write_text(json.dumps(["q1", [ranked, other]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"has 2 graders.*gpt-4o"):
        family_base.hook(family, "answer_for_card")("exam-answerer", judges, path, bank_path)
    got = family_base.hook(family, "answer_for_card")(
        "exam-answerer", judges, path, bank_path, grader="gpt-4o"
    )
    assert got is not None and [p.theirs for p in got] == [0, 0]


def test_the_rating_examples_short_reply_is_a_copy_not_a_rating() -> None:
    """ "Rating: 0 / Answer: -" is exam-rate's worked example's whole reply: the EXAM reader
    echoing it is refused (retried, then a failure), never a rating of 0; a rating of 0 in
    its own words is a rating, and the multiple-choice reader's "Answer: none" a label."""
    from benchmark.models.example_copies import COPY_ERROR

    mc, ft = LLMAnswerer(_llm("Answer: none", "Rating: 0\nAnswer: -", "yes"), max_retries=1).read(
        [(MC, "text"), (FT, "text")]
    )
    assert mc.answered is False and mc.error is None
    assert ft.rating is None and ft.correct is None and ft.error and COPY_ERROR in ft.error
    assert len(ft.raw) == 2  # asked again once, then recorded as a failure with both replies
    (own,) = LLMAnswerer(_llm("", "Rating: 0\nAnswer: the text does not say", "yes")).read([(FT, "t")])
    assert own.error is None and own.rating == 0 and own.answered is False


def test_the_default_answerer_refuses_a_free_text_bank_up_front(tmp_path: Path) -> None:
    """EXAM++'s generated questions are free text without a key: the default entailment
    answerer cannot read them, and says so before any model runs (it used to fail every
    question and write a card with n = 0, exit 0)."""
    from benchmark.families import REGISTRY

    free = ExamQuestion("q1", "q1/x", "What does the passage say about the probe?", "free-text")
    bank_path = write_bank({"q1": [free]}, {"q1": "probe"}, tmp_path / "bank.jsonl", test_collection="t")
    grades = tmp_path / "graded.jsonl"
    rows = [_exampp_passage("p1", "q1", "The probe flew by.", 1, {"q1/x": 5})]
    grades.write_text(json.dumps(["q1", rows]) + "\n", encoding="utf-8")
    calls: list[int] = []

    class Counting:
        identity, threshold = "counting", 0.5

        def support_scores(self, pairs):  # type: ignore[no-untyped-def]
            calls.append(len(pairs))
            return [0.0] * len(pairs)

    judges = fake_stack(llm=FakeLLM(lambda _m: ""), entailment=Counting(), retriever=FakeRetriever({}))  # type: ignore[arg-type]
    with pytest.raises(
        InputError, match=r"bank.jsonl.*1 of the 1 questions.*free text without an answer key"
    ):
        family_base.hook(REGISTRY["exam"], "answer_for_card")("exam-answerer", judges, grades, bank_path)
    assert calls == []


def test_score_grades_says_whose_grades_it_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    rows = [_exampp_passage("p1", "q1", "short relevant", 2, {"q1/a": 5}),
            _exampp_passage("p2", "q1", "off topic", 0, {"q1/a": 0})]  # fmt: skip
    path = tmp_path / "graded.jsonl"
    path.write_text(json.dumps(["q1", rows]) + "\n", encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["exam", "score-grades", "--grades", str(path), "--out", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "by its grader (google/flan-t5-large" in printed and "not groundcover's answerer" in printed
    (report,) = json.loads(out.read_text())["graders"].values()
    assert report["graded_by"].startswith("the file's grader (google/flan-t5-large")
