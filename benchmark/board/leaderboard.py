"""Ranked tables from result files, for every registered metric family.

Only results on the same *board* (:meth:`~benchmark.core.results.TaskResult.board_key`) are
ranked together, by paired tests among its models; a missing, failed or withheld score is
never a number, reference entries are shown apart and never ranked, and a RAG setting is an
entry of its own.  docs/leaderboard.md gives each rule and why it holds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from benchmark.board.links import model_link
from benchmark.board.pairs import power_columns
from benchmark.board.submissions import ModelCard, load_model_cards
from benchmark.core import stats
from benchmark.core.errors import printable
from benchmark.core.repeats import repeat_ranks
from benchmark.core.results import Score, TaskResult, read_result
from benchmark.families import REGISTRY, MetricFamily
from benchmark.models.cache import content_hash

log = logging.getLogger(__name__)

#: the suffix of a score's human-corrected column (``s_fact:human``, with ``_ci_low`` … and
#: ``_n``, the labels it was corrected with): ``--human-labels``, docs/human-labels.md
HUMAN = ":human"

#: an entry is flagged when its failed queries exceed the board's median by more than this
#: share of the board's queries (and by at least 2 queries: one failure is not a pattern)
FAILURE_MARGIN = 0.1


@dataclass
class Entry:
    """One result file, flattened for tables."""

    path: Path | None
    result: TaskResult
    card: ModelCard | None

    @property
    def model_label(self) -> str:
        return self.result.model.label

    @property
    def kind(self) -> str:
        """``model``, or the reference kind its card declares (baseline, oracle, ceiling check)."""
        return "model" if self.card is None else self.card.kind

    @property
    def is_reference(self) -> bool:
        return self.kind != "model"

    @cached_property
    def board_id(self) -> str:
        return content_hash(self.result.board_key())[:12]

    @cached_property
    def board(self) -> str:
        """A readable board name (the full key is hashed into :attr:`board_id`)."""
        r = self.result
        extra = "".join(f" · {k}={v}" for k, v in sorted(r.board_settings.items()))
        return (
            f"{r.metric_family} · {r.task.id}@{r.task.version} · {r.profile_id} · "
            f"{r.task.queries.n} queries{extra} · by {r.primary} [{self.board_id}]"
        )


@dataclass
class Leaderboard:
    entries: list[Entry]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    overall: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: list[str] = field(default_factory=list)
    #: each board's paired tests among its ranked models (the evidence for its ranks)
    comparisons: dict[str, stats.PairedComparison] = field(default_factory=dict)

    @property
    def profiles(self) -> list[str]:
        return sorted({e.result.profile_id for e in self.entries})

    @property
    def tasks(self) -> list[str]:
        return sorted({e.result.task.id for e in self.entries})


# -- tables ------------------------------------------------------------------------------


def family_table(
    entries: list[Entry],
    family: MetricFamily,
    comparisons: dict[str, stats.PairedComparison] | None = None,
) -> pd.DataFrame:
    """One row per (board, model): scores with CIs, failed queries, paired-test rank (reference
    entries get none and sort after the models); ``comparisons`` is filled with each board's
    paired tests, the evidence for its ranks."""
    mine = [e for e in entries if e.result.metric_family == family.id]
    if not mine:
        return pd.DataFrame()
    boards = {
        b: _rank_board([e for e in mine if e.board_id == b], family)
        for b in sorted({e.board_id for e in mine})
    }
    if comparisons is not None:
        comparisons.update(
            {b: ranked.comparison for b, ranked in boards.items() if ranked.comparison is not None}
        )
    df = pd.DataFrame([_row(e, family, boards[e.board_id]) for e in mine])
    df["rank"] = df["rank"].astype("Int64")
    df["_primary"] = [row.get(row["ranked_by"]) for _, row in df.iterrows()]
    df = df.sort_values(
        ["board", "reference", "rank", "_primary", "model"],
        ascending=[True, True, True, False, True],
        na_position="last",
    )
    return df.drop(columns="_primary").reset_index(drop=True)


@dataclass
class _Ranked:
    """One board's ranks of its models, by model label, and what else its rows show."""

    ranks: dict[str, int]
    shared: dict[str, tuple[float | None, int]]
    flagged: list[str]
    comparison: stats.PairedComparison | None = None
    #: what its paired tests can tell apart
    power: dict[str, object] = field(default_factory=lambda: power_columns(None))


def _rank_board(on_board: list[Entry], family: MetricFamily) -> _Ranked:
    primary = on_board[0].result.primary
    col = family.column(primary)
    higher = col.higher_is_better if col else True
    per_query = {
        e.model_label: {q.query_id: q.scores.get(primary) for q in e.result.per_query} for e in on_board
    }
    ranked = {
        e.model_label: per_query[e.model_label]
        for e in on_board
        if not e.is_reference and any(v is not None for v in per_query[e.model_label].values())
    }
    repeated = {
        e.model_label: {
            q.query_id: q.repeats[primary] for q in e.result.per_query if primary in (q.repeats or {})
        }
        for e in on_board
        if e.model_label in ranked
    }
    failed = {e.model_label: _failed(e.result) for e in on_board}
    out = _Ranked({}, shared_means(per_query), failure_outliers(failed, on_board))
    if ranked and all(repeated.values()):
        # a sampled judge asked N times (--judge-repeats): the paired tests resample its
        # repeats too, so a difference only its noise makes does not separate two ranks
        out.ranks = repeat_ranks(repeated, higher_is_better=higher)
    elif ranked:
        out.comparison = stats.paired_tests(ranked)
        out.ranks = stats.ranks_of(out.comparison, higher_is_better=higher)
        out.power = power_columns(out.comparison)
    return out


