"""A board judged with repeats ranks by the two-level test: noise alone does not separate two ranks.

Two entries of the published nugget board are rebuilt with the same answers' quality per
query and a judge whose repeat 0 happened to favour the first entry on every query while its
other repeats favour the second: from repeat 0 alone the first ranks above the second; with
the three repeats (``per_query[].repeats``) the two share rank 1, and the board says how much
of the variance is the judge's noise.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from benchmark.board.leaderboard import from_results
from benchmark.board.render import print_leaderboard
from benchmark.core.repeats import noise_share
from benchmark.core.results import JudgeRepeats, QueryScores, Score, TaskResult, read_result
from benchmark.families import MetricFamily
from benchmark.families.base import ScoreColumn

PUBLISHED = next(
    (Path(__file__).resolve().parents[2] / "leaderboard" / "results").rglob(
        "closed-book/*/webtrack-2009-2012.nuggets.json"
    )
)
KEY = "vital_strict"


def entry(base: TaskResult, name: str, repeats: dict[str, list[float]], with_repeats: bool) -> TaskResult:
    per_query = [
        QueryScores(
            query_id=q,
            scores={KEY: float(np.mean(v)) if with_repeats else v[0]},
            repeats={KEY: list(v)} if with_repeats else None,
        )
        for q, v in repeats.items()
    ]
    values = [pq.scores[KEY] for pq in per_query]
    score = Score(value=float(np.mean(values)), n=len(values))  # type: ignore[arg-type]
    if with_repeats:
        score.judge_repeats = JudgeRepeats(repeats=3, noise_share=noise_share(repeats))
    return base.model_copy(
        update={
            "model": base.model.model_copy(update={"id": name}),
            "per_query": per_query,
            "scores": {KEY: score},
            "primary": KEY,
        }
    )


def boards(with_repeats: bool) -> tuple[dict[str, int], str]:
    base = read_result(PUBLISHED)
    queries = [pq.query_id for pq in base.per_query]
    quality = np.linspace(0.3, 0.7, len(queries))
    a = {q: [x + 0.2, x - 0.05, x - 0.05] for q, x in zip(queries, quality, strict=True)}
    b = {q: [x - 0.2, x + 0.1, x + 0.1] for q, x in zip(queries, quality, strict=True)}
    lb = from_results([entry(base, "org/a", a, with_repeats), entry(base, "org/b", b, with_repeats)])
    table = lb.tables["nuggets"]
    console = Console(width=300, record=True)
    print_leaderboard(lb, console, skip_empty=True)
    ranks = {str(m).split("@")[0]: int(r) for m, r in zip(table["model"], table["rank"], strict=True)}
    return ranks, " ".join(console.export_text().split())


def test_two_entries_that_differ_only_by_judge_noise_share_a_rank_with_repeats() -> None:
    without, text = boards(with_repeats=False)
    assert without == {"org/a": 1, "org/b": 2} and "Judge noise" not in text
    with_, text = boards(with_repeats=True)
    assert with_ == {"org/a": 1, "org/b": 1}
    assert "Judge noise: org/a" in text and "each judgement asked 3 times" in text


def test_ranks_from_repeats_respect_a_lower_is_better_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same two entries, ranked by a score where lower is better (no built-in family has
    one; the nugget family's column is declared so here): the entry whose every repeat is
    0.3 below the other's holds rank 1, as the one-draw paired test ranks it too."""
    declared = MetricFamily.column

    def lower_is_better(family: MetricFamily, key: str) -> ScoreColumn | None:
        col = declared(family, key)
        lower = col is not None and family.id == "nuggets" and key == KEY
        return dataclasses.replace(col, higher_is_better=False) if lower else col

    monkeypatch.setattr(MetricFamily, "column", lower_is_better)  # a family is a frozen value
    base = read_result(PUBLISHED)
    quality = np.linspace(0.3, 0.6, len(base.per_query))
    low = {pq.query_id: [x, x + 0.02, x - 0.02] for pq, x in zip(base.per_query, quality, strict=True)}
    high = {q: [v + 0.3 for v in vals] for q, vals in low.items()}
    for with_repeats in (True, False):
        lb = from_results(
            [entry(base, "org/low", low, with_repeats), entry(base, "org/high", high, with_repeats)]
        )
        table = lb.tables["nuggets"]
        ranks = {str(m).split("@")[0]: int(r) for m, r in zip(table["model"], table["rank"], strict=True)}
        assert ranks == {"org/low": 1, "org/high": 2}, with_repeats
