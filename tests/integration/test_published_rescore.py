"""No silent score changes, end to end: the published submissions re-scored from their answers.

Each submission under ``submissions/`` is scored again with the pinned offline profile —
real Lucene and faiss indexes, real MiniLM embeddings — and every number that needs no
LLM generation (claims, candidates, grounding verdicts, S_fact, S_cov-M, ICAT-M per query,
their means and intervals) must equal the published result.  ICAT-S/A depend on
SmolLM2's greedy generations, which may differ in the last bit across CPU kernels; they
are checked from the published traces by ``tests/unit/test_published_results.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.core.results import read_result, traces_path
from benchmark.models.profiles import load_profile

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
# the submissions with ICAT tasks: their grounding needs no LLM, so it re-scores exactly (the
# argument family's judges are all LLM calls; its published numbers are checked from their
# traces by tests/unit/test_published_results.py)
ICAT_TASKS = ("webtrack-2009-2012", "webtrack-2013-2014")
SUBMISSIONS = sorted(
    p
    for p in (REPO / "submissions").iterdir()
    if (p / "model.yaml").exists() and any((p / f"{t}.jsonl").exists() for t in ICAT_TASKS)
)
# the results of the profile version in force (earlier versions' stay published, as history)
CURRENT = f"{load_profile().name}-v{load_profile().version}"
PUBLISHED = {
    (r.model.id, r.model.setting, r.metric_family): (r, p)
    for p in (REPO / "leaderboard" / "results").rglob(f"{CURRENT}/*.json")
    for r in [read_result(p)]
}
M_KEYS = ("s_fact", "s_coverage_m", "icat_m")


@pytest.mark.parametrize("folder", SUBMISSIONS, ids=[p.name for p in SUBMISSIONS])
def test_published_submission_rescores_to_the_same_numbers(folder: Path, tmp_path: Path) -> None:
    args = [
        "score",
        "--submission",
        str(folder),
        "--results-dir",
        str(tmp_path),
        "--metrics",
        "icat",
        "--variants",
        "m",
        "--no-progress",
    ]
    assert main(args) == 0
    (path,) = tmp_path.rglob("*.json")
    fresh = read_result(path)
    published, published_path = PUBLISHED[(fresh.model.id, fresh.model.setting, "icat")]
    assert fresh.task.queries == published.task.queries and fresh.task.corpus == published.task.corpus
    for a, b in zip(fresh.per_query, published.per_query, strict=True):
        assert {k: a.scores[k] for k in M_KEYS} == {k: b.scores[k] for k in M_KEYS}, a.query_id
    for k in M_KEYS:
        assert fresh.scores[k] == published.scores[k], k
    assert verdicts(path) == verdicts(published_path)


def verdicts(result_file: Path) -> list[list[tuple[str, bool, str | None]]]:
    """Per query, every claim with its verdict and first supporting passage."""
    lines = traces_path(result_file).read_text(encoding="utf-8").split("\n")
    return [
        [(c["text"], c["grounded"], c["first_supporting"]) for c in json.loads(line)["claims"]]
        for line in lines
        if line
    ]


@pytest.mark.parametrize("folder", SUBMISSIONS, ids=[p.name for p in SUBMISSIONS])
def test_published_exam_rescores_to_the_same_numbers(folder: Path, tmp_path: Path) -> None:
    """EXAM's default answerer needs no LLM: every verdict and score re-scores exactly."""
    args = ["score", "--submission", str(folder), "--results-dir", str(tmp_path), "--metrics", "exam"]
    assert main([*args, "--no-progress"]) == 0
    (path,) = tmp_path.rglob("*.json")
    fresh = read_result(path)
    published, published_path = PUBLISHED[(fresh.model.id, fresh.model.setting, "exam")]
    assert fresh.per_query == published.per_query and fresh.scores == published.scores
    assert fresh.curves == published.curves

    def choices(p: Path) -> list[list[tuple[str, str | None, bool | None]]]:
        lines = traces_path(p).read_text(encoding="utf-8").splitlines()
        return [
            [(q["question_id"], q["choice"], q["correct"]) for q in json.loads(x)["questions"]] for x in lines
        ]

    assert choices(path) == choices(published_path)
