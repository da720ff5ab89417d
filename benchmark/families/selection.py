"""Which families score a task (the card's ``metrics``, or any registered family ``--metrics``
names whose tables the task has), and which of its queries they can score.
"""

from __future__ import annotations

from benchmark.core.errors import InputError, Problem
from benchmark.core.registry import REGISTRY
from benchmark.families.base import MetricFamily, ScoringInputs, queries_of
from benchmark.tasks import Task


def families_for(task: Task, requested: list[str] | None = None) -> list[MetricFamily]:
    """The families to score ``task`` with (``--metrics`` or the card's list), each registered
    and with its required tables, else an error before any model loads."""
    card_path = task.where()
    ids = requested if requested else list(task.card.metrics)
    problems = []
    for fid in ids:
        if fid not in REGISTRY:
            src = "--metrics" if requested else card_path
            problems.append(
                Problem(src, f"no metric family {fid!r}; known: {', '.join(REGISTRY)}", field="metrics")
            )
            continue
        family = REGISTRY[fid]
        missing = [t for t in family.required_tables if not task.has_table(t)]
        if missing:
            problems.append(
                Problem(
                    "--metrics" if fid not in task.card.metrics else card_path,
                    f"{fid} needs the table(s) {missing}, which task {task.id} does not have",
                    field="data.tables",
                )
            )
        key = task.card.main_score.get(fid)
        if key and family.column(key) is None:
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
    """The queries some family scoring ``task`` can score, in quick-run order: the union of the
    families' restricted lists, or every query when none restricts.  Cheap: no model loads."""
    qids = list(task.table("queries")["query_id"])
    lists = [queries_of(fam, task, inputs or ScoringInputs()) for fam in families_for(task, requested)]
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
