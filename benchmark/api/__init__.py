"""groundcover's library: score answers you hold, or evaluate a model, from Python.

>>> import benchmark
>>> results = benchmark.score(frame, task="webtrack-2009-2012")  # doctest: +SKIP
>>> results.scores()  # doctest: +SKIP

:func:`score` scores answers you hold, :func:`evaluate` generates them with a model first,
:func:`plan` says what a scoring run would ask; every command of the command line is a call
here (same checks, result files, checkpoints and cache), and bad input raises
:class:`InputError` with the one-line message the command line prints.
"""

from __future__ import annotations

from benchmark.api.autojudge import autojudge_card, autojudge_judge
from benchmark.api.config import ScoringConfig
from benchmark.api.evaluate import EvaluationPlan, Sweep, evaluate, plan_evaluation, run_evaluation
from benchmark.api.judge_card import judge_card
from benchmark.api.meta_eval import RankingOptions, compare_metric, ranking_card, rater_agreements
from benchmark.api.results import Results
from benchmark.api.score import plan, score
from benchmark.api.tasks import export_lm_eval, list_tasks
from benchmark.core.errors import IncompleteResults, InputError, Problem
from benchmark.models.profiles import DEFAULT_PROFILE, JudgeProfile, list_profiles, load_profile
from benchmark.scoring.dry_run import DryRun, print_plan
from benchmark.scoring.options import RunOptions
from benchmark.scoring.ray_shards import RayOptions
from benchmark.scoring.run import Job
from benchmark.tasks import Task, load_task

__all__ = [
    "DEFAULT_PROFILE",
    "DryRun",
    "EvaluationPlan",
    "IncompleteResults",
    "InputError",
    "Job",
    "JudgeProfile",
    "Problem",
    "RankingOptions",
    "RayOptions",
    "Results",
    "RunOptions",
    "ScoringConfig",
    "Sweep",
    "Task",
    "autojudge_card",
    "autojudge_judge",
    "compare_metric",
    "evaluate",
    "export_lm_eval",
    "judge_card",
    "list_profiles",
    "list_tasks",
    "load_profile",
    "load_task",
    "plan",
    "plan_evaluation",
    "print_plan",
    "ranking_card",
    "rater_agreements",
    "run_evaluation",
    "score",
]
