"""Ranked tables from ``results/``.

Rules, each of which is a way leaderboards mislead when broken:

* **Like with like.**  A *board* is one (metric family, task, task version, task data,
  knowledge corpus, judge profile).  Only results on the same board are ranked
  together; the same model judged by two profiles appears on two boards.
* **Missing is missing.**  A model without a result on a board has no rank there, and
  has no overall rank until it has a result on every board of its profile; it is never
  averaged in as zero.
* **Ties by confidence.**  Ranks come from the bootstrap CIs in the result files, as on
  Chatbot Arena: a model's rank is one plus the number of models whose CI lies entirely
  above its own, so models whose difference is not significant share a rank.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark.results import TaskResult, read_result
from benchmark.submissions import ModelCard, load_model_cards

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Family:
    """A metric family: its display name, the metric ranks come from, and column order."""

    id: str
    title: str
    primary: str
    columns: tuple[tuple[str, str], ...]


FAMILIES: dict[str, Family] = {
    f.id: f
    for f in (
        Family(
            "icat",
            "ICAT",
            "icat_s",
            (
                ("s_fact", "S_fact"),
                ("s_coverage_m", "S_cov-M"),
                ("icat_m", "ICAT-M"),
                ("s_coverage_s", "S_cov-S"),
                ("icat_s", "ICAT-S"),
                ("s_coverage_a", "S_cov-A"),
                ("icat_a", "ICAT-A"),
            ),
        ),
        Family("exam", "EXAM / n-EXAM", "n_exam", (("exam", "EXAM"), ("n_exam", "n-EXAM"))),
        Family(
            "arguments",
            "Argument quality",
            "quality_mean",
            (
                ("quality_mean", "quality (mean of 15)"),
                ("groundedness", "groundedness"),
                ("context_relevance", "context relevance"),
            ),
        ),
        Family("subquestions", "Sub-question coverage", "subq_coverage", (("subq_coverage", "coverage"),)),
        Family("decomposition", "DecompScore", "decompscore", (("decompscore", "DecompScore"),)),
    )
}


@dataclass
class Entry:
    """One result file, flattened for tables."""

    path: Path
    result: TaskResult
    card: ModelCard | None

    @property
    def model_label(self) -> str:
        rev = self.result.model.revision
        return self.result.model.id if rev in ("main", "", None) else f"{self.result.model.id}@{rev}"

    @property
    def board(self) -> str:
        r = self.result
        corpus = (r.task.corpus or "task")[:12]
        return f"{r.metric_family} · {r.task.id}@{r.task.version} · {r.profile_id} · corpus {corpus}"


@dataclass
class Leaderboard:
    entries: list[Entry]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    overall: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: list[str] = field(default_factory=list)

    @property
    def profiles(self) -> list[str]:
        return sorted({e.result.profile_id for e in self.entries})

    @property
    def tasks(self) -> list[str]:
        return sorted({e.result.task.id for e in self.entries})

    def entry(self, model_label: str, task: str, profile: str, family: str) -> Entry | None:
        for e in self.entries:
            r = e.result
            if (e.model_label, r.task.id, r.profile_id, r.metric_family) == (
                model_label,
                task,
                profile,
                family,
            ):
                return e
        return None


# ---------------------------------------------------------------------------------
# Pure ranking
# ---------------------------------------------------------------------------------


def shared_ranks(values: pd.Series, lows: pd.Series, highs: pd.Series) -> pd.Series:
    """Rank = 1 + number of others whose CI lies wholly above this one's (higher is better).

    Without a CI (a single query) a score is its own interval.  Missing values get no
    rank (``<NA>``).
    """
    v = values.astype(float).to_numpy()
    lo = np.where(lows.isna(), v, lows.astype(float))
    hi = np.where(highs.isna(), v, highs.astype(float))
    ranks: list[int | None] = []
    for i in range(len(v)):
        if np.isnan(v[i]):
            ranks.append(None)
            continue
        better = sum(1 for j in range(len(v)) if j != i and not np.isnan(v[j]) and lo[j] > hi[i])
        ranks.append(1 + better)
    return pd.Series(ranks, index=values.index, dtype="Int64")


def family_table(entries: list[Entry], family: Family) -> pd.DataFrame:
    """One row per (board, model): scores, CIs, shared rank on the family's primary metric."""
    rows = []
    for e in entries:
        r = e.result
        if r.metric_family != family.id:
            continue
        row: dict[str, object] = {
            "board": e.board,
            "task": r.task.id,
            "task_version": r.task.version,
            "judge_profile": r.profile_id,
            "model": e.model_label,
            "open_weights": None if e.card is None else e.card.open_weights,
            "parameters": None if e.card is None else e.card.parameters,
            "queries": sum(1 for q in r.per_query if any(v is not None for v in q.scores.values())),
            "failures": int(sum(r.failures.values())),
        }
        keys = [k for k, _ in family.columns] + sorted(set(r.scores) - {k for k, _ in family.columns})
        for k in keys:
            s = r.scores.get(k)
            row[k] = None if s is None else s.value
            row[f"{k}_ci_low"] = None if s is None else s.ci_low
            row[f"{k}_ci_high"] = None if s is None else s.ci_high
        rows.append(row)
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame(rows)
    primary = family.primary if family.primary in df.columns else family.columns[0][0]
    if primary not in df.columns:
        primary = next(c for c in df.columns if c.endswith("_ci_low")).removesuffix("_ci_low")
    df["rank"] = pd.Series(pd.NA, index=df.index, dtype="Int64")
    for _, idx in df.groupby("board").groups.items():
        sub = df.loc[idx]
        df.loc[idx, "rank"] = shared_ranks(sub[primary], sub[f"{primary}_ci_low"], sub[f"{primary}_ci_high"])
    df["ranked_by"] = primary
    df = df.sort_values(["board", primary, "model"], ascending=[True, False, True], na_position="last")
    return df.reset_index(drop=True)


