"""Export groundcover tasks as lm-evaluation-harness tasks (docs/evaluating.md).

Each task becomes ``groundcover_<task_id>[__<rag setting>].yaml`` and a JSONL data file of one
document per query whose ``prompt`` is exactly the text ``benchmark evaluate`` sends (with RAG,
the setting and passage ids too, so ``benchmark score`` records citations).  A loader beside
the YAML reads the data from its own folder; lm-eval only generates (metric ``bypass``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from benchmark.generation.model_args import DEFAULT_GEN_KWARGS
from benchmark.generation.prompting import build_messages
from benchmark.generation.rag import RAGContext
from benchmark.tasks import Task, load_task


def export_name(task: Task, rag: RAGContext | None) -> str:
    return f"groundcover_{task.id}" + (f"__{rag.setting.slug}" if rag else "")


def documents(task: Task, query_ids: Sequence[str], rag: RAGContext | None) -> list[dict[str, Any]]:
    """One lm-eval document per query, its ``prompt`` built by the harness's own function."""
    texts = task.table("queries").set_index("query_id")["text"].astype(str)
    docs = []
    for q in query_ids:
        (message,) = build_messages(task, texts[q], q, rag)
        doc: dict[str, Any] = {"query_id": q, "text": texts[q], "prompt": message["content"]}
        if rag is not None:
            doc["rag"] = rag.setting.model_dump(mode="json")
            doc["passages"] = rag.passage_ids(q)
        docs.append(doc)
    return docs


LOADER = "groundcover_data.py"
LOADER_SOURCE = '''"""Loads the documents of groundcover tasks exported for lm-eval (written by
`benchmark tasks export-lm-eval`).  lm-eval finds this file beside the task YAML, and it
reads the data file from its own folder, so the export works from any working directory
and can be copied to another machine as a whole folder."""

import json
from pathlib import Path

import datasets

HERE = Path(__file__).resolve().parent


def load(data_file, **_):
    lines = (HERE / data_file).read_text(encoding="utf-8").split("\\n")
    return datasets.DatasetDict({"test": datasets.Dataset.from_list([json.loads(x) for x in lines if x])})
'''


def task_config(task: Task, data_file: Path, n_queries: int, rag: RAGContext | None = None) -> dict[str, Any]:
    """The lm-eval YAML (as a dict) for one exported task; the data file is named relative to
    the YAML's folder and read by the loader beside it (``custom_dataset``)."""
    return {
        "task": export_name(task, rag),
        "tag": ["groundcover"],
        "dataset_path": "json",
        "dataset_kwargs": {"data_file": data_file.name},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": "prompt",  # a column: the text is used as it is, never read as a template
        "doc_to_target": "",
        "generation_kwargs": dict(DEFAULT_GEN_KWARGS),
        "metric_list": [{"metric": "bypass"}],
        "metadata": {
            "version": task.card.version,
            "groundcover_task": task.id,
            "setting": "closed-book" if rag is None else rag.setting.slug,
            "queries": n_queries,
        },
    }


def export_task(
    task: Task | str, out_dir: Path, query_ids: Sequence[str], rag: RAGContext | None = None
) -> Path:
    """Write the data file and the YAML of one task; returns the YAML's path."""
    task = task if isinstance(task, Task) else load_task(task)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = export_name(task, rag)
    data_file = out_dir / f"{name}.jsonl"
    with open(data_file, "w", encoding="utf-8") as f:
        for doc in documents(task, query_ids, rag):
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    path = out_dir / f"{name}.yaml"
    (out_dir / LOADER).write_text(LOADER_SOURCE, encoding="utf-8")
    text = yaml.safe_dump(
        task_config(task, data_file, len(query_ids), rag), sort_keys=False, allow_unicode=True
    )
    path.write_text(text + f"custom_dataset: !function {Path(LOADER).stem}.load\n", encoding="utf-8")
    return path
