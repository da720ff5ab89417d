"""Tasks: a task card (``tasks/<id>/task.yaml``) plus data tables as parquet.

A task bundles what the scoring stack needs to judge answers to a set of queries:
the queries, their aspects (subtopics), relevance judgements (document- and
aspect-level), a knowledge corpus, and — for the metrics of later papers — exam
questions, gold articles, sub-questions and stances.  Tables are Hugging Face
``datasets`` loaded from local parquet files or from a Hub dataset repository pinned
to a revision, and are checked for schema and referential integrity before any model
sees them: a broken table fails with the file, row and field at fault.

The card is the single source of truth for what a task *is*; its ``version`` and the
data checksum/revision are written into every result so that the leaderboard only
ranks results computed on identical data.
"""

from benchmark.tasks.card import CorpusSpec, DataSource, Provenance, Source, TaskCard, load_card, sha256_file
from benchmark.tasks.datacard import dataset_card
from benchmark.tasks.loader import Task, add_table, list_tasks, load_task, task_dirs
from benchmark.tasks.tables import Column, TableSchema, check_table

__all__ = [
    "Column",
    "CorpusSpec",
    "DataSource",
    "Provenance",
    "Source",
    "TableSchema",
    "Task",
    "TaskCard",
    "add_table",
    "check_table",
    "dataset_card",
    "list_tasks",
    "load_card",
    "load_task",
    "sha256_file",
    "task_dirs",
]
