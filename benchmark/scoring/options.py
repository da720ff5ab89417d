"""How a scoring run runs: the options every scoring command and :func:`benchmark.score` share,
their flags generated from the fields (:mod:`benchmark.core.settings`).  None changes a score;
``seed`` and ``bootstrap_resamples`` change the intervals, which results record.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator

from benchmark.core import stats
from benchmark.core.results import MAX_FAILURE_RATE
from benchmark.core.settings import Settings, option


class Options(Settings):
    """Options with generated flags that are not a family's settings (never part of a board key)."""


class RunOptions(Options):
    """The runner's options: how a run runs, not what it scores."""

    seed: int = option(0, "seed of the bootstrap intervals")
    query_batch: int = option(4, "queries scored together so models see batches")
    progress: bool = option(True, "show progress bars")
    max_failure_rate: float = option(
        MAX_FAILURE_RATE,
        "the share of queries, per score, on which the judge may fail (unreached, or a reply that could not "
        "be used) before the score is withheld: never shown as a number or ranked; when it is the ranked "
        "score the result is incomplete (written, kept off boards, exit status 3)",
    )
    retry_failed: bool = option(
        False,
        "ask the judge again, bypassing its cached replies, for exactly the queries it failed on (replies "
        "that could not be used); unreached queries are asked again by any re-run",
    )
    results_dir: Path = option(Path("results"), "where result files go")
    human_labels: Path | None = option(
        None,
        "a file of human labels of some of the units the judge labelled (CSV or JSON lines: query_id, "
        "unit_id, label; docs/human-labels.md): each score that is a mean of unit labels gets a corrected "
        "mean and interval beside the judge's (prediction-powered inference). The labelled units must be a "
        "random sample",
    )
    judge_repeats: int = option(
        1,
        "ask a sampled LLM judge each judgement this many times (seeded, each repeat cached apart); "
        "intervals and ranks then include the judge's own noise, and the board reports its share",
    )
    bootstrap_resamples: int = option(stats.BOOTSTRAP_RESAMPLES, "bootstrap resamples", cli=False)
    command: str | None = option(None, "the command recorded in results", cli=False)

    @field_validator("query_batch", "judge_repeats")
    @classmethod
    def _batch(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("max_failure_rate")
    @classmethod
    def _share(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("must be a share between 0 and 1, e.g. 0.05")
        return value
