"""Result files for leaderboard and Space tests, built through the real schema.

Scores are chosen so rankings are known: ``acme/strong`` is clearly best,
``acme/close`` overlaps ``beta-lab/mid`` (they must share a rank), and the hostile
``<script>`` model has results but no model card.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from benchmark.results import (
    ModelInfo,
    QueryScores,
    RunInfo,
    Score,
    TaskInfo,
    TaskResult,
    result_path,
    traces_path,
    write_result,
)

TASK = "webtrack-2009-2012"
EVIL = "<script>window.__pwned=1</script>evil/model"
PROFILE = {"name": "offline-smollm2-minilm-sim", "version": "1"}
OTHER_PROFILE = {"name": "paper-deberta-llama", "version": "1"}

# model id -> (icat_s value, ci half-width, s_fact, s_cov)
MODELS = {
    "acme/strong": (0.80, 0.04, 0.9, 0.7),
    "acme/close": (0.50, 0.10, 0.6, 0.45),
    "beta-lab/mid": (0.45, 0.10, 0.5, 0.4),
    EVIL: (0.20, 0.03, 0.3, 0.2),
}
CARDS = {
    "acme/strong": {"parameters": 70_000_000_000, "open_weights": False},
    "acme/close": {"parameters": 8_000_000_000, "open_weights": True},
    "beta-lab/mid": {"parameters": 500_000_000, "open_weights": True},
}


def _score(v: float, half: float) -> Score:
    return Score(value=v, ci_low=v - half, ci_high=v + half, n=3)


def make_result(model: str, values: tuple[float, float, float, float], profile: dict[str, str]) -> TaskResult:
    icat_s, half, fact, cov = values
    return TaskResult(
        model=ModelInfo(id=model, revision="main", backend="submission"),
        task=TaskInfo(id=TASK, version="1.0.0", data="sha256:test", corpus="corpus123"),
        judge_profile=profile,
        metric_family="icat",
        scores={
            "s_fact": _score(fact, half),
            "s_coverage_s": _score(cov, half),
            "icat_s": _score(icat_s, half),
        },
        curves={"icat_s_beta": {"0.5": icat_s + 0.05, "1": icat_s, "2": icat_s - 0.05}},
        per_query=[
            QueryScores(query_id="175", scores={"s_fact": fact, "icat_s": icat_s}, counts={"claims": 2}),
        ],
        failures={},
        run=RunInfo(
            groundcover_version="test",
            packages={},
            python="3",
            git_sha=None,
            seed=0,
            started="2026-01-01T00:00:00+00:00",
            finished="2026-01-01T00:01:00+00:00",
        ),
    )


def write_fixture(root: Path) -> tuple[Path, Path]:
    """``root/results`` and ``root/submissions`` with the models above."""
    results, submissions = root / "results", root / "submissions"
    for model, values in MODELS.items():
        res = make_result(model, values, PROFILE)
        path = write_result(res, result_path(results, res.model, PROFILE["name"], TASK))
        trace = {
            "query_id": "175",
            "query": "What are the effects of <b>acid</b> rain?",
            "answer": f"Answer by {model} <img src=x onerror=alert(1)>",
            "aspects": [{"aspect_id": "1", "text": "effects on forests"}],
            "generated_aspects": [],
            "failures": [],
            "claims": [
                {
                    "claim_id": "c1",
                    "text": "Acid rain damages forest soils.",
                    "grounded": True,
                    "failed": False,
                    "first_supporting": "175-01#0",
                    "passages": [
                        {
                            "passage_id": "175-01#0",
                            "doc_id": "175-01",
                            "rank": 1,
                            "retrieval_score": 12.5,
                            "support": 0.91,
                            "supported": True,
                            "text": "Acid deposition leaches calcium from forest soils.",
                        }
                    ],
                    "aspects_m": ["1"],
                    "aspects_s": ["1"],
                    "aspects_a": [],
                },
                {
                    "claim_id": "c2",
                    "text": "Acid rain is caused by volcanoes only.",
                    "grounded": False,
                    "failed": False,
                    "first_supporting": None,
                    "passages": [],
                    "aspects_m": [],
                    "aspects_s": [],
                    "aspects_a": [],
                },
            ],
            "scores": {"s_fact": values[2]},
        }
        traces_path(path).write_text(json.dumps(trace) + "\n", encoding="utf-8")
    # the same model under another judge profile must land on a different board
    other = make_result("acme/strong", (0.3, 0.05, 0.4, 0.3), OTHER_PROFILE)
    write_result(other, result_path(results, other.model, OTHER_PROFILE["name"], TASK))
    for model, card in CARDS.items():
        org, name = model.split("/")
        d = submissions / f"{org}__{name}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "model.yaml").write_text(
            yaml.safe_dump(
                {"name": name, "org": org, "license": "apache-2.0", "contact": "test@example.org", **card}
            ),
            encoding="utf-8",
        )
    return results, submissions
