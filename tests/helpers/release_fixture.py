"""Releases of the board of record cut from result files built through the real schema.

:func:`scored` writes what the scoring step hands to a release (a submission folder and
its result, judged by ``profile``); :func:`cut` releases them into a dataset folder with
:func:`benchmark.board.releases.cut`; :func:`canary_dataset` makes a release and a
candidate whose judge reverses its order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from benchmark.board import releases
from benchmark.core.results import result_path, write_result
from tests.helpers.results_fixture import DIFFICULTY, TASK, make_result

ENDPOINT = "http://10.0.0.7:8000/v1"
JUDGE = {"name": "record-x", "version": "1", "offline": False, "llm": {"args": {"base_url": ENDPOINT}}}
CANARY = {"name": "canary-x", "version": "1", "offline": False}
VALUES = {
    "acme/strong": [min(1.0, d + 0.3) for d in DIFFICULTY],
    "acme/mid": list(DIFFICULTY),
    "beta/weak": [max(0.0, d - 0.15) for d in DIFFICULTY],
}


def scored(
    root: Path,
    model: str,
    values: list[float],
    profile: dict[str, Any],
    revision: str = "main",
    tree: str | None = None,
    **kw: object,
) -> releases.Scored:
    """What the scoring step hands to a release: the submission folder and its result."""
    org, name = model.split("/")
    folder = root / "submissions" / f"{org}__{name}"
    folder.mkdir(parents=True, exist_ok=True)
    card = {"name": name, "org": org, "revision": revision, "license": "mit", "parameters": 1000,
            "open_weights": True, "contact": "t@example.org", "generation": {"backend": "test"}}  # fmt: skip
    (folder / "model.yaml").write_text(yaml.safe_dump(card))
    (folder / f"{TASK}.jsonl").write_text(f'{{"answers of": "{folder.name}", "first": "{values[0]}"}}\n')
    result = make_result(model, values, profile)
    result = result.model_copy(update={"model": result.model.model_copy(update={"revision": revision}), **kw})
    profile_id = f"{profile['name']}@{profile['version']}"
    write_result(result, result_path(root / "results", result.model, profile_id, TASK, "icat"))
    # the folder's git tree: other answers, another tree (a canary keeps the entry's)
    return releases.Scored(
        folder=folder, source=f"test {model}", tree=tree or f"{folder.name}-{revision}-{values[0]}"
    )


def cut(dataset: Path, work: Path, *items: releases.Scored, **kw: Any) -> releases.Manifest | None:
    profile = work / "profile.yaml"
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(f"name: record-x\nllm: {{args: {{base_url: {ENDPOINT}}}}}\n")
    args: dict[str, Any] = {"kind": "release", "judge": "record-x@1", "role": "judge of record", "source": "test",
                            "groundcover": None, "redact": [ENDPOINT], **kw}  # fmt: skip
    return releases.cut(dataset, results=work / "results", scored=list(items), profile_file=profile, **args)


def canary_dataset(root: Path) -> Path:
    """Release 1 under record-x@1, candidate 2 under canary-x@1 in the reverse order."""
    dataset, job, canary = root / "dataset", root / "job", root / "canary"
    values = {**VALUES, "gamma/x": [max(0.0, d - 0.05) for d in DIFFICULTY]}
    cut(dataset, job, *(scored(job, m, v, JUDGE) for m, v in values.items()))
    order = sorted(values, key=lambda m: sum(values[m]))
    swapped = {m: values[o] for m, o in zip(order, reversed(order), strict=True)}
    items = [
        scored(canary, m, v, CANARY, tree=f"{m.replace('/', '__')}-main-{values[m][0]}")
        for m, v in swapped.items()
    ]
    cut(dataset, canary, *items, kind="candidate", judge="canary-x@1", role="canary", compares_to=1)
    return dataset
