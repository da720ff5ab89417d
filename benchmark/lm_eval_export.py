"""Export groundcover tasks as lm-evaluation-harness tasks.

Users who already run ``lm_eval`` (its launchers, its vLLM/SGLang/API backends, its
cluster scripts) should not have to adopt our harness to be scored.  Each task becomes
``groundcover_<task_id>.yaml``: a ``generate_until`` task over the task's ``queries``
parquet whose prompt is the card's instruction and the query — the same prompt and
the same default generation settings as ``benchmark evaluate``, so the two routes give
the same answers.  lm-eval only generates (metric ``bypass``; scoring needs retrieval
and judge LLMs, which is ``benchmark score``'s job)::

    benchmark tasks export-lm-eval --out lm_tasks/
    lm_eval --model hf --model_args pretrained=ORG/NAME --include_path lm_tasks/ \\
        --tasks groundcover_<id> --apply_chat_template --log_samples --output_path out/
    benchmark score --outputs out/ORG__NAME/samples_groundcover_<id>_*.jsonl --tasks <id>
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from benchmark.harness import DEFAULT_GEN_KWARGS
from benchmark.tasks import Task, list_tasks, load_task


def _jinja_literal(text: str) -> str:
    """Escape braces so an instruction containing ``{`` is not read as a template."""
    return text.replace("{", "{{ '{' }}").replace("}", "{{ '}' }}")


def task_config(task: str | Path | Task) -> dict[str, Any]:
    """The lm-eval YAML (as a dict) for one task, given by id, folder or :class:`Task`."""
    task = task if isinstance(task, Task) else load_task(task)
    if task.card.data.kind != "local":
        raise ValueError(
            f"{task.id}: only local tasks can be exported (Hub tasks: point dataset_path at the repo)"
        )
    queries = (task.root / task.card.data.path / task.card.data.tables["queries"]).resolve()
    return {
        "task": f"groundcover_{task.id}",
        "tag": ["groundcover"],
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {"test": str(queries)}},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": _jinja_literal(task.card.instruction) + "\n\n{{text}}",
        "doc_to_target": "",
        "generation_kwargs": dict(DEFAULT_GEN_KWARGS),
        "metric_list": [{"metric": "bypass"}],
        "metadata": {"version": task.card.version, "groundcover_task": task.id},
    }


def export_tasks(out_dir: str | Path, tasks: list[str | Path | Task] | None = None) -> list[Path]:
    """Write one YAML per task (default: every task) into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen: list[str | Path | Task] = list(tasks) if tasks else [c.id for c in list_tasks()]
    written = []
    for item in chosen:
        config = task_config(item)
        path = out / f"{config['task']}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
        written.append(path)
    return written
