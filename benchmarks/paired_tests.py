"""Cost of ranking a board with paired permutation tests; prints a table.

Every pair of models on a board is compared on per-query differences
(``benchmark.core.stats.paired_tests`` and ``ranks_of``: one vectorised ``scipy.stats.permutation_test`` over
all pairs, 5,000 sign-flip resamples, Holm per model).  Issue 14 asks that a board of 50
models × 200 queries ranks in a few seconds; this script measures it, together with the
whole board build (``benchmark.board.leaderboard.from_results``: result objects in, ranked
table out) and peak memory.

    .venv/bin/python benchmarks/paired_tests.py
"""

from __future__ import annotations

import resource
import time

import numpy as np

from benchmark.core import stats


def synthetic_scores(models: int, queries: int, seed: int = 0) -> dict[str, dict[str, float | None]]:
    """Per-query scores: query difficulty plus a model effect plus noise; 2% failed queries."""
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(0.1, 0.9, size=queries)
    effects = np.linspace(-0.1, 0.1, models)
    out: dict[str, dict[str, float | None]] = {}
    for m, effect in enumerate(effects):
        values = np.clip(difficulty + effect + rng.normal(0, 0.08, size=queries), 0, 1)
        failed = rng.random(queries) < 0.02
        out[f"model-{m:03d}"] = {str(q): None if failed[q] else float(v) for q, v in enumerate(values)}
    return out


def board_results(scores: dict[str, dict[str, float | None]]) -> list:
    """One ICAT result per model, all on one board (same task, data, queries, profile, β)."""
    from benchmark.core.results import (
        ModelInfo,
        QueryScores,
        QuerySet,
        RunInfo,
        Statistics,
        TaskInfo,
        TaskResult,
        bootstrap_score,
    )

    queries = sorted(next(iter(scores.values())), key=int)
    run = RunInfo(
        groundcover_version="bench", packages={}, python="3", git_sha=None, seed=0, started="", finished=""
    )
    out = []
    for m, s in scores.items():
        per_query = [QueryScores(query_id=q, scores={"icat_m": s[q]}, failed=s[q] is None) for q in queries]
        out.append(
            TaskResult(
                model=ModelInfo(id=m),
                task=TaskInfo(id="bench", version="1", data="synthetic", queries=QuerySet.of(queries)),
                judge_profile={"name": "bench", "version": "1"},
                metric_family="icat",
                primary="icat_m",
                board_settings={"beta": 1.0},
                statistics=Statistics(ci_level=0.95, bootstrap_resamples=200, seed=0, bca_min_n=10),
                scores={"icat_m": bootstrap_score([s[q] for q in queries], n_resamples=200)},
                per_query=per_query,
                run=run,
            )
        )
    return out


def main() -> None:
    from benchmark.board.leaderboard import from_results

    print(
        f"{'models':>6} {'queries':>7} {'pairs':>6} {'paired tests s':>14} {'board build s':>13} {'distinct ranks':>14}"
    )
    for models, queries in ((10, 50), (20, 200), (50, 200), (100, 200)):
        scores = synthetic_scores(models, queries)
        t0 = time.perf_counter()
        ranks = stats.ranks_of(stats.paired_tests(scores))
        t_rank = time.perf_counter() - t0
        results = board_results(scores)
        t0 = time.perf_counter()
        from_results(results)
        t_board = time.perf_counter() - t0
        print(
            f"{models:>6} {queries:>7} {models * (models - 1) // 2:>6} {t_rank:>14.2f} {t_board:>13.2f} "
            f"{len(set(ranks.values())):>14}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB; {stats.PERMUTATION_RESAMPLES} resamples per test, α = {stats.ALPHA}")


if __name__ == "__main__":
    main()
