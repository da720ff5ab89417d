"""Why the ranks are what they are: every pair of ranked models on a board, with the mean
difference on their shared queries, the paired permutation test's p-value and the
Holm-adjusted p-value each rank was tested against."""

from __future__ import annotations

from typing import Any

import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.core.stats import ALPHA, holm_adjusted
from benchmark.families import REGISTRY
from benchmark.space.table import DECIMALS, Filters, filter_rows


def shown_name(r: pd.Series) -> str:
    """An entry's name as the table shows it: the model, with its setting unless closed-book."""
    setting = str(r["setting"])
    return str(r["model_id"]) if setting == "closed-book" else f"{r['model_id']} ({setting})"


def pairwise_frame(lb: Leaderboard, family_id: str, flt: Filters) -> pd.DataFrame:
    """Why two models share or swap a rank: for every pair of ranked models shown on a board,
    the mean difference on the queries both have a score for, the paired permutation test's
    p-value, and the Holm-adjusted p-value the rank counted against α (the lower-ranked
    model's).  Reference entries are not ranked, so not here."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    fam = REGISTRY[family_id]
    rows: list[dict[str, Any]] = []
    for board_id in dict.fromkeys(df["board_id"]) if not df.empty else []:
        cmp = lb.comparisons.get(board_id)
        sub = df[(df["board_id"] == board_id) & ~df["reference"].astype(bool)]
        if cmp is None or len(sub) < 2:
            continue
        col = fam.column(str(sub["ranked_by"].iloc[0]))
        sign = 1.0 if col is None or col.higher_is_better else -1.0
        info = {r["model"]: r for _, r in sub.iterrows()}
        index = {m: i for i, m in enumerate(cmp.models)}
        adjusted = holm_adjusted(cmp)
        order = [m for m in sub["model"] if m in index]  # rank order, best first
        for a_pos, a in enumerate(order):
            for b in order[a_pos + 1 :]:
                i, j = index[a], index[b]
                diff = float(cmp.mean_diff[i, j])
                held = adjusted[j, i] < ALPHA and sign * diff > 0 and cmp.n_shared[i, j] > 0
                rows.append(
                    {
                        "rank A": _rank(info[a]["rank"]),
                        "A": shown_name(info[a]),
                        "rank B": _rank(info[b]["rank"]),
                        "B": shown_name(info[b]),
                        "mean A − B": round(diff, DECIMALS),
                        "shared queries": int(cmp.n_shared[i, j]),
                        "p": round(float(cmp.pvalue[i, j]), 4),
                        "Holm p": round(float(adjusted[j, i]), 4),
                        "A significantly better": "yes" if held else "no",
                        "board": str(info[a]["board"]),
                    }
                )
    columns = ["rank A", "A", "rank B", "B", "mean A − B", "shared queries", "p", "Holm p"]
    columns += ["A significantly better", "board"]
    return pd.DataFrame(rows, columns=columns)


def _rank(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)