def _row(e: Entry, family: MetricFamily, board: _Ranked) -> dict[str, object]:
    r = e.result
    ranked_score = _primary_score(r)
    shared_mean, shared_n = board.shared.get(e.model_label, (None, 0))
    declared = e.card.reference_setting if e.card is not None and e.card.reference_setting else None
    row: dict[str, object] = {
        "board": e.board,
        "board_id": e.board_id,
        "task": r.task.id,
        "task_version": r.task.version,
        "judge_profile": r.profile_id,
        "model": e.model_label,
        "model_id": r.model.id,
        "revision": r.model.revision,
        "setting": declared or ("closed-book" if r.model.rag is None else r.model.rag.label),
        # as figures and legends name the entry ("SmolLM2-135M-Instruct · RAG bm25+subq(all) k5")
        "name": r.model.short_label,
        "setting_short": r.model.rag.short if r.model.rag is not None and not declared else None,
        "kind": e.kind,
        "reference": e.is_reference,
        "link": model_link(r, e.card),
        "open_weights": None if e.card is None else e.card.open_weights,
        "parameters": None if e.card is None else e.card.parameters,
        "queries": r.task.queries.n,
        "n": ranked_score.n if ranked_score is not None else 0,
        "failed": _failed(r),
        "failed_queries": len(r.failed_queries),
        "shared_mean": shared_mean,
        "shared_n": shared_n,
        "failure_flag": e.model_label in board.flagged,
        "failures": int(sum(r.failures.values())),
        "copies": int(sum(r.example_copies.values())),
        "ranked_by": r.primary,
        "rank_method": stats.RANK_METHOD,
        "alpha": stats.ALPHA,
        **board.power,
    }
    for k in [c.key for c in family.columns] + sorted(set(r.scores) - {c.key for c in family.columns}):
        s = r.scores.get(k)
        if s is not None and s.incomplete:
            # withheld (its judge failed past --max-failure-rate): never a number on a board
            row[f"{k}_withheld"] = s.incomplete
            s = s.model_copy(update={"value": None, "ci_low": None, "ci_high": None})
        for attr in ("value", "ci_low", "ci_high", "n", "failed"):
            row[k if attr == "value" else f"{k}_{attr}"] = getattr(s, attr, None)
        if s is not None and (j := s.judge_repeats) is not None:
            row[f"{k}_repeats"] = j.repeats
            row[f"{k}_noise_share"] = j.noise_share
        if s is not None and (h := s.human_corrected) is not None:
            # its own column beside the raw score, never in its place: ranks stay the judge's
            row[f"{k}{HUMAN}"] = h.value
            row[f"{k}{HUMAN}_ci_low"] = h.ci_low
            row[f"{k}{HUMAN}_ci_high"] = h.ci_high
            row[f"{k}{HUMAN}_n"] = h.n_labels
            row[f"{k}{HUMAN}_raw"] = h.raw
    row["rank"] = board.ranks.get(e.model_label)
    return row


def _primary_score(result: TaskResult) -> Score | None:
    return result.scores.get(result.primary)


def _failed(result: TaskResult) -> int:
    """Queries whose ranked score a judge failed on (whole failed queries included)."""
    score = _primary_score(result)
    return score.failed if score is not None else len(result.failed_queries)


def shared_means(per_query: dict[str, dict[str, float | None]]) -> dict[str, tuple[float | None, int]]:
    """Each entry's mean over the queries every entry on the board has a value for, and how
    many those are: the number that failing on hard queries cannot raise."""
    common = set.intersection(
        *({q for q, v in scores.items() if v is not None} for scores in per_query.values())
    )
    out: dict[str, tuple[float | None, int]] = {}
    for model, scores in per_query.items():
        values = [float(scores[q]) for q in sorted(common)]  # type: ignore[arg-type]
        out[model] = (sum(values) / len(values) if values else None, len(values))
    return out


def failure_outliers(failed: dict[str, int], on_board: list[Entry]) -> list[str]:
    """Entries whose failed queries exceed the board's median by more than
    :data:`FAILURE_MARGIN` of its queries (at least 2 more)."""
    if len(failed) < 2:
        return []
    queries = max(e.result.task.queries.n for e in on_board)
    median = float(pd.Series(list(failed.values())).median())
    margin = max(2.0, FAILURE_MARGIN * queries)
    return [m for m, f in failed.items() if f - median > margin]


