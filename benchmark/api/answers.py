"""Answers, however they are held, as scoring jobs.

``benchmark.score(answers, task=...)`` takes a path (a groundcover outputs JSONL, an
lm-eval ``--log_samples`` file, or — with ``trec_rag_run=True`` — a TREC RAG run), a
pandas DataFrame, a ``datasets.Dataset`` or a list of dicts; ``benchmark score`` takes
the files and a submission folder.  Every one is read by the readers in
:mod:`benchmark.generation` (one place each format is read) and checked the same way:
query ids known to the task, one model and one setting per job, file/row and field
named on an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from benchmark.core.errors import InputError, Problem
from benchmark.core.results import ModelInfo, RAGSetting
from benchmark.generation.trec_rag_run import WORD_LIMIT
from benchmark.scoring.run import Job
from benchmark.tasks import Task, load_task

if TYPE_CHECKING:
    from benchmark.board.submissions import Submission
    from benchmark.generation.trec_rag_run import TrecRagRun

__all__ = [
    "WORD_LIMIT",
    "answers_job",
    "read_trec_rag_run",
    "resolve_task",
    "submission_jobs",
    "trec_rag_jobs",
]

#: what :func:`benchmark.score` accepts as answers
Answers = str | os.PathLike[str] | Iterable[Mapping[str, Any]] | Any


def resolve_task(task: str | os.PathLike[str] | Task) -> Task:
    """A task from its id, its folder (or card) path, or a :class:`Task` as it is."""
    return task if isinstance(task, Task) else load_task(task)


def records_of(answers: Any) -> list[Mapping[str, Any]] | None:
    """The records of in-memory answers (a DataFrame, a ``datasets.Dataset``, dicts), or
    ``None`` for a path."""
    if isinstance(answers, str | os.PathLike):
        return None
    if hasattr(answers, "to_dict") and hasattr(answers, "columns"):  # pandas
        return list(answers.to_dict(orient="records"))
    if hasattr(answers, "column_names") and hasattr(answers, "to_list"):  # datasets.Dataset
        return list(answers.to_list())
    if isinstance(answers, Mapping):
        raise InputError(
            Problem("answers", "give a list of records (one dict per answer), not one dict", field="answers")
        )
    try:
        rows = list(answers)
    except TypeError:
        raise InputError(
            Problem(
                "answers",
                f"cannot read answers from a {type(answers).__name__}: give a path, a DataFrame, a "
                "datasets.Dataset or a list of dicts",
                field="answers",
            )
        ) from None
    bad = [i for i, r in enumerate(rows, start=1) if not isinstance(r, Mapping)]
    if bad:
        raise InputError(Problem("answers", "is not a record (a dict)", line=bad[0], field="answers"))
    return rows


def answers_job(answers: Answers, task: Task, *, model_name: str | None = None) -> Job:
    """One job from an outputs file or from records: ``query_id``, ``answer``, ``model``
    (or ``model_name``), and optionally the other fields of the outputs format (``rag``,
    ``retrieval``, ``revision``, ...)."""
    from benchmark.generation.outputs import answers_and_model, checked_answers, rows_from_records

    records = records_of(answers)
    if records is None:
        found, model, evidence = answers_and_model(answers, task, model_name=model_name)
    else:
        rows = rows_from_records(records, source="answers", model_name=model_name)
        found, model, evidence = checked_answers(rows, task, source="answers")
    return Job(task, found, model, evidence)


def submission_jobs(sub: Submission) -> list[Job]:
    """A validated submission as scoring jobs, one per task: what ``score --submission``
    scores and what ``validate --budget`` plans, so the two cannot differ."""
    from benchmark.generation.outputs import evidence_of

    model = ModelInfo(
        id=sub.card.model_id,
        revision=sub.card.revision,
        backend="submission",
        generation=sub.card.generation,
        rag=sub.card.rag,
    )
    return [
        Job(load_task(task_id), {r.query_id: r.answer for r in rows}, model, evidence_of(rows))
        for task_id, rows in sorted(sub.outputs.items())
    ]


def read_trec_rag_run(
    path: str | os.PathLike[str], task: Task, *, truncate: bool = True, strict: bool = False
) -> list[TrecRagRun]:
    """A TREC RAG run file's runs (one per run id), checked under the task's track year
    where it has one (trec-rag24 / trec-rag25)."""
    from benchmark.generation.trec_rag_run import TASK_YEARS
    from benchmark.generation.trec_rag_run import read_trec_rag_run as read

    return read(
        str(path), year=TASK_YEARS.get(task.id), topics=task.query_texts(), truncate=truncate, strict=strict
    )


def trec_rag_jobs(
    runs: list[TrecRagRun], task: Task, *, truncate: bool = True, own_corpus: bool = False
) -> list[Job]:
    """One job per run id: the run's own sentence split and citations kept, its references
    as the evidence each answer was given; truncated and whole answers are two entries."""
    from benchmark.generation.trec_rag_run import TASK_YEARS

    year = TASK_YEARS.get(task.id)
    corpus = task.card.corpus.label or ("user corpus" if own_corpus else "unknown")
    jobs = []
    for run in runs:
        model = ModelInfo(
            id=f"{run.team_id}/{run.run_id}" if run.team_id else run.run_id,
            # truncated and whole answers are two entries, never mixed in one result
            revision="run" if truncate or year is None else "run-untruncated",
            backend="trec-rag-run",
            generation=run.facts() | {"rules": f"TREC RAG {year}" if year else "format only"},
            rag=RAGSetting(
                retriever="run", k=max(1, min(run.depth, 100)), prompt="(the run's own)", corpus=corpus
            ),
        )
        jobs.append(
            Job(
                task,
                {q: t.answer for q, t in run.topics.items()},
                model,
                {q: t.references for q, t in run.topics.items()},
                sentences={q: t.sentences for q, t in run.topics.items()},
            )
        )
    return jobs
