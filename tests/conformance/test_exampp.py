"""groundcover's EXAM and qrels-mode figures against EXAM++'s, side by side.

EXAM++ (the ``exam_pp`` package, TREMA-UNH/rubric-grading-workbench) is on PyPI, but it
pins torch and transformers, so it is not a test dependency here: its rules are restated
below from its code, each function naming what it restates.  The code read is the sdist
``exam_pp-0.1.2.tar.gz`` on PyPI (sha256 95b0eb47d688193d68dbd7e51943480081c46f30be2272b2eb0a5455408bde2d),
checked against the repository at these commits:

* ``exam_pp/exam_cover_metric.py`` @ 05e2607cea1c36b7e725958af2cf2811b7adcc89 —
  ``compute_exam_cover_scores`` (``rank_cut_off=20``), ``top_ranked_paragraphs``,
  ``ExamCoverScorerCorrectAnswer`` / ``ExamCoverScorerSelfRatings``;
* ``exam_pp/data_model.py`` @ 02da558a46ab105248743594d069c9e1d98eecbe —
  ``FullParagraphData.retrieve_exam_grade_any``, ``GradeFilter.filter`` / ``key``;
* ``exam_pp/exam_judgment_correlation.py`` @ 05e2607cea1c36b7e725958af2cf2811b7adcc89 —
  ``confusion_exam_vs_judged_correlation``, ``ConfusionStats.cohen_kappa``;
* ``exam_pp/question_bank_loader.py`` @ 0a6675829a8c74638dd46f84ed1f45292784369c and
  ``exam_pp/question_loader.py`` @ 37b8287bd36905db6c48ed37c739ec3a9c2056f4 (nugget banks,
  the generated CAR Y3 questions), ``exam_pp/tqa_loader.py`` in 0.1.2 (``Question``,
  ``writeQuestions``).

Where ``exam_pp`` is importable, the last test also runs EXAM++'s own code on the file.

The graded file is built here in EXAM++'s format: five queries, two graders (one that
self-rates, one that does not, and does not grade every paragraph), three systems ranking
30 paragraphs deep (so the cut-off at 20 matters), judged passages that a system also
ranked and judged passages no system ranked, and one system that ranks one query only
below the cut-off.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from benchmark.cli.main import main
from benchmark.core.errors import InputError
from benchmark.families.exam.exampp import read_bank, read_grades

SELF_RATER = ("google/flan-t5-large", "QuestionSelfRatedUnanswerablePromptWithChoices")
CORRECT_ONLY = ("gpt-3.5-turbo", "QuestionCompleteConcisePromptWithAnswerKey")
SYSTEMS = ("sys-bm25", "sys-dense", "sys-shallow")
QUERIES = ("q1", "q2", "q3", "q4", "q5")


def _grade(
    llm: str, prompt: str, ratings: dict[str, int] | None, correct: set[str], asked: list[str]
) -> dict:
    """One ``ExamGrades`` entry as EXAM++ dumps it (``exclude_none``: no self_ratings key
    for a grader that does not self-rate)."""
    grade: dict[str, Any] = {
        "correctAnswered": sorted(correct),
        "wrongAnswered": sorted(set(asked) - correct),
        "answers": [[q, "..."] for q in asked],
        "llm": llm,
        "llm_options": {},
        "exam_ratio": len(correct) / len(asked),
        "prompt_info": {"prompt_class": prompt, "is_self_rated": ratings is not None},
        "prompt_type": "question",
    }
    if ratings is not None:
        grade["self_ratings"] = [{"question_id": q, "self_rating": r} for q, r in ratings.items()]
    return grade


def build_graded_file(path: Path, seed: int = 37) -> Path:
    """The graded file described above, one JSON line per query (``[query_id, [paragraph]]``)."""
    rng = random.Random(seed)
    lines = []
    for qid in QUERIES:
        questions = [f"{qid}/{hashlib.md5(f'{qid}-{i}'.encode()).hexdigest()}" for i in range(6)]
        paragraphs = []
        for i in range(40):
            pid = f"{qid}-p{i:02d}"
            judged = i >= 32 or rng.random() < 0.45  # p32..p39: judged, ranked by no system
            relevance = rng.choice((0, 0, 1, 2, 3)) if judged else None
            chance = 0.005 + 0.07 * (relevance if judged else rng.uniform(0, 1.5))
            answers = {q for k, q in enumerate(questions) if k < 5 and rng.random() < chance}  # q6: never
            ratings = {
                q: rng.choice((3, 4, 5, 5)) if q in answers else rng.choice((0, 0, 0, 1, 1, 2, 3))
                for q in questions
            }
            correct_a = {q for q, r in ratings.items() if rng.random() < (0.8 if q in answers else 0.02 * r)}
            grades = [_grade(*SELF_RATER, ratings, correct_a, questions)]
            if rng.random() < 0.85:  # the second grader leaves some paragraphs ungraded
                correct_b = {q for q in questions if rng.random() < (0.4 if q in answers else 0.03)}
                grades.append(_grade(*CORRECT_ONLY, None, correct_b, questions))
            rng.shuffle(grades)  # grade order is not what tells graders apart
            paragraphs.append(
                {
                    "paragraph_id": pid,
                    "text": " ".join(["word"] * rng.randint(20, 120)),
                    "paragraph": None,
                    "paragraph_data": {
                        "judgments": []
                        if relevance is None
                        else [{"paragraphId": pid, "query": qid, "relevance": relevance, "titleQuery": qid}],
                        "rankings": [],
                    },
                    "exam_grades": grades,
                }
            )
        for system in SYSTEMS:  # each ranks 30 of the first 32 paragraphs
            ranked = rng.sample(range(32), 30)
            for rank, i in enumerate(ranked, start=1):
                if system == "sys-shallow" and qid == "q5":
                    rank += 20  # this system's q5 paragraphs all lie below the cut-off
                paragraphs[i]["paragraph_data"]["rankings"].append(
                    {
                        "method": system,
                        "paragraphId": paragraphs[i]["paragraph_id"],
                        "queryId": qid,
                        "rank": rank,
                        "score": 100.0 - rank,
                    }
                )
        lines.append(json.dumps([qid, paragraphs]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- EXAM++'s rules, restated from its code -----------------------------------------------


def exampp_grade(para: dict, llm: str, prompt_class: str) -> dict | None:
    """``FullParagraphData.retrieve_exam_grade_any`` with ``GradeFilter(model_name=llm,
    prompt_class=prompt_class)``: the first grade that passes the filter (data_model.py)."""
    for grade in para.get("exam_grades") or []:
        if grade.get("llm") != llm:
            continue
        info = grade.get("prompt_info")
        if info is not None:
            if info.get("prompt_class") is not None and info["prompt_class"] != prompt_class:
                continue
        elif prompt_class != "QuestionPromptWithChoices":
            continue
        return grade
    return None


def _correct(grades: list[dict | None], min_self_rating: int | None) -> set[str]:
    """``__countTotalCorrectQuestions`` of ExamCoverScorerCorrectAnswer / ...SelfRatings."""
    if min_self_rating is None:
        return {q for g in grades if g for q in g["correctAnswered"]}
    return {
        r["question_id"]
        for g in grades
        if g
        for r in g.get("self_ratings") or []
        if r["self_rating"] >= min_self_rating
    }


def _total(grades: list[dict | None], min_self_rating: int | None) -> set[str]:
    """``__countTotalQuestions``: over every paragraph of the query."""
    if min_self_rating is None:
        return {q for g in grades if g for q in g["correctAnswered"] + g["wrongAnswered"]}
    return {r["question_id"] for g in grades if g for r in g.get("self_ratings") or []}


def exampp_exam(
    path: Path, grader: tuple[str, str], min_self_rating: int | None, rank_cut_off: int = 20
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """``compute_exam_cover_scores``: per query, EXAM = |questions the method's paragraphs
    at rank <= rank_cut_off answer| / |questions asked of any paragraph of the query|
    (``frac``: 0 when none); a method's EXAM is the mean over the queries it has such
    paragraphs for (``systemMeanStderr``; ``_overall_`` left out)."""
    per_method: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        qid, paras = json.loads(line)
        grades = [exampp_grade(p, *grader) for p in paras]
        total = len(_total(grades, min_self_rating))
        top: dict[str, list[dict | None]] = defaultdict(list)  # top_ranked_paragraphs
        for para, grade in zip(paras, grades, strict=True):
            for r in para["paragraph_data"]["rankings"]:
                if r["rank"] <= rank_cut_off:
                    top[r["method"]].append(grade)
        for method, gs in top.items():
            num = len(_correct(gs, min_self_rating))
            per_method[method][qid] = num / total if total > 0 else 0.0
    return {m: statistics.mean(v.values()) for m, v in per_method.items()}, dict(per_method)


def exampp_kappa(
    path: Path, grader: tuple[str, str], min_judgment_level: int, min_rating: int | None, min_answers: int = 1
) -> tuple[float, float, int]:
    """``confusion_exam_vs_judged_correlation``: every paragraph with a grade by the grader
    and a judgment, ranked or not; kappa, accuracy and the number of paragraphs counted
    (``ConfusionStats``)."""
    tp = fp = fn = tn = 0
    for line in path.read_text().splitlines():
        _, paras = json.loads(line)
        for para in paras:
            grade = exampp_grade(para, *grader)
            if grade is None or not para["paragraph_data"]["judgments"]:
                continue
            if min_rating is None:
                predict = len(grade["correctAnswered"]) >= min_answers
            else:
                rated = [r for r in grade["self_ratings"] if r["self_rating"] >= min_rating]
                predict = len(rated) >= min_answers
            truth = any(j["relevance"] >= min_judgment_level for j in para["paragraph_data"]["judgments"])
            tp, fp, fn, tn = (
                tp + (predict and truth),
                fp + (predict and not truth),
                fn + (not predict and truth),
                tn + (not predict and not truth),
            )
    total = tp + fp + fn + tn
    po = (tp + tn) / total
    pyes, pno = (tp + fp) / total, (fn + tn) / total
    pyes_rated, pno_rated = (tp + fn) / total, (fp + tn) / total
    pe = pyes * pyes_rated + pno * pno_rated
    kappa = 0.0 if pe == 1.0 else (po - pe) / (1 - pe)
    return kappa, po, total


def close(got: dict[str, dict[str, float]], want: dict[str, dict[str, float]]) -> None:
    """The same systems, the same queries for each, the same values."""
    assert {s: set(v) for s, v in got.items()} == {s: set(v) for s, v in want.items()}
    for system, per_query in want.items():
        assert got[system] == pytest.approx(per_query), system


# -- groundcover's figures ------------------------------------------------------------------


def groundcover(path: Path, tmp_path: Path, *flags: str) -> dict[str, Any]:
    out = tmp_path / "out.json"
    assert main(["exam", "score-grades", "--grades", str(path), "--out", str(out), *flags]) == 0
    return json.loads(out.read_text())


def grader_name(grader: tuple[str, str]) -> str:
    return f"{grader[0]} {grader[1]} question-bank"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_graded_file(tmp_path_factory.mktemp("exampp") / "graded.jsonl")


CASES = [  # (grader, groundcover's --min-rating, EXAM++'s min_self_rating)
    (SELF_RATER, "4", 4),  # EXAM++ --use-ratings --min-self-rating 4
    (SELF_RATER, "none", None),  # EXAM++ without --use-ratings: correctAnswered
    (CORRECT_ONLY, "4", None),  # a grader with no self-ratings: its correctAnswered either way
]


@pytest.mark.parametrize(("grader", "ours", "theirs"), CASES)
def test_exam_per_system_is_exampps(graded: Path, tmp_path: Path, grader, ours, theirs) -> None:  # type: ignore[no-untyped-def]
    """EXAM per system and query, top 20, one grader: EXAM++'s numbers exactly, on the
    queries EXAM++ averages over (--skip-unranked-queries)."""
    means, per_query = exampp_exam(graded, grader, theirs)
    got = groundcover(graded, tmp_path, "--grader", grader_name(grader), "--min-rating", ours,
                      "--skip-unranked-queries")  # fmt: skip
    assert got["rank_cutoff"] == 20 and list(got["graders"]) == [grader_name(grader)]
    exam = got["graders"][grader_name(grader)]["exam"]
    close(exam, per_query)
    assert {s: statistics.mean(v.values()) for s, v in exam.items()} == pytest.approx(means)
    assert "q5" not in exam["sys-shallow"]  # ranked only below the cut-off: no value, as in EXAM++


def test_the_rank_cutoff_is_applied_recorded_and_set_by_a_flag(graded: Path, tmp_path: Path) -> None:
    name = grader_name(SELF_RATER)
    for cutoff in (5, 20, 30):
        _, per_query = exampp_exam(graded, SELF_RATER, 4, rank_cut_off=cutoff)
        got = groundcover(
            graded, tmp_path, "--grader", name, "--rank-cutoff", str(cutoff), "--skip-unranked-queries"
        )
        assert got["rank_cutoff"] == cutoff
        close(got["graders"][name]["exam"], per_query)
    deep, _ = exampp_exam(graded, SELF_RATER, 4, rank_cut_off=30)
    top, _ = exampp_exam(graded, SELF_RATER, 4, rank_cut_off=20)
    assert deep != pytest.approx(top)  # the file's rankings go deeper than the cut-off


def test_a_query_a_system_ranked_nothing_for_counts_zero_by_default(graded: Path, tmp_path: Path) -> None:
    """groundcover's departure (docs/conformance.md): without --skip-unranked-queries, a
    query a system has no paragraph for within the cut-off counts 0."""
    means, per_query = exampp_exam(graded, SELF_RATER, 4)
    exam = groundcover(graded, tmp_path, "--grader", grader_name(SELF_RATER))["graders"][
        grader_name(SELF_RATER)
    ]["exam"]
    assert exam["sys-shallow"] == pytest.approx({**per_query["sys-shallow"], "q5": 0.0})
    assert exam["sys-bm25"] == pytest.approx(per_query["sys-bm25"])
    assert statistics.mean(exam["sys-shallow"].values()) < means["sys-shallow"]


def test_graders_are_reported_each_and_never_merged(graded: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Without --grader, each grader gets its own figures, equal to EXAM++'s for that
    grader; merging the two (a question counts when either grader says so) is neither."""
    got = groundcover(graded, tmp_path, "--min-rating", "none", "--skip-unranked-queries")
    printed = " ".join(capsys.readouterr().out.split())  # rich wraps long titles
    assert set(got["graders"]) == {grader_name(SELF_RATER), grader_name(CORRECT_ONLY)}
    for grader in (SELF_RATER, CORRECT_ONLY):
        assert f"graded by {grader[0]}" in printed
        means, _ = exampp_exam(graded, grader, None)
        exam = got["graders"][grader_name(grader)]["exam"]
        assert {s: statistics.mean(v.values()) for s, v in exam.items()} == pytest.approx(means)

    def merged(
        line: str,
    ) -> tuple[str, dict[str, float]]:  # the old reading: every grade of a paragraph pooled
        qid, paras = json.loads(line)
        total = {
            q for p in paras for g in p["exam_grades"] for q in g["correctAnswered"] + g["wrongAnswered"]
        }
        hits: dict[str, set[str]] = defaultdict(set)
        for p in paras:
            for r in p["paragraph_data"]["rankings"]:
                if r["rank"] <= 20:
                    hits[r["method"]] |= {q for g in p["exam_grades"] for q in g["correctAnswered"]}
        return qid, {m: len(h) / len(total) for m, h in hits.items()}

    pooled = [merged(line) for line in graded.read_text().splitlines()]
    for system in SYSTEMS:
        pooled_mean = statistics.mean(v[system] for _, v in pooled if system in v)
        for grader in (SELF_RATER, CORRECT_ONLY):
            assert exampp_exam(graded, grader, None)[0][system] < pooled_mean

    assert main(["exam", "score-grades", "--grades", str(graded), "--grader", "gpt"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "'gpt' fits no grader" in said and "google/flan-t5-large" in said and "--grader" in said
    assert main(["exam", "score-grades", "--grades", str(graded), "--grader", "question-bank"]) == 2
    assert "fits several graders" in capsys.readouterr().err


@pytest.mark.parametrize(("grader", "ours", "theirs"), CASES)
@pytest.mark.parametrize("level", [1, 2])
def test_qrels_mode_uses_every_judged_passage_as_exampp_does(
    graded: Path,
    tmp_path: Path,
    grader,
    ours,
    theirs,
    level,  # type: ignore[no-untyped-def]
) -> None:
    """Answerability vs relevance: Cohen's κ and accuracy over every paragraph with a
    judgment and the grader's grade, ranked by a system or not, as EXAM++'s
    confusion_exam_vs_judged_correlation counts them (min_answers 1)."""
    kappa, accuracy, n = exampp_kappa(graded, grader, level, theirs)
    got = groundcover(graded, tmp_path, "--grader", grader_name(grader), "--min-rating", ours,
                      "--relevant-from", str(level))  # fmt: skip
    qrels = got["graders"][grader_name(grader)]["qrels_mode"]
    assert qrels["passages"] == n and qrels["queries"] == len(QUERIES)
    assert qrels["kappa"] == pytest.approx(kappa) and qrels["accuracy"] == pytest.approx(accuracy)
    # the judged passages some system also ranked are among them (the old reading dropped them)
    unranked = sum(
        1
        for p in read_grades(graded)
        if p.relevance is not None
        and not p.rankings
        and any(g.grader == grader_name(grader) for g in p.grades)
    )
    assert unranked < n


def test_nugget_banks_and_generated_questions_as_exampp_writes_them(tmp_path: Path) -> None:
    """A nugget bank (``QueryNuggetBank`` lines), the generated CAR Y3 questions as one JSON
    object, and the questions file EXAM++ converts them to (``writeQuestions``: one
    ``tqa_loader.Question`` per line, None fields left out)."""
    import gzip

    qid, facet = "tqa2:L_0002", "T_0016"
    nugget = {
        "query_id": qid,
        "facet_id": facet,
        "nugget_id": f"{qid}/{facet}/abc",
        "nugget_text": "Plates move.",
    }
    bank_line = {"query_id": qid, "facet_id": facet, "facet_text": "Geology", "test_collection": "car-y3",
                 "query_text": "Earth Science / Geology", "hash": 1243234, "items": [nugget]}  # fmt: skip
    nuggets = tmp_path / "car-nuggets.jsonl.gz"
    with gzip.open(nuggets, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(bank_line) + "\n")
    (n,) = read_bank(nuggets)[qid]
    assert (n.question_id, n.question, n.kind, n.facet_id) == (
        f"{qid}/{facet}/abc",
        "Plates move.",
        "free-text",
        facet,
    )
    assert n.provenance == "EXAM++ nugget bank"

    written = ["1. How do plates move? ", "", "2. What is a fault?"]
    genq = {
        qid: {facet: {"title": "Earth Science and its branches", "facet": "Geology", "questions": written}}
    }
    (tmp_path / "naghmeh-questions.json").write_text(json.dumps(genq), encoding="utf-8")
    got = read_bank(tmp_path / "naghmeh-questions.json")[qid]
    # load_naghmehs_questions: id query/facet/md5(text as written), enumeration stripped, "" skipped
    expect = [f"{qid}/{facet}/{hashlib.md5(w.encode()).hexdigest()}" for w in written if w]
    assert [q.question_id for q in got] == expect
    assert [q.question for q in got] == ["How do plates move?", "What is a fault?"]

    converted = tmp_path / "naghmeh-questions-converted.jsonl.gz"
    with gzip.open(converted, "wt", encoding="utf-8") as fh:
        for q in got:
            fh.write(json.dumps({"query_id": qid, "query_text": "Earth Science and its branches / Geology",
                                 "qid": q.question_id, "question": q.question, "facet_id": facet}) + "\n")  # fmt: skip
        fh.write(json.dumps({"query_id": "L_0001", "qid": "NDQ_000001", "question": "Which is a rock?",
                             "choices": {"a": "granite", "b": "water"}, "correctKey": "a", "correct": "granite"}) + "\n")  # fmt: skip
    bank = read_bank(converted)
    assert [q.question_id for q in bank[qid]] == expect
    (tqa,) = bank["L_0001"]
    assert (tqa.kind, tqa.options, tqa.answer) == ("multiple-choice", ("granite", "water"), "granite")

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"query_id": "x", "qid": "x/1", "question": "Q?", "choices": ["a"]}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl, line 1.*choices"):
        read_bank(bad)


def car_y3_shaped(path: Path) -> Path:
    """A questions file of the shape of EXAM++'s own ``car-y3-genq.jsonl.gz``
    (laura-dietz/flan-t5-exam-appendix @ 98a2ab4820c16b4e7555abe20e6d534874a1889c,
    ``car-y3-questions/``, sha256 3f127da414f3867736ff1cd7800e083b56d2dd69b2461a3d200549c659265a31;
    the repository states no licence, so the file is not shipped): one ``tqa_loader.Question``
    per line, gzipped, 8,893 lines for 132 queries; ids ``query/facet/md5 of the text as
    written``; on lines 1570, 1572, … 1600 — inside a facet whose questions an LLM wrote as a
    Python list, split into lines — 16 questions of four spaces, all one id."""
    import gzip

    blank = "    "
    sizes = [70] * 22 + [100] + [67] * 59 + [66] * 50  # 8,893 lines; query 23 holds 1541-1640
    rows = []
    for i, size in enumerate(sizes):
        query = f"tqa2:L_{i + 31:04d}"
        for k in range(size):
            line = len(rows) + 1
            in_list = 1569 <= line <= 1601  # one facet's questions, as the LLM wrote them
            facet = "T_0525" if in_list else f"T_{i * 10 + k // 15:04d}"
            text = blank if in_list and line % 2 == 0 else f"Question {k} about {query}?"
            qid = f"{query}/{facet}/{hashlib.md5(text.encode()).hexdigest()}"
            rows.append({"query_id": query, "query_text": f"Lesson {i} / Facet", "qid": qid, "question": text,
                         "choices": None, "correctKey": None, "correct": None, "facet_id": facet})  # fmt: skip
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return path


def test_the_car_y3_question_file_is_read_as_exampp_reads_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """EXAM++'s loader (``tqa_loader.parseConvertedQuestions``) reads every line: 132 queries,
    8,878 question ids, the blank question one of them.  groundcover reads the same ids per
    query and warns, with the lines, about the blank questions and the repeated id."""
    import gzip

    path = car_y3_shaped(tmp_path / "car-y3-genq.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        lines = [json.loads(x) for x in fh]
    exampp: dict[str, set[str]] = defaultdict(set)
    for q in lines:  # parseConvertedQuestions: one Question per line, counted by id
        exampp[q["query_id"]].add(q["qid"])
    assert (len(lines), len(exampp), sum(map(len, exampp.values()))) == (8893, 132, 8878)
    with caplog.at_level("WARNING", logger="benchmark.families.exam.exampp"):
        bank = read_bank(path)
    assert {q: {x.question_id for x in qs} for q, qs in bank.items()} == exampp
    (blank,) = [x for qs in bank.values() for x in qs if not x.question.strip()]
    assert blank.question == "    " and blank.question_id.endswith(hashlib.md5(b"    ").hexdigest())
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2
    assert "line 1570, field 'question': 16 blank question(s), on line(s) 1570, 1572, 1574," in said[0]
    assert f"field 'question_id': question id {blank.question_id!r} written 16 times" in said[1]
    assert "lines 1570, 1572, 1574, 1576, 1578, 1580, 1582, 1584, 1586, 1588, 1590, 1592," in said[1]


def test_a_question_id_written_twice_with_two_questions_is_refused(tmp_path: Path) -> None:
    """Which question a grade of that id answers is unknown: both lines named."""
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join(
            json.dumps({"query_id": "q", "qid": "q/1", "question": text}) + "\n" for text in ("One?", "Two?")
        )
    )
    with pytest.raises(InputError, match=r"q.jsonl, line 2, field 'question_id'.*repeated"):
        read_bank(path)


def test_a_querys_questions_include_those_asked_only_of_unranked_passages() -> None:
    """EXAM++ (``compute_exam_cover_scores``) counts a query's questions over all its graded
    paragraphs, a qrels-pool passage no system ranked included: system A's one paragraph
    answers Q1 of Q1-Q3 (Q2 and Q3 were asked of an unranked passage only), EXAM 1/3 — not
    1/1; n-EXAM's normaliser counts the same way (Q1 and Q2 answered somewhere: 2/3)."""
    from benchmark.families.exam.exampp import Grade, GradedParagraph, exam_from_grades
    from benchmark.families.exam.graded_boards import exam_boards

    def para(pid: str, ranks: tuple[tuple[str, int], ...], ratings: dict[str, int]) -> GradedParagraph:
        return GradedParagraph("q", pid, pid, ranks, 1, (Grade("g", frozenset(), frozenset(), ratings),))

    paragraphs = [para("ranked", (("A", 1),), {"Q1": 5}), para("pool", (), {"Q2": 5, "Q3": 1})]
    assert exam_from_grades(paragraphs, "g", min_rating=4) == {"A": {"q": pytest.approx(1 / 3)}}
    exam, n_exam = exam_boards(paragraphs, "g", 4, 20)
    assert exam == {"A": {"q": pytest.approx(1 / 3)}} and n_exam == {"A": {"q": pytest.approx(0.5)}}


def test_a_ranking_needs_an_integer_rank(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    para = {"paragraph_id": "p", "text": "x", "paragraph_data": {"judgments": [], "rankings": [
        {"method": "s", "paragraphId": "p", "queryId": "q", "rank": "first", "score": 1.0}]}}  # fmt: skip
    bad.write_text(json.dumps(["q", [para]]) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl, line 1.*rankings.*integer rank"):
        read_grades(bad)


def test_two_graders_that_each_answer_half_are_not_one_that_answers_all(tmp_path: Path) -> None:
    """The maximum self-rating across graders (groundcover's old reading) turns two EXAMs
    of 0.5 into 1.0; each grader is reported with its own 0.5, as EXAM++ gives it."""
    questions = ["q/1", "q/2", "q/3", "q/4"]
    first = {"q/1": 5, "q/2": 4, "q/3": 1, "q/4": 0}
    second = {"q/1": 0, "q/2": 2, "q/3": 5, "q/4": 4}
    para = {
        "paragraph_id": "p1",
        "text": "an answer",
        "paragraph_data": {
            "judgments": [],
            "rankings": [{"method": "sys", "paragraphId": "p1", "queryId": "q", "rank": 1, "score": 1.0}],
        },
        "exam_grades": [
            _grade(*SELF_RATER, first, set(), questions),
            _grade("meta-llama/Llama-3.1-8B-Instruct", SELF_RATER[1], second, set(), questions),
        ],
    }
    path = tmp_path / "two-graders.jsonl"
    path.write_text(json.dumps(["q", [para]]) + "\n", encoding="utf-8")
    got = groundcover(path, tmp_path)["graders"]
    assert [v["exam"] for v in got.values()] == [{"sys": {"q": 0.5}}, {"sys": {"q": 0.5}}]
    assert exampp_exam(path, SELF_RATER, 4)[0] == {"sys": 0.5}
    merged = {q: max(first[q], second[q]) for q in questions}
    assert sum(r >= 4 for r in merged.values()) / len(questions) == 1.0


def test_against_exampps_own_code(graded: Path, tmp_path: Path) -> None:
    """Where EXAM++ itself is importable (it is not a dependency: it needs torch), its own
    ``compute_exam_cover_scores`` and ``confusion_exam_vs_judged_correlation`` on the same
    file give groundcover's figures."""
    import gzip
    import io
    from contextlib import redirect_stdout

    cover = pytest.importorskip("exam_pp.exam_cover_metric")
    correlation = pytest.importorskip("exam_pp.exam_judgment_correlation")
    model = pytest.importorskip("exam_pp.data_model")
    packed = tmp_path / "graded.jsonl.gz"
    packed.write_bytes(gzip.compress(graded.read_bytes()))
    paragraphs = model.parseQueryWithFullParagraphs(packed)
    for grader, ours, theirs in CASES:
        grade_filter = model.GradeFilter(
            model_name=grader[0], prompt_class=grader[1], is_self_rated=None, min_self_rating=None,
            question_set=None, prompt_type=None,
        )  # fmt: skip
        factory = cover.ExamCoverScorerFactory(grade_filter=grade_filter, min_self_rating=theirs)
        with redirect_stdout(io.StringIO()):
            results = cover.compute_exam_cover_scores(paragraphs, exam_factory=factory)
        got = groundcover(graded, tmp_path, "--grader", grader_name(grader), "--min-rating", ours,
                          "--skip-unranked-queries")["graders"][grader_name(grader)]  # fmt: skip
        close(got["exam"], {m: e.examCoverPerQuery for m, e in results.items() if m != cover.OVERALL_ENTRY})
        stats, _ = correlation.confusion_exam_vs_judged_correlation(
            paragraphs, grade_filter=grade_filter, min_judgment_level=1, min_answers=1, min_rating=theirs
        )
        assert got["qrels_mode"]["passages"] == stats.all()
        assert got["qrels_mode"]["kappa"] == pytest.approx(stats.cohen_kappa())
