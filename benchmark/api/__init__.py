"""groundcover's library: score answers you hold, or evaluate a model, from Python.

>>> import benchmark
>>> results = benchmark.score(frame, task="webtrack-2009-2012")  # doctest: +SKIP
>>> results.scores()  # doctest: +SKIP

:func:`score` scores existing answers (a path, a DataFrame, a ``datasets.Dataset``, a
list of dicts), :func:`evaluate` generates them with a model first, :func:`plan` says what
a scoring run would ask without computing anything.  Each is the very run the command line
makes (``benchmark score``, ``benchmark evaluate``, ``--dry-run``): the same checks before
any model loads, result files, checkpoints, cache and resume; the command line only
parses flags into these calls and prints what they return.  Bad input raises
:class:`InputError` with the one-line message the command line prints.
"""

from __future__ import annotations

from benchmark.api.config import ScoringConfig
from benchmark.api.evaluate import EvaluationPlan, Sweep, evaluate, plan_evaluation, run_evaluation
from benchmark.api.results import Results
from benchmark.api.score import plan, score
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
    "RayOptions",
    "Results",
    "RunOptions",
    "ScoringConfig",
    "Sweep",
    "Task",
    "evaluate",
    "list_profiles",
    "load_profile",
    "load_task",
    "plan",
    "plan_evaluation",
    "print_plan",
    "run_evaluation",
    "score",
]
