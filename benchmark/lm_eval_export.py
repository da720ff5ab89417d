"""Export groundcover tasks as lm-evaluation-harness tasks.

Each task becomes ``groundcover_<task_id>.yaml``: a ``generate_until`` task over the
task's ``queries`` parquet, with the card's instruction as the prompt.  lm-eval only
generates (metric ``bypass``); ``lm_eval --include_path DIR --tasks groundcover_<id>
--log_samples --output_path OUT`` writes sample logs that ``benchmark score`` reads.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from benchmark.tasks import list_tasks, load_task


def task_config(task_id: str) -> dict:
    task = load_task(task_id)
    queries = (task.root / task.card.data.path / task.card.data.tables["queries"]).resolve()
    if task.card.data.kind != "local":
        raise ValueError(f"{task_id}: only local tasks can be exported (Hub tasks: point dataset_path at the repo)")
    instruction = task.card.instruction.replace("{", "{{ '{' }}").replace("}", "{{ '}' }}")
    return {
        "task": f"groundcover_{task.id}",
        "tag": ["groundcover"],
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {"test": str(queries)}},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": instruction + "\n\n{{text}}",
        "doc_to_target": "",
        "generation_kwargs": {"until": [], "max_gen_toks": 512, "do_sample": False, "temperature": 0.0},
        "metric_list": [{"metric": "bypass"}],
        "metadata": {"version": task.card.version, "groundcover_task": task.id},
    }


def export_tasks(out_dir: str | Path, task_ids: list[str] | None = None) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ids = task_ids or [c.id for c in list_tasks()]
    written = []
    for tid in ids:
        path = out / f"groundcover_{tid}.yaml"
        path.write_text(yaml.safe_dump(task_config(tid), sort_keys=False), encoding="utf-8")
        written.append(path)
    return written