def overall_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per judge profile: each model's rank on every board, mean rank, overall rank.

    A model missing from any board of its profile gets no overall rank and its missing
    boards are listed.
    """
    long = (
        pd.concat(
            [t[["judge_profile", "board", "model", "rank"]] for t in tables.values() if not t.empty],
            ignore_index=True,
        )
        if any(not t.empty for t in tables.values())
        else pd.DataFrame()
    )
    if long.empty:
        return pd.DataFrame()
    out = []
    for profile, sub in long.groupby("judge_profile"):
        boards = sorted(sub["board"].unique())
        wide = sub.pivot_table(index="model", columns="board", values="rank", aggfunc="first")
        wide = wide.reindex(columns=boards)
        for model, ranks in wide.iterrows():
            missing = [b for b in boards if pd.isna(ranks[b])]
            out.append(
                {
                    "judge_profile": profile,
                    "model": model,
                    "boards": len(boards) - len(missing),
                    "of_boards": len(boards),
                    "mean_rank": None if missing else float(ranks.astype(float).mean()),
                    "missing": "; ".join(missing),
                }
            )
    df = pd.DataFrame(out)
    df["overall_rank"] = pd.Series(pd.NA, index=df.index, dtype="Int64")
    for _, idx in df.groupby("judge_profile").groups.items():
        sub = df.loc[idx]
        complete = sub["mean_rank"].notna()
        # lower mean rank is better; equal mean ranks share a rank (min method)
        df.loc[sub.index[complete], "overall_rank"] = (
            sub.loc[complete, "mean_rank"].rank(method="min").astype("Int64").to_numpy()
        )
    return df.sort_values(["judge_profile", "overall_rank", "model"], na_position="last").reset_index(
        drop=True
    )


# ---------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------


def load_entries(
    results_dir: Path | str, submissions_dir: Path | str | None = None
) -> tuple[list[Entry], list[str]]:
    """Every valid result file under ``results_dir``; unreadable ones are listed, not ranked."""
    cards = load_model_cards(submissions_dir) if submissions_dir else {}
    entries: list[Entry] = []
    skipped: list[str] = []
    root = Path(results_dir)
    if not root.is_dir():
        return entries, skipped
    for path in sorted(root.rglob("*.json")):
        if path.is_symlink():
            skipped.append(f"{path}: symbolic link")
            continue
        try:
            result = read_result(path)
        except ValueError as exc:
            skipped.append(f"{path}: not a valid result file ({str(exc).splitlines()[0]})")
            continue
        entries.append(Entry(path=path, result=result, card=cards.get(result.model.id)))
    # newest file wins when the same model, revision and board was scored twice
    latest: dict[tuple[str, str], Entry] = {}
    for e in sorted(entries, key=lambda e: e.result.run.finished):
        latest[(e.model_label, e.board)] = e
    return list(latest.values()), skipped


def build_leaderboard(results_dir: Path | str, submissions_dir: Path | str | None = None) -> Leaderboard:
    entries, skipped = load_entries(results_dir, submissions_dir)
    for s in skipped:
        log.warning("skipped %s", s)
    tables = {fid: family_table(entries, fam) for fid, fam in FAMILIES.items()}
    return Leaderboard(entries=entries, tables=tables, overall=overall_table(tables), skipped=skipped)