def _models_only(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of ranked models (reference entries have no overall rank)."""
    return table[~table["reference"].astype(bool)] if "reference" in table else table


def overall_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per judge profile: each model's rank on every board, mean rank, overall rank (none while
    a board is missing; those are listed).  A board of a family that ``needs_evidence`` does not
    apply to a closed-book entry: neither counted nor missing."""
    frames = [
        _models_only(t)[["judge_profile", "board", "model", "rank", "setting"]].assign(
            needs_evidence=REGISTRY[fid].needs_evidence if fid in REGISTRY else False
        )
        for fid, t in tables.items()
        if not t.empty
    ]
    if not frames:
        return pd.DataFrame()
    long = pd.concat(frames, ignore_index=True)
    out = []
    for profile, sub in long.groupby("judge_profile"):
        boards = sorted(sub["board"].unique())
        evidence_only = set(sub.loc[sub["needs_evidence"], "board"])
        closed_book = set(sub.loc[sub["setting"] == "closed-book", "model"])
        wide = sub.pivot_table(index="model", columns="board", values="rank", aggfunc="first")
        wide = wide.reindex(columns=boards)
        for model, ranks in wide.iterrows():
            applies = [b for b in boards if not (model in closed_book and b in evidence_only)]
            missing = [b for b in applies if pd.isna(ranks[b])]
            out.append(
                {
                    "judge_profile": profile,
                    "model": model,
                    "boards": len(applies) - len(missing),
                    "of_boards": len(applies),
                    "mean_rank": None if missing else float(ranks[applies].astype(float).mean()),
                    "missing": "; ".join(missing),
                }
            )
    if not out:  # every entry a reference (baseline, oracle): no model to rank overall
        return pd.DataFrame()
    df = pd.DataFrame(out)
    # lower mean rank is better; equal mean ranks share a rank (min method)
    ranked = df["mean_rank"].astype(float).groupby(df["judge_profile"]).rank(method="min")
    df["overall_rank"] = ranked.astype("Int64")
    return df.sort_values(["judge_profile", "overall_rank", "model"], na_position="last").reset_index(
        drop=True
    )


# -- loading -----------------------------------------------------------------------------


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
        shown = str(path.relative_to(root))
        if path.is_symlink():
            skipped.append(f"{shown}: symbolic link")
            continue
        try:
            result = read_result(path)
        except (ValueError, OSError) as exc:
            skipped.append(f"{shown}: not a valid result file ({_why(exc)})")
            continue
        if result.incomplete:
            skipped.append(f"{shown}: {incomplete_note(result)}")
            continue
        entries.append(Entry(path=path, result=result, card=_card_for(cards, result)))
    return latest(entries), skipped


def _why(exc: Exception) -> str:
    """A refused result file's first problem in one line: for a schema error, the field and
    the rule (``model.id: … direction-changing character U+202E …``)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return printable(f"{'.'.join(map(str, first['loc']))}: {first['msg']}")[:300]
    return printable(str(exc).splitlines()[0])[:200]


def incomplete_note(result: TaskResult) -> str:
    """Why an incomplete result is on no board, as the skipped list says it."""
    return (
        f"incomplete ({'; '.join(result.incomplete)}): a re-run asks again what the judge left unreached, "
        "--retry-failed what it answered unusably"
    )


def _card_for(cards: dict[str, ModelCard], result: TaskResult) -> ModelCard | None:
    return cards.get(f"{result.model.id}|{result.model.setting}") or cards.get(result.model.id)


def latest(entries: list[Entry]) -> list[Entry]:
    """The newest result when the same model was scored twice on one board."""
    by_key: dict[tuple[str, str], Entry] = {}
    for e in sorted(entries, key=lambda e: e.result.run.finished):
        by_key[(e.model_label, e.board_id)] = e
    return list(by_key.values())


def build_from_entries(entries: list[Entry], skipped: list[str] | None = None) -> Leaderboard:
    comparisons: dict[str, stats.PairedComparison] = {}
    tables = {fid: family_table(entries, fam, comparisons) for fid, fam in REGISTRY.items()}
    model_boards = {fid: t for fid, t in tables.items() if REGISTRY[fid].ranks_models}
    return Leaderboard(
        entries=entries,
        tables=tables,
        overall=overall_table(model_boards),
        skipped=skipped or [],
        comparisons=comparisons,
    )


def build_leaderboard(results_dir: Path | str, submissions_dir: Path | str | None = None) -> Leaderboard:
    entries, skipped = load_entries(results_dir, submissions_dir)
    for s in skipped:
        log.warning("skipped %s", s)
    return build_from_entries(entries, skipped)


def from_results(results: list[TaskResult]) -> Leaderboard:
    """A board of results held in memory (e.g. the runs of one ``benchmark evaluate``);
    incomplete ones are listed as skipped, as on the published board."""
    complete = [r for r in results if not r.incomplete]
    skipped = [
        f"{r.model.label} on {r.task.id} ({r.metric_family}): {incomplete_note(r)}"
        for r in results
        if r.incomplete
    ]
    return build_from_entries(latest([Entry(path=None, result=r, card=None) for r in complete]), skipped)
