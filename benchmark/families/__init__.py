"""The metric-family registry: every family the platform knows.

The CLI (``--metrics``, each family's options), the runner, result files, the
leaderboard and the Space all loop over :data:`REGISTRY`; none of them names a family.
A family comes from one of two places:

* the built-in families below, one line each (a folder under ``benchmark/families/``);
* any installed distribution that declares an entry point in the ``groundcover.families``
  group (``toy = "toy_family:ToyFamily"`` in its ``pyproject.toml``): a family written
  as a separate package, with no edit inside ``benchmark/`` (CONTRIBUTING.md, "Adding a
  metric family").

Registering a family also registers what it declares for the layers below it, which may
not import it: its task tables (:func:`benchmark.tasks.register`) and its prompt folder
(:func:`benchmark.models.prompts.add_folder`).
"""

from __future__ import annotations

import logging
import sys
from importlib.metadata import EntryPoint, entry_points

from benchmark.core.errors import InputError, Problem
from benchmark.families.arguments import ArgumentsFamily
from benchmark.families.attribution import AttributionFamily
from benchmark.families.base import JudgeRole, MetricFamily, ScoreColumn, ScoringInputs
from benchmark.families.decompscore import DecompScoreFamily
from benchmark.families.exam import ExamFamily
from benchmark.families.icat import ICATFamily
from benchmark.families.nuggets import NuggetsFamily
from benchmark.families.subq import SubqFamily
from benchmark.models import prompts
from benchmark.tasks import Task, register

log = logging.getLogger(__name__)

#: the entry point group an outside package registers its family in
ENTRY_POINT_GROUP = "groundcover.families"

#: the families that ship with groundcover, in the order boards list them
BUILTIN: dict[str, MetricFamily] = {
    f.id: f
    for f in (
        ICATFamily(),
        ExamFamily(),
        SubqFamily(),
        NuggetsFamily(),
        AttributionFamily(),
        ArgumentsFamily(),
        DecompScoreFamily(),
    )
}

#: one line per plug-in that could not be registered (also logged as it happens): a broken
#: plug-in is reported, never allowed to take the built-in families down with it
PLUGIN_ERRORS: list[str] = []


def install(family: MetricFamily) -> MetricFamily:
    """Make the layers below the families know what ``family`` declares: its task tables
    and its prompt folder.  Called for every family the registry holds."""
    register(*family.tables)
    if (folder := family.prompt_folder()) is not None:
        prompts.add_folder(folder)
    return family


def load_plugin(entry: EntryPoint, taken: set[str]) -> MetricFamily:
    """The family an entry point names: a :class:`MetricFamily` subclass or instance, whose
    id no other family has.  Any failure is raised as one line naming the entry point."""
    where = f"metric family plug-in {entry.name!r} ({entry.value}, entry point group {ENTRY_POINT_GROUP})"
    module = sys.modules.get(entry.module)
    if module is not None and getattr(getattr(module, "__spec__", None), "_initializing", False):
        # the plug-in's own import started this one (it imported benchmark.families first thing)
        raise RuntimeError(
            f"{where} is still being imported: import benchmark (or benchmark.families) before the "
            "plug-in's own modules; it is left out of this process's registry"
        )
    try:
        obj = entry.load()
        family = obj() if isinstance(obj, type) else obj
    except Exception as exc:  # a plug-in may fail in any way while it imports
        raise RuntimeError(f"{where} failed to load: {type(exc).__name__}: {exc}") from exc
    if not isinstance(family, MetricFamily):
        raise RuntimeError(f"{where} is a {type(family).__name__}, not a MetricFamily")
    if family.id in taken:
        raise RuntimeError(f"{where} declares the id {family.id!r}, which another family has")
    try:
        return install(family)
    except Exception as exc:  # e.g. a table schema that clashes with a built-in one
        raise RuntimeError(f"{where} could not be registered: {type(exc).__name__}: {exc}") from exc


def discover(group: str = ENTRY_POINT_GROUP) -> dict[str, MetricFamily]:
    """The built-in families and every plug-in installed in ``group``; a plug-in that fails
    is logged in one line and left out (:data:`PLUGIN_ERRORS`)."""
    found = {fid: install(f) for fid, f in BUILTIN.items()}
    for entry in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            family = load_plugin(entry, set(found))
        except RuntimeError as exc:
            PLUGIN_ERRORS.append(str(exc))
            log.error("%s", exc)
            continue
        found[family.id] = family
    return found


REGISTRY: dict[str, MetricFamily] = discover()

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "PLUGIN_ERRORS",
    "REGISTRY",
    "JudgeRole",
    "MetricFamily",
    "ScoreColumn",
    "discover",
    "families_for",
    "scorable_queries",
]


def families_for(task: Task, requested: list[str] | None = None) -> list[MetricFamily]:
    """The families to score ``task`` with: ``requested`` (``--metrics``) or the card's list.

    A family must be registered, listed on the task card, and find its required tables
    in the task; otherwise the error names what is missing, before any model loads.
    """
    card_path = task.where()
    ids = requested if requested else list(task.card.metrics)
    problems = []
    for fid in ids:
        if fid not in REGISTRY:
            src = "--metrics" if requested else card_path
            problems.append(
                Problem(src, f"no metric family {fid!r}; known: {', '.join(REGISTRY)}", field="metrics")
            )
        elif fid not in task.card.metrics:
            problems.append(
                Problem(
                    "--metrics",
                    f"task {task.id} is not scored by {fid!r} (its card lists {task.card.metrics})",
                )
            )
        else:
            missing = [t for t in REGISTRY[fid].required_tables if not task.has_table(t)]
            if missing:
                problems.append(
                    Problem(card_path, f"{fid} needs the table(s) {missing}", field="data.tables")
                )
        for key in [task.card.main_score.get(fid)] if fid in REGISTRY else []:
            if key and REGISTRY[fid].column(key) is None:
                problems.append(
                    Problem(card_path, f"main_score {key!r} is not a score of {fid}", field="main_score")
                )
    if not ids:
        problems.append(Problem(card_path, "the task card lists no metric families", field="metrics"))
    if problems:
        raise InputError(problems)
    return [REGISTRY[f] for f in ids]


def scorable_queries(
    task: Task, inputs: ScoringInputs | None = None, requested: list[str] | None = None
) -> list[str]:
    """The queries that some family scoring ``task`` can score with ``inputs``, in the order
    a quick run should take them (e.g. the bundled corpus's own order).  A family that can
    score every query does not widen the set others restrict (ICAT to the queries its corpus
    covers; EXAM to those with exam questions): the set is the union of the restricted lists,
    or every query when no family restricts it.  Each family then scores its own subset.
    Cheap: no model loads, so the CLI, the submission validator and the lm-eval export all
    ask it first."""
    qids = list(task.table("queries")["query_id"])
    lists = [fam.scorable_queries(task, inputs or ScoringInputs()) for fam in families_for(task, requested)]
    if all(allowed == [] for allowed in lists):
        return []
    # a family with nothing to score here (nuggets without a nugget file) is skipped by the
    # run, so it restricts nothing
    restricted = [allowed for allowed in lists if allowed]
    if not restricted:
        return qids
    known = set(qids)
    out: list[str] = []
    for allowed in restricted:
        out += [q for q in allowed if q in known and q not in out]
    return out
