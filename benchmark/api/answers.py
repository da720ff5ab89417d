"""Answers, however they are held, as scoring jobs: every format is read by
:func:`benchmark.answers.read_answers` (one place per format, one check for all).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from benchmark.answers import Answers, AnswerSet, from_rows, read_answers
from benchmark.answers.trec_rag_run import WORD_LIMIT
from benchmark.core.results import ModelInfo
from benchmark.scoring.run import Job
from benchmark.tasks import Task, load_task

if TYPE_CHECKING:
    from benchmark.board.submissions import Submission

#: ``read_answers`` and the TREC RAG word limit are re-exported for the command line, which
#: reaches the formats through the API only
__all__ = [
    "WORD_LIMIT",
    "Answers",
    "answer_jobs",
    "answers_job",
    "job_of",
    "read_answers",
    "resolve_task",
    "submission_jobs",
]


def resolve_task(task: str | os.PathLike[str] | Task) -> Task:
    """A task from its id, its folder (or card) path, or a :class:`Task` as it is."""
    return task if isinstance(task, Task) else load_task(task)


def job_of(found: AnswerSet) -> Job:
    """An answer set as the job that scores it."""
    return Job(found.task, found.answers, found.model, found.evidence, sentences=found.sentences)


def answer_jobs(sets: list[AnswerSet]) -> list[Job]:
    return [job_of(s) for s in sets]


def answers_job(answers: Answers, task: Task, *, model_name: str | None = None) -> Job:
    """One job from an outputs file or records (``query_id``, ``answer``, ``model`` or ``model_name``)."""
    (found,) = read_answers(answers, task, model_name=model_name)
    return job_of(found)


def submission_jobs(sub: Submission) -> list[Job]:
    """A submission's jobs, one per task: what ``score --submission`` scores, ``validate --budget`` plans."""
    model = ModelInfo(
        id=sub.card.model_id,
        revision=sub.card.revision,
        backend="submission",
        generation=sub.card.generation,
        rag=sub.card.rag,
    )
    return [
        job_of(from_rows(rows, load_task(task_id), model)) for task_id, rows in sorted(sub.outputs.items())
    ]
