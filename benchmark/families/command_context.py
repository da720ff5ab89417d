"""What a family's own sub-commands (``benchmark exam …``) are given: the command line builds one
:class:`CommandContext` of the functions they use from the layers above the families and hands
it to every family's ``register(sub, context)``, so the dependency points down.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CommandContext:
    """The functions a family's commands use from the layers above the families."""

    #: ``add_command(sub, name, *, help, description, examples)``: a sub-command parser whose
    #: ``--help`` ends with worked examples
    add_command: Callable[..., argparse.ArgumentParser]
    #: ``require(args, command, *names)``: the first missing option of an action is an error
    require: Callable[..., None]
    #: ``run_options(args)``: the runner's options from the shared flags
    run_options: Callable[[argparse.Namespace], Any]
    #: ``add_settings(group, settings_model, only=None)``: a settings model's flags (``only``:
    #: just those fields), declared once in the model
    add_settings: Callable[..., None]
    #: ``settings_from_args(settings_model, args, **fixed)``: the settings those flags give
    settings_from_args: Callable[..., Any]
    #: ``save_figures(family, result, path)``: a result's figures as PNGs beside it
    save_figures: Callable[..., list[Any]]
    #: ``scoring_job(task, answers, model, rag, [(family, settings)])``: one scoring job
    scoring_job: Callable[..., Any]
    #: ``score_jobs(jobs, judges, *, results_root, inputs, options, on_result)``: the runner
    score_jobs: Callable[..., list[Any]]
    #: ``systems_table(metric, scores, seed)``: systems with bootstrap CIs and paired ranks
    systems_table: Callable[..., Any]
    #: ``judged_passage(query_id, answered, relevance, text)`` and
    #: ``answerability_vs_relevance(passages, relevant_at=…)``: EXAM++'s qrels-mode agreement
    judged_passage: Callable[..., Any]
    answerability_vs_relevance: Callable[..., Any]


def judge_stack(profile: str, **kwargs: Any) -> Any:
    """The judge models of the profile named ``profile``."""
    from benchmark.judging.stack import JudgeStack
    from benchmark.models.profiles import load_profile

    return JudgeStack.load(load_profile(profile), **kwargs)


def store_table(task: Any, name: str, rows: Any, note: str, command: str) -> str:
    """``generate --write-task``: ``rows`` become ``task``'s table ``name`` (checked first;
    the card records it, with a new patch version and ``note`` as its provenance), and what
    a command prints about it."""
    from benchmark.tasks import add_table, load_task

    table = add_table(task, name, rows, note, command)
    return (
        f"wrote {table}; tasks/{task.id}/task.yaml records it (version {load_task(task.root).card.version})"
    )
