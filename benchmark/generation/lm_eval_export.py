"""Export groundcover tasks as lm-evaluation-harness tasks.

Users who already run ``lm_eval`` (its launchers, its vLLM/SGLang/API backends, its
cluster scripts) should not have to adopt our harness to be scored.  Each task becomes
``groundcover_<task_id>.yaml`` (with RAG, ``groundcover_<task_id>__rag-bm25-k5.yaml``)
and a JSONL data file beside it holding one document per query: ``query_id``, the query
``text`` and the whole ``prompt`` — the card's instruction and the query, or, with RAG,
the instruction, the numbered retrieved passages and the query — exactly the text
``benchmark evaluate`` sends, so the two routes make the same requests.  RAG documents
also carry the setting and the passage ids, so ``benchmark score`` records citations.

The folder is self-contained: a small loader beside the YAML reads the data file from its
own folder, so it works from any working directory and on another machine.

By default only the queries the task's corpus can score are exported (the bundled
starter corpus covers 12 of the 200 Web Track topics); ``all_queries`` exports every
query.  lm-eval only generates (metric ``bypass``; scoring needs retrieval and judge
LLMs, which is ``benchmark score``'s job)::

    benchmark tasks export-lm-eval --out lm_tasks/ [--rag bm25]
    lm_eval --model hf --model_args pretrained=ORG/NAME --include_path lm_tasks/ \\
        --tasks groundcover_<id> --apply_chat_template --log_samples --output_path out/
    benchmark score --outputs out/ORG__NAME/samples_groundcover_<id>_*.jsonl --tasks <id>
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
