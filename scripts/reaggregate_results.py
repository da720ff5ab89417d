"""Recompute the aggregate of result files from their traces, calling no model.

When the aggregate gains a field (a score's ``failed`` count, say), the published results
are brought up to date with this script instead of being re-scored: every per-query
number comes from the traces as they are, so no published score can move.  The run record
(versions, command, timings) is kept as it was.

    .venv/bin/python scripts/reaggregate_results.py leaderboard/results
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmark.core.results import read_result, traces_path, write_result
from benchmark.families import REGISTRY
from benchmark.families.decompscore.texts import load_texts_task
from benchmark.scoring.runner import RunOptions, aggregate
from benchmark.tasks import list_tasks, load_task


def reaggregate(path: Path, root: Path) -> bool:
    """Rewrite ``path``'s aggregate from its traces; ``True`` when anything changed."""
    result = read_result(path)
    family = REGISTRY[result.metric_family]
    lines = traces_path(path).read_text(encoding="utf-8").split("\n")
    traces = [family.trace_model.model_validate_json(line) for line in lines if line]
    known = {c.id for c in list_tasks()}
    texts = path.parents[len(path.relative_to(root).parts) - 1].parent / "texts"
    task = load_task(result.task.id) if result.task.id in known else load_texts_task(result.task.id, texts)
    again = aggregate(
        family,
        task,
        traces,
        result.model,
        result.judge_profile,
        result.task.corpus,
        family.settings_model.model_validate(result.settings),
        RunOptions(
            seed=result.statistics.seed,
            bootstrap_resamples=result.statistics.bootstrap_resamples,
            **(
                {"max_failure_rate": result.run.max_failure_rate}
                if result.run.max_failure_rate is not None
                else {}
            ),
        ),
        result.notes,
    )
    updated = result.model_copy(
        update={
            "scores": again.scores,
            "per_query": again.per_query,
            "incomplete": again.incomplete,
        }
    )
    if updated == result:
        return False
    write_result(updated, path)
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path, help="a results folder (searched recursively) or one result file")
    args = p.parse_args()
    files = [args.root] if args.root.is_file() else sorted(args.root.rglob("*.json"))
    root = args.root if args.root.is_dir() else args.root.parent
    changed = [f for f in files if reaggregate(f, root)]
    print(f"{len(changed)} of {len(files)} result files updated")


if __name__ == "__main__":
    main()
