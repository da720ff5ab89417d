"""Rules that one edited line could break with the rest of the suite green.

Each test here was written against a specific one-line mutation (named in its docstring)
and seen to fail on it.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from benchmark.core.results import ModelInfo
from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.exam.family import ExamSettings
from benchmark.families.exam.trace import ExamTrace, QuestionTrace
from benchmark.families.icat.qrels import task_aspect_qrels
from benchmark.families.subq.family import SubqSettings
from benchmark.families.subq.judges import SimilarityCoverage
from benchmark.scoring.runner import RunOptions, aggregate
from benchmark.tasks import load_task


def test_bundled_aspect_qrels_keep_only_relevant_rows() -> None:
    """Mutation: ``relevance > 0`` -> ``>= 0`` in ``Task.aspect_qrels``: webtrack-2013-2014
    ships grade-0 aspect rows, and counting them inflates its ICAT-M coverage several-fold."""
    task = load_task("webtrack-2013-2014")
    df = task.table("qrels")
    df = df[df["aspect_id"].notna()]
    relevant = df[df["relevance"] > 0]
    zero = df[df["relevance"] <= 0]
    assert len(zero) > len(relevant) / 2  # the rule matters on this task: many judged-irrelevant rows
    got = task_aspect_qrels(task)
    want: dict[tuple[str, str], set[str]] = {}
    for q, d, a in zip(relevant["query_id"], relevant["doc_id"], relevant["aspect_id"], strict=True):
        want.setdefault((q, d), set()).add(a)
    assert got == want


def test_icat_traces_count_the_covered_aspects(tmp_path: Path) -> None:
    """Mutation: drop the ``covered_*`` counts the ICAT pipeline writes into each trace."""
    from benchmark.core.results import traces_path
    from tests.unit.test_icat_pipeline import build_task, run

    _, path, _ = run(load_task(build_task(tmp_path)), tmp_path)
    traces = {t["query_id"]: t for t in map(json.loads, traces_path(path).read_text().splitlines())}
    c1, c2 = traces["1"]["counts"], traces["2"]["counts"]
    # q1: coverage M 2/4, S 3/4, A 1/2 -> 2, 3 and 1 aspects covered; q2: M 2/2, A 0/1, S failed
    assert (c1["covered_m"], c1["covered_s"], c1["covered_a"]) == (2, 3, 1)
    assert (c2["covered_m"], c2["covered_a"]) == (2, 0) and "covered_s" not in c2


class _Fixed:
    """Text containing 'alpha' -> (1, 0); anything else -> (0.5, sqrt(0.75)): cosine exactly 0.5."""

    identity = "fixed"

    def encode(self, texts: list[str], kind: str = "query") -> np.ndarray:
        return np.array([[1.0, 0.0] if "alpha" in t.lower() else [0.5, 0.75**0.5] for t in texts])


def test_similarity_coverage_covers_at_the_threshold_itself() -> None:
    """Mutations: ``>=`` -> ``>`` at the boundary, and another default threshold than 0.5."""
    assert float(_Fixed().encode(["Alpha."])[0] @ _Fixed().encode(["q?"])[0]) == 0.5
    item = [(["Alpha is here."], ["What is q?"])]
    (mark,) = SimilarityCoverage(_Fixed(), 0.5).judge(item)[0]
    assert mark.covered and mark.support == 0.5 and mark.evidence
    (mark,) = SimilarityCoverage(_Fixed(), 0.5 + 1e-9).judge(item)[0]
    assert not mark.covered and mark.evidence is None
    assert SubqSettings().threshold == 0.5


def _question(i: int, correct: bool) -> QuestionTrace:
    return QuestionTrace(
        question_id=f"q{i}", question="?", kind="multiple-choice", answered=True, correct=correct
    )


def test_exam_is_a_macro_average_over_queries() -> None:
    """Mutations: EXAM as one share over all questions (micro, 2/5) instead of the mean of
    per-query shares ((1 + 1/4) / 2), or a query's count of right answers instead of its
    share (seen to fail). Every published query has 5 questions, so only unequal counts tell
    macro and micro apart."""
    fam = REGISTRY["exam"]
    traces = [
        ExamTrace(query_id="a", query="a", answer="x", questions=[_question(0, True)], gold_mean=0.5),
        ExamTrace(
            query_id="b",
            query="b",
            answer="x",
            questions=[_question(i, i == 0) for i in range(4)],  # 1 of 4 right
            gold_mean=0.5,
        ),
    ]
    for t in traces:
        t.scores = family_base.recompute(fam, t)
    assert [t.scores["exam"] for t in traces] == [1.0, 0.25]
    result = aggregate(
        fam,
        load_task("webtrack-2009-2012"),
        traces,
        ModelInfo(id="m"),
        {},
        None,
        ExamSettings(),
        RunOptions(progress=False),
        [],
    )
    assert result.scores["exam"].value == pytest.approx(0.625)  # micro would be 2/5
    assert result.scores["n_exam"].value == pytest.approx(float(F(5, 8) / F(1, 2)))
