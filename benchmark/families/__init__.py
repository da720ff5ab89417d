"""The metric-family registry: every family the platform knows, registered once here.

The CLI (``--metrics``, each family's options), the runner, result files, the
leaderboard and the Space all loop over :data:`REGISTRY`; none of them names a family.
Adding one is a folder under ``benchmark/families/`` and a line below (CONTRIBUTING.md,
"Adding a metric family").
"""

from __future__ import annotations

from benchmark.core.errors import InputError, Problem
from benchmark.families.arguments import ArgumentsFamily
from benchmark.families.attribution import AttributionFamily
from benchmark.families.base import MetricFamily, ScoreColumn, ScoringInputs
from benchmark.families.decompscore import DecompScoreFamily
from benchmark.families.exam import ExamFamily
from benchmark.families.icat import ICATFamily
from benchmark.families.nuggets import NuggetsFamily
from benchmark.families.subq import SubqFamily
from benchmark.tasks import Task

REGISTRY: dict[str, MetricFamily] = {
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

__all__ = ["REGISTRY", "MetricFamily", "ScoreColumn", "families_for", "scorable_queries"]


def families_for(task: Task, requested: list[str] | None = None) -> list[MetricFamily]:
    """The families to score ``task`` with: ``requested`` (``--metrics``) or the card's list.

    A family must be registered, listed on the task card, and find its required tables
    in the task; otherwise the error names what is missing, before any model loads.
    """
    card_path = f"tasks/{task.id}/task.yaml"
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
