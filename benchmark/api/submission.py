"""A submission folder, scored or planned the way the submission workflow does it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchmark.api.answers import submission_jobs
from benchmark.api.config import ScoringConfig
from benchmark.api.run import plan_all
from benchmark.board.submissions import ModelCard, Submission, build_submission, validate_submission
from benchmark.core.errors import InputError, Problem, printable
from benchmark.scoring.budget import LABELS, Budget, over_budget, parse_budget, plan_totals
from benchmark.scoring.dry_run import DryRun
from benchmark.scoring.options import RunOptions

__all__ = ["create_submission", "parse_budget", "plan_submission", "validate_submission", "within_budget"]


def plan_submission(sub: Submission, judge_profile: str) -> DryRun:
    """What scoring ``sub`` will ask as the workflow scores it (defaults, no checkpoints)."""
    with tempfile.TemporaryDirectory(prefix="groundcover-plan-") as results:
        return plan_all(
            submission_jobs(sub),
            ScoringConfig(judge_profile=judge_profile),
            RunOptions(results_dir=Path(results), progress=False),
        )


def within_budget(sub: Submission, budget: Budget, judge_profile: str) -> str:
    """What scoring ``sub`` plans, in words; an :class:`InputError` when over ``budget``."""
    totals = plan_totals(plan_submission(sub, judge_profile))
    if over := over_budget(totals, budget):
        then = f"(judge profile {judge_profile}); trim the answers or passages"
        raise InputError([Problem(printable(str(sub.path)), f"scoring it {why} {then}") for why in over])
    return ", ".join(f"{totals[name]:,} {label}" for name, label in LABELS.items())


def create_submission(
    outputs: list[Path],
    submissions_dir: Path,
    *,
    card: dict[str, Any],
    overwrite: bool = False,
    relabelled: dict[str, int] | None = None,
) -> tuple[Path, ModelCard, list[Path]]:
    """A submission folder from outputs files and the card's fields (settings: the first file's)."""
    from pydantic import ValidationError

    from benchmark.answers.outputs import read_outputs
    from benchmark.core.paths import check_writable

    check_writable(submissions_dir, "--submissions-dir")
    files = [f for item in outputs for f in (sorted(item.glob("*.jsonl")) if item.is_dir() else [item])]
    first = read_outputs(files[0]) if files else []
    generation = {"backend": first[0].backend, **first[0].generation} if first else {}
    try:
        model_card = ModelCard(
            **card,
            generation={k: v for k, v in generation.items() if v is not None},
            rag=first[0].rag if first else None,
        )
    except ValidationError as exc:
        raise InputError(
            [
                Problem("command line", e["msg"], field="--" + ".".join(map(str, e["loc"])))
                for e in exc.errors()
            ]
        ) from exc
    dest = build_submission(files, model_card, submissions_dir, overwrite=overwrite, relabelled=relabelled)
    return dest, model_card, files
