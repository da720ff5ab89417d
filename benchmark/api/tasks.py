"""``benchmark tasks`` as library calls: list tasks, write a dataset card, export for lm-eval."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.core.errors import InputError, usage_error
from benchmark.tasks import Task, dataset_card, list_tasks, load_task

__all__ = ["TaskExport", "dataset_card", "export_lm_eval", "list_tasks", "write_dataset_card"]


def write_dataset_card(task: str | Task) -> Path:
    """Write the task's dataset card (``README.md``, what ``datasets`` reads) into its folder."""
    found = task if isinstance(task, Task) else load_task(task)
    out = found.root / "README.md"
    out.write_text(dataset_card(found.card), encoding="utf-8")
    return out


@dataclass(frozen=True)
class TaskExport:
    """One task of an lm-eval export: where it went and which queries it holds, or why it was skipped."""

    task_id: str
    path: Path | None = None
    query_ids: list[str] = field(default_factory=list)
    total: int = 0
    skipped: str | None = None


def export_lm_eval(
    out: str | Path = "lm_eval_tasks",
    *,
    tasks: list[str] | None = None,
    all_queries: bool = False,
    rag: str = "none",
    rag_k: int = 5,
    judge_profile: str | None = None,
    corpus: str | None = None,
    lucene_index: str | None = None,
    on_task: Callable[[TaskExport], None] | None = None,
) -> list[TaskExport]:
    """Export tasks (all, or ``tasks``) as lm-eval task folders under ``out``: by default only the
    queries the task's corpus (or ``corpus`` / ``lucene_index``) can score; ``rag`` puts ``rag_k``
    retrieved passages in each prompt.  A task not named that cannot be exported is skipped with
    its reason, a named one raises; ``on_task`` hears of each task as it is done."""
    from benchmark.core.paths import check_writable
    from benchmark.families import scorable_queries
    from benchmark.families.base import ScoringInputs
    from benchmark.generation import rag as rag_prompts
    from benchmark.generation.lm_eval_export import export_task
    from benchmark.models.profiles import load_profile

    check_writable(out, "--out")
    settings = rag_prompts.parse_settings(rag, rag_k)
    if len(settings) != 1:
        raise usage_error("export one setting at a time", "--rag")
    setting = settings[0]
    profile = load_profile(judge_profile)
    ids = tasks if tasks is not None else [c.id for c in list_tasks()]
    done = []
    for task_id in ids:
        task = load_task(task_id)
        try:
            qids = (
                list(task.table("queries")["query_id"])
                if all_queries
                else scorable_queries(task, ScoringInputs(corpus, lucene_index))
            )
            # with --rag, a task whose passages cannot be retrieved (it ships no corpus) is
            # skipped as one whose queries cannot be scored is
            context = (
                None
                if setting is None
                else rag_prompts.prepare(
                    task, setting, qids, profile=profile, corpus=corpus, lucene_index=lucene_index
                )
            )
        except InputError as exc:
            if tasks is not None:  # asked for by name: say why it cannot be exported
                raise
            one = TaskExport(task_id, skipped=exc.problems[0].message)
        else:
            path = export_task(task, Path(out), qids, context)
            one = TaskExport(task_id, path, list(qids), len(task.table("queries")))
        done.append(one)
        if on_task is not None:
            on_task(one)
    return done
