"""groundcover: is a long-form answer grounded, and does it cover what matters?

The import package is ``benchmark`` (the distribution is ``groundcover``).  Its stable
names are the library's (:mod:`benchmark.api`), importable from here::

    import benchmark

    task = benchmark.Task.from_records("my-task", queries=questions, out_dir="tasks/my-task")
    results = benchmark.score(answers_frame, task=task)
    results.scores()          # per family, each score with its interval
    results.to_pandas()       # one row per query

The names load on first use, so ``import benchmark`` stays cheap and a submodule
(``benchmark.core.errors``, say) never pulls the whole library in.
"""

# ruff: noqa: F405
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchmark.core.version import __version__

if TYPE_CHECKING:
    from benchmark.api import *  # noqa: F403  (the names __all__ lists, for type checkers)

__all__ = [
    "DryRun",
    "IncompleteResults",
    "InputError",
    "JudgeProfile",
    "RankingOptions",
    "Results",
    "RunOptions",
    "ScoringConfig",
    "Task",
    "__version__",
    "autojudge_card",
    "autojudge_judge",
    "compare_metric",
    "evaluate",
    "export_lm_eval",
    "judge_card",
    "load_task",
    "plan",
    "ranking_card",
    "score",
]


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (PEP 562)."""
    if name in __all__ and name != "__version__":
        from benchmark import api

        return getattr(api, name)
    raise AttributeError(f"module 'benchmark' has no attribute {name!r}")
