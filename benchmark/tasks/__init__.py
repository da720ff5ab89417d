"""Tasks: a task card (``tasks/<id>/task.yaml``) plus data tables as parquet.

Tables are checked for schema and referential integrity before any model sees them; the
card's ``version`` and data checksum go into every result, so only results computed on
identical data are ranked together.
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
