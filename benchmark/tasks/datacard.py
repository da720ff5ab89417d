"""The task folder's README.md: a Hugging Face dataset card generated from the task card."""

from __future__ import annotations

import yaml

from benchmark.tasks.card import TaskCard
from benchmark.tasks.tables import schemas


def dataset_card(card: TaskCard) -> str:
    """The task folder's ``README.md``: a Hugging Face dataset card whose YAML header names one
    config per table, so ``datasets.load_dataset("tasks/<id>", "<table>")`` (or the same call on
    the Hub id) loads any table.  The task card stays the source of truth; this is derived
    from it (``benchmark tasks card <id> --write``), and a test keeps the two in step."""
    header = {
        "pretty_name": card.name,
        "license": "other",
        "license_name": "see-task-card",
        "language": ["en"],
        "task_categories": ["question-answering", "text-retrieval"],
        "tags": ["groundcover", *card.tags],
        "configs": [
            {
                "config_name": name,
                "data_files": [
                    {
                        "split": card.splits[0] if name == "queries" else "test",
                        "path": f"{card.data.path}/{file}",
                    }
                ],
                **({"default": True} if name == "queries" else {}),
            }
            for name, file in card.data.tables.items()
        ]
        if card.data.kind == "local"
        else [],
    }
    found = schemas(card.data.tables, card.metrics)
    tables = "\n".join(f"* `{n}` — {found[n].description}" for n in card.data.tables)
    return (
        "---\n"
        + yaml.safe_dump(header, sort_keys=False, allow_unicode=True)
        + "---\n\n"
        + f"# {card.name}\n\n{card.description}\n\n"
        + f"groundcover task `{card.id}`, version {card.version}; metric families: {', '.join(card.metrics)}. "
        + "Provenance, checksums and the instruction given to models are in `task.yaml`.\n\n"
        + f"## Tables\n\n{tables}\n\n"
        + "```python\nimport datasets\n\n"
        + f'queries = datasets.load_dataset("tasks/{card.id}", "queries", split="test")\n```\n\n'
        + f"## Source and licence\n\n{card.source.name}"
        + (f" ({card.source.url})" if card.source.url else "")
        + "\n\n"
        + f"{card.license}\n"
        + (f"\n## Citation\n\n```bibtex\n{card.citation.strip()}\n```\n" if card.citation.strip() else "")
    )
