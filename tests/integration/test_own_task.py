"""Your own data as a task, end to end: DataFrames in, ``benchmark score`` out.

A team's questions, passages, sub-questions, nuggets, exam questions and reference answers
(pandas DataFrames and records) become a task folder through ``Task.from_records``; the
card lists the families those inputs allow; the folder loads with the ordinary loader,
and answers are scored on it through the real ``benchmark score`` command on the offline
default profile (MiniLM only: sub-question similarity, nugget entailment, EXAM's
entailment answerer).  Closed-book answers cite nothing, so attribution, listed because a
corpus was given, is skipped as not applicable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmark.cli.main import main
from benchmark.core.results import read_result
from benchmark.tasks import Task, load_task

pytestmark = pytest.mark.slow

QUESTIONS = pd.DataFrame(
    {
        "qid": [101, 102],  # numeric ids, as a spreadsheet gives them
        "question": ["How do tornadoes form?", "How are figs pollinated?"],
    }
)
PASSAGES = pd.DataFrame(
    {
        "docid": ["tor-1", "tor-2", "fig-1"],
        "title": ["Tornado", "Supercell", "Fig wasp"],
        "contents": [
            "Tornadoes form when warm moist air meets cold dry air and a rotating updraft stretches.",
            "Most strong tornadoes come from supercell thunderstorms with a rotating mesocyclone.",
            "Figs are pollinated by tiny fig wasps that crawl inside the closed fig flower.",
        ],
    }
)
SUB_QUESTIONS = [
    {"qid": "101", "question": "What air masses meet when a tornado forms?", "type": "core"},
    {"qid": "101", "question": "What is a supercell thunderstorm?", "type": "background"},
    {"qid": "102", "question": "Which insect pollinates figs?", "type": "core"},
]
NUGGETS = [
    {"query_id": "101", "text": "warm moist air meets cold dry air", "importance": "vital"},
    {"query_id": "101", "text": "supercell thunderstorms produce strong tornadoes", "importance": "okay"},
    {"query_id": "102", "text": "fig wasps pollinate figs", "importance": "vital"},
]
EXAM = [
    {
        "query_id": "102",
        "question_id": "e1",
        "question": "Which insect pollinates figs?",
        "kind": "multiple-choice",
        "options": ["fig wasps", "honey bees", "butterflies"],
        "answer": "fig wasps",
    }
]
REFERENCES = [
    {"qid": "101", "answer": "Tornadoes form where warm moist air meets cold dry air under a supercell."},
    {"qid": "102", "answer": "Fig wasps crawl inside the fig's closed flower and pollinate it."},
]
ANSWERS = {
    "101": "Tornadoes form when warm moist air meets cold dry air. Supercell thunderstorms produce the strongest.",
    "102": "Figs are pollinated by fig wasps that crawl inside the flower.",
}


def test_a_task_from_dataframes_scores_and_ranks_like_a_bundled_one(tmp_path: Path) -> None:
    task = Task.from_records(
        "team-faq",
        queries=QUESTIONS,
        corpus=PASSAGES,
        sub_questions=SUB_QUESTIONS,
        nuggets=NUGGETS,
        exam_questions=EXAM,
        references=REFERENCES,
        out_dir=tmp_path / "team-faq",
        license="CC-BY-4.0",
        source="our support team",
    )
    # the families these inputs allow, asked of the registry; ICAT needs subtopics, none given
    assert task.card.metrics == ["exam", "subq", "nuggets", "attribution"]
    assert set(task.card.data.tables) == {
        "queries", "corpus", "nuggets", "sub_questions", "gold_articles", "exam_questions",
    }  # fmt: skip
    assert task.card.corpus.kind == "table" and task.card.license == "CC-BY-4.0"
    assert task.verify_checksums() == [] and (task.root / "README.md").read_text().startswith("---\n")
    again = load_task(str(tmp_path / "team-faq"))  # the ordinary loader, by folder
    assert list(again.table("queries")["query_id"]) == ["101", "102"]
    assert list(again.table("sub_questions")["sub_question_id"]) == ["1", "2", "1"]  # numbered per query

    outputs = tmp_path / "answers.jsonl"
    outputs.write_text(
        "".join(
            json.dumps({"query_id": q, "answer": a, "model": "team/bot", "revision": "v1"}) + "\n"
            for q, a in ANSWERS.items()
        )
    )
    results = tmp_path / "results"
    args = [
        "score", "--outputs", str(outputs), "--tasks", str(tmp_path / "team-faq"),
        "--results-dir", str(results), "--no-progress",
    ]  # fmt: skip
    assert main(args) == 0
    scored = {p.name.split(".")[1]: read_result(p) for p in results.rglob("team-faq.*.json")}
    assert set(scored) == {"exam", "subq", "nuggets"}  # attribution: closed-book, not applicable
    for family, result in scored.items():
        assert result.task.id == "team-faq" and result.task.data == task.data_fingerprint, family
        assert [q.query_id for q in result.per_query] == (["102"] if family == "exam" else ["101", "102"])
        assert any(s.value is not None for s in result.scores.values()), family
    # the answers hold every vital nugget's words and EXAM's key: the scores say so
    assert scored["exam"].scores["exam"].value == 1.0
    assert scored["nuggets"].scores[scored["nuggets"].primary].value > 0

    # ranked like a bundled task's results: one board per family, the task named on it
    snapshot = tmp_path / "snapshot"
    assert main(["leaderboard", "--results-dir", str(results), "--out", str(snapshot)]) == 0
    boards = "".join(p.read_text() for p in snapshot.rglob("*.md"))
    assert "team-faq" in boards and "team/bot" in boards
