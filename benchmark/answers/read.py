"""The one way in: any answers groundcover accepts (an outputs JSONL or lm-eval samples file,
a TREC RAG run file, a DataFrame, a ``datasets.Dataset`` or dicts), read into answer sets, one
per model and setting, every input checked under the rule book of :mod:`benchmark.answers.rules`.
A submission's validator reads its rows itself; :func:`from_rows` turns them into a set.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmark.answers.citations import CitedSentence
from benchmark.answers.outputs import entries, evidence_of, read_outputs
from benchmark.answers.records import records_of, rows_from_records
from benchmark.answers.row import OutputRow
from benchmark.answers.trec_rag_run import TASK_YEARS, TrecRagRun, read_trec_rag_run
from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.results import ModelInfo, RAGSetting
from benchmark.core.untrusted import name_problems
from benchmark.tasks import Task

#: what :func:`read_answers` accepts: a path, a DataFrame, a ``datasets.Dataset``, dicts
Answers = str | os.PathLike[str] | Iterable[Mapping[str, Any]] | Any


@dataclass
class AnswerSet:
    """One model's answers (by query id) to one task in one setting: what is scored as one
    entry, with the passage ids each RAG answer was given (``None``: closed-book) and, from a
    TREC RAG run, its sentences as the run split them and the run itself."""

    task: Task
    answers: dict[str, str]
    model: ModelInfo
    evidence: dict[str, list[str]] | None = None
    sentences: dict[str, list[CitedSentence]] | None = None
    run: TrecRagRun | None = None


def read_answers(
    answers: Answers,
    task: Task,
    *,
    model_name: str | None = None,
    trec_rag_run: bool = False,
    truncate: bool = True,
    strict: bool = False,
    own_corpus: bool = False,
) -> list[AnswerSet]:
    """``answers`` read and checked against ``task``.  ``model_name`` names the model where the
    rows do not; ``truncate`` and ``strict`` are the TREC RAG reader's; ``own_corpus`` says a
    run's references come from a corpus the user gave."""
    if trec_rag_run:
        if not isinstance(answers, str | os.PathLike):
            raise InputError.at(
                "answers", "trec_rag_run=True reads a run file: give its path", field="answers"
            )
        runs = read_trec_rag_run(
            str(answers),
            year=TASK_YEARS.get(task.id),
            topics=task.query_texts(),
            truncate=truncate,
            strict=strict,
        )
        return trec_rag_sets(runs, task, truncate=truncate, own_corpus=own_corpus)
    records = records_of(answers)
    if records is None:
        rows = read_outputs(answers, model_name=model_name, task=task)
        source = rel(answers)
    else:
        source = "answers"
        rows = rows_from_records(records, source=source, model_name=model_name, task=task)
    return [AnswerSet(task, found, model, evidence) for found, model, evidence in entries(rows, source)]


def from_rows(rows: list[OutputRow], task: Task, model: ModelInfo) -> AnswerSet:
    """Rows already read and checked (a submission's, by its validator) as one set."""
    return AnswerSet(task, {r.query_id: r.answer for r in rows}, model, evidence_of(rows))


def trec_rag_sets(
    runs: list[TrecRagRun], task: Task, *, truncate: bool = True, own_corpus: bool = False
) -> list[AnswerSet]:
    """One set per run id, its references the evidence each answer was given."""
    year = TASK_YEARS.get(task.id)
    corpus = task.card.corpus.label or ("user corpus" if own_corpus else "unknown")
    # a run's name is a model's name on the board: the name rule every door applies
    named = [
        Problem(run.path, f"run id {name!r}: {why}", field="run_id")
        for run in runs
        for name in (run.team_id, run.run_id)
        if name and (why := name_problems(name))
    ]
    if named:
        raise InputError(named)
    sets = []
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
        sets.append(
            AnswerSet(
                task,
                {q: t.answer for q, t in run.topics.items()},
                model,
                {q: t.references for q, t in run.topics.items()},
                sentences={q: t.sentences for q, t in run.topics.items()},
                run=run,
            )
        )
    return sets
