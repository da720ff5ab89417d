"""What a scoring run gives back, computed from the result files a command-line run writes,
so a notebook and ``benchmark leaderboard`` read the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from benchmark.core.errors import IncompleteResults
from benchmark.core.results import TaskResult, read_result, read_traces

if TYPE_CHECKING:
    from benchmark.board.leaderboard import Leaderboard


@dataclass
class Results:
    """One :func:`benchmark.score` / :func:`benchmark.evaluate` call's results, in scoring order."""

    results: list[TaskResult]
    #: where each result was written (``None`` for results held only in memory)
    paths: Sequence[Path | None] = field(default_factory=list)
    #: (family, task, model) combinations not scored, and why (attribution on closed-book answers)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.paths:
            self.paths = [None] * len(self.results)

    @classmethod
    def load(cls, *paths: Path | str) -> Results:
        """Results from result files (``*.json``) or folders holding them, e.g. a results dir."""
        files = [f for p in map(Path, paths) for f in (sorted(p.rglob("*.json")) if p.is_dir() else [p])]
        files = [f for f in files if not f.name.endswith(".traces.jsonl")]
        return cls([read_result(f) for f in files], paths=files)

    def __iter__(self) -> Iterator[TaskResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    @property
    def families(self) -> list[str]:
        return list(dict.fromkeys(r.metric_family for r in self.results))

    def __getitem__(self, family: str) -> list[TaskResult]:
        """The results of one metric family."""
        found = [r for r in self.results if r.metric_family == family]
        if not found:
            raise KeyError(f"no results of family {family!r}; these have {self.families}")
        return found

    def scores(self) -> pd.DataFrame:
        """One row per (model, task, family, score): the value, its interval, ``n`` (failed queries
        left out, counted in ``failed``) and whether the family ranks by it.  A score withheld (its
        judge failed past ``max_failure_rate``) has no value here, and ``withheld`` says why."""
        rows = [
            {
                "model": r.model.label,
                "task": r.task.id,
                "family": r.metric_family,
                "score": key,
                "value": None if s.incomplete else s.value,
                "ci_low": None if s.incomplete else s.ci_low,
                "ci_high": None if s.incomplete else s.ci_high,
                "n": s.n,
                "failed": s.failed,
                "withheld": s.incomplete,
                "primary": key == r.primary,
                "judge_profile": r.profile_id,
            }
            for r in self.results
            for key, s in r.scores.items()
        ]
        return pd.DataFrame(rows)

    def to_pandas(self) -> pd.DataFrame:
        """One row per (model, task, family, query); a failed query has no score (NaN), never a 0."""
        rows = [
            {
                "model": r.model.label,
                "task": r.task.id,
                "family": r.metric_family,
                "query_id": q.query_id,
                **q.scores,
                "failed": q.failed,
                "failures": len(q.failures),
            }
            for r in self.results
            for q in r.per_query
        ]
        return pd.DataFrame(rows)

    def traces(self, family: str | None = None) -> list[dict[str, Any]]:
        """Every query's trace (what each judge was asked and answered), with ``family`` and ``task``."""
        out = []
        for r, path in zip(self.results, self.paths, strict=True):
            if path is None or (family is not None and r.metric_family != family):
                continue
            out += [{"family": r.metric_family, "task": r.task.id, **t} for t in read_traces(Path(path))]
        return out

    def failures(self) -> pd.DataFrame:
        """One row per judge output that could not be used: the query, and ``stage: reason``."""
        rows = [
            {"model": r.model.label, "task": r.task.id, "family": r.metric_family, "query_id": q.query_id,
             "failure": f}
            for r in self.results
            for q in r.per_query
            for f in q.failures
        ]  # fmt: skip
        return pd.DataFrame(rows, columns=["model", "task", "family", "query_id", "failure"])

    @property
    def complete(self) -> bool:
        """No ranked score withheld (``raise_incomplete=False`` returns incomplete results)."""
        return not self.incomplete

    @property
    def incomplete(self) -> list[tuple[str, list[str]]]:
        """(result, reasons) for each result the judge left incomplete (kept off boards)."""
        return [
            (str(p) if p is not None else f"{r.model.label} on {r.task.id} ({r.metric_family})", r.incomplete)
            for r, p in zip(self.results, self.paths, strict=True)
            if r.incomplete
        ]

    def raise_if_incomplete(self) -> None:
        """:class:`IncompleteResults` when a result is incomplete (the command line's exit 3)."""
        if self.incomplete:
            raise IncompleteResults(self.incomplete)

    def leaderboard(self, *others: Results | TaskResult) -> Leaderboard:
        """These results ranked with ``others`` as ``benchmark leaderboard`` ranks result files
        (only results of the same task, judge profile and settings share a board)."""
        from benchmark.board.leaderboard import from_results
        from benchmark.board.render import shown

        more = [r for other in others for r in (other.results if isinstance(other, Results) else [other])]
        return shown(from_results([*self.results, *more]))

    def judge_card_lines(self) -> list[str]:
        """The lines printed under each board: its judge card's lines, then the failure warnings."""
        from benchmark.board.trust import trust_text, trusts
        from benchmark.families import REGISTRY

        lb = self.leaderboard()
        out: list[str] = []
        for fid, table in lb.tables.items():
            if not table.empty and fid in REGISTRY:
                for t in trusts(REGISTRY[fid], table):
                    out += trust_text(t)
        return out

    def print(self, console: Any = None) -> None:
        """The scores as the command line prints them."""
        from benchmark.board.report import print_results

        print_results(self.results, console)
