"""The Python API's contract: every keyword checked before any work, one line per problem.  A
keyword, family, setting or file nobody declares is an error naming the closest one that
exists (a misspelt key is never dropped), and so is a value of the wrong type.
"""

from __future__ import annotations

import difflib
import inspect
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from benchmark.api.config import ScoringConfig
from benchmark.core.errors import InputError, Problem
from benchmark.families.base import FamilySettings, MetricFamily
from benchmark.models.profiles import JudgeProfile
from benchmark.scoring.options import Options, RunOptions


def closest(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known name closest to ``name``, or nothing."""
    found = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def unknown(where: str, given: Iterable[Any], known: Iterable[str], what: str) -> list[Problem]:
    """A problem for each name in ``given`` that ``known`` lacks, with the closest known name."""
    known = list(known)
    return [
        Problem(
            where,
            f"unknown {what} {name!r}{closest(name, known)}; known: {', '.join(sorted(known))}",
            field=str(name),
        )
        for name in given
        if name not in known
    ]


def _as_keywords(where: str, model: type[Options], exc: InputError) -> list[Problem]:
    """A model's problems named by keyword (``query_batch``), not by flag (``--query-batch``)."""
    names = {flag: name for name, flag in model.flags().items()}
    return [
        Problem(
            where, p.message, field=names.get(p.field or "", (p.field or "").lstrip("-").replace("-", "_"))
        )
        for p in exc.problems
    ]


def scoring_keywords(
    where: str, keywords: Mapping[str, Any], options: Any = None
) -> tuple[ScoringConfig, RunOptions]:
    """:class:`ScoringConfig` and :class:`RunOptions` (over ``options``) from an API call's
    keywords; every problem raised together, named by keyword."""
    config_fields = set(ScoringConfig.model_fields)
    run_fields = set(RunOptions.model_fields) - {"command"}
    problems = unknown(where, keywords, config_fields | run_fields, "keyword")
    if options is not None and not isinstance(options, RunOptions):
        problems.append(
            Problem(where, f"options must be a RunOptions, not a {type(options).__name__}", field="options")
        )
        options = None
    config_values = {k: v for k, v in keywords.items() if k in config_fields}
    problems += _type_problems(where, config_values)
    run_values = {
        **(options.model_dump() if options is not None else {}),
        **{k: v for k, v in keywords.items() if k in run_fields},
    }
    config = opts = None
    if not problems:
        try:
            config = ScoringConfig(**config_values)
        except InputError as exc:
            problems += _as_keywords(where, ScoringConfig, exc)
    try:
        opts = RunOptions(**run_values)
    except InputError as exc:
        problems += _as_keywords(where, RunOptions, exc)
    if problems or config is None or opts is None:
        raise InputError(problems)
    return config, opts


def _type_problems(where: str, values: Mapping[str, Any]) -> list[Problem]:
    """The scoring keywords whose values a model would coerce into something else."""
    problems = []
    metrics = values.get("metrics")
    if metrics is not None and not (
        isinstance(metrics, str)
        or (isinstance(metrics, list | tuple) and all(isinstance(m, str) for m in metrics))
    ):
        problems.append(
            Problem(where, f"metrics must be family ids (a list, or 'a,b'), not {metrics!r}", field="metrics")
        )
    for name in ("judge_url", "judge_model", "corpus", "lucene_index"):
        value = values.get(name)
        if value is not None and not isinstance(value, str | os.PathLike):
            problems.append(
                Problem(where, f"{name} must be a string, not a {type(value).__name__}", field=name)
            )
    profile = values.get("judge_profile")
    if profile is not None and not isinstance(profile, str | os.PathLike | JudgeProfile):
        why = f"judge_profile must be a profile name, a YAML path or a JudgeProfile, not {profile!r}"
        problems.append(Problem(where, why, field="judge_profile"))
    if "files" in values and not isinstance(values["files"], Mapping):
        problems.append(Problem(where, "files must map input names to paths, as {name: path}", field="files"))
    return problems


def family_settings(
    where: str, settings: Any, families: Mapping[str, MetricFamily]
) -> dict[str, FamilySettings] | Callable[[MetricFamily], FamilySettings] | None:
    """``settings=`` checked: per family id, a settings object or its field values; a function
    of the family (what the command line passes) is taken as it is."""
    if settings is None or (callable(settings) and not isinstance(settings, Mapping)):
        return settings
    if not isinstance(settings, Mapping):
        raise InputError.at(
            where,
            f"settings must map family ids to their settings, as {{family id: {{setting: value}}}}, not {settings!r}",
            field="settings",
        )
    problems = unknown(where, settings, families, "metric family in settings")
    out: dict[str, FamilySettings] = {}
    for fid, value in settings.items():
        if fid not in families:
            continue
        model, field = families[fid].settings_model, f"settings.{fid}"
        if isinstance(value, FamilySettings) and isinstance(value, model):
            out[fid] = value
        elif isinstance(value, FamilySettings):
            problems.append(
                Problem(where, f"is a {type(value).__name__}, not {fid}'s {model.__name__}", field=field)
            )
        elif not isinstance(value, Mapping):
            problems.append(
                Problem(where, f"give {fid}'s settings as a dict of its fields, not {value!r}", field=field)
            )
        if not isinstance(value, Mapping):
            continue
        bad = unknown(where, value, model.model_fields, f"{fid} setting")
        problems += [Problem(p.file, p.message, field=f"{field}.{p.field}") for p in bad]
        if bad:
            continue
        try:
            out[fid] = model(**dict(value))
        except InputError as exc:
            problems += [Problem(where, p.message, field=field) for p in exc.problems]
    if problems:
        raise InputError(problems)
    return out


def input_files(where: str, config: ScoringConfig, families: Mapping[str, MetricFamily]) -> None:
    """``files=`` checked: each name an input file some family reads (as its flag names it)."""
    names = {i.name for fam in families.values() for i in fam.inputs}
    problems = unknown(where, config.files, names, "input file")
    problems += [
        Problem(where, f"must be a path, not a {type(v).__name__}", field=f"files.{k}")
        for k, v in config.files.items()
        if not isinstance(v, str | os.PathLike)
    ]
    if problems:
        raise InputError(problems)


def task_problem(where: str, task: Any, name: str = "task") -> Problem | None:
    """Why ``task`` is no task reference (an id, a folder, a :class:`~benchmark.tasks.Task`)."""
    from benchmark.tasks import Task

    if (
        isinstance(task, str | os.PathLike | Task)
        and str(task if not isinstance(task, Task) else task.id).strip()
    ):
        return None
    return Problem(where, f"{name} must be a task id, a task folder or a Task, not {task!r}", field=name)


def flag_problems(where: str, flags: Mapping[str, Any]) -> list[Problem]:
    """A problem for each of ``flags`` that is not a bool."""
    return [
        Problem(where, f"must be True or False, not {value!r}", field=name)
        for name, value in flags.items()
        if not isinstance(value, bool)
    ]


def signature(fn: Callable[..., Any], *models: type[Options]) -> inspect.Signature:
    """``fn``'s signature with the models' fields for its ``**keywords``, as ``help()`` shows it."""
    params = [
        p for p in inspect.signature(fn).parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    taken = {p.name for p in params}
    for model in models:
        for name, info in model.model_fields.items():
            if name in taken or name == "command":
                continue
            taken.add(name)
            params.append(
                inspect.Parameter(
                    name, inspect.Parameter.KEYWORD_ONLY, default=info.default, annotation=info.annotation
                )
            )
    return inspect.Signature(params, return_annotation=inspect.signature(fn).return_annotation)
