"""Why the ranks are what they are: each board's power above its table, and every pair of its
ranked models with their paired test (:func:`benchmark.board.pairs.board_pairs`)."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.board.pairs import board_pairs, power_line
from benchmark.core.power import fmt_detectable
from benchmark.families import REGISTRY
from benchmark.space.table import (
    DECIMALS,
    Filters,
    column_widths,
    name_lines,
    rows_shown,
    three_decimals,
    whole,
)

#: the numbers that explain a rank right after the names, in view at 1366 px
PAIR_COLUMNS = [
    "A", "B", "mean A − B", "detectable", "< detectable", "p", "Holm p", "significant",
    "rank A", "rank B", "shared queries", "board",
]  # fmt: skip
#: a name is cut with an ellipsis (whole in its tooltip), never widens its column
PAIR_WIDTHS = {"A": 250, "B": 250, "board": 320}


def entry_names(board: pd.DataFrame) -> dict[str, str]:
    """Each entry's name as the figures write it, its whole label where two would read alike."""
    short = {str(r["model"]): str(r.get("name") or r["model"]) for _, r in board.iterrows()}
    twice = {n for n in short.values() if list(short.values()).count(n) > 1}
    return {label: label if name in twice else name for label, name in short.items()}


def pairwise_frame(lb: Leaderboard, family_id: str, flt: Filters) -> pd.DataFrame:
    """Every pair of ranked models shown on a board (:func:`benchmark.board.pairs.board_pairs`);
    names as HTML from escaped text."""
    df = rows_shown(lb, family_id, flt)
    fam = REGISTRY[family_id]
    rows: list[dict[str, Any]] = []
    for board_id in dict.fromkeys(df["board_id"]) if not df.empty else []:
        cmp = lb.comparisons.get(board_id)
        sub = df[(df["board_id"] == board_id) & ~df["reference"].astype(bool)]
        if cmp is None or len(sub) < 2:
            continue
        col = fam.column(str(sub["ranked_by"].iloc[0]))
        info = {r["model"]: r for _, r in sub.iterrows()}
        names = entry_names(lb.tables[family_id][lb.tables[family_id]["board_id"] == board_id])
        for pair in board_pairs(
            cmp, list(sub["model"]), higher_is_better=col is None or col.higher_is_better
        ):
            rows.append(
                {
                    "rank A": whole(info[pair.a]["rank"]),
                    "A": name_lines(names[pair.a], pair.a),
                    "rank B": whole(info[pair.b]["rank"]),
                    "B": name_lines(names[pair.b], pair.b),
                    "mean A − B": round(pair.mean_diff, DECIMALS) + 0.0,  # never "-0.000"
                    "detectable": fmt_detectable(pair.detectable),
                    "< detectable": "yes" if pair.below_detectable else "no",
                    "p": round(pair.p, 4),
                    "Holm p": round(pair.holm_p, 4),
                    "significant": "yes" if pair.a_better else "no",
                    "shared queries": pair.n_shared,
                    "board": str(info[pair.a]["board"]),
                }
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def pair_props(frame: pd.DataFrame) -> dict[str, Any]:
    """The pairs table for ``frame``: its values, each column's datatype and width."""
    numbers = {"rank A", "rank B", "mean A − B", "p", "Holm p", "shared queries"}
    types = ["number" if c in numbers else ("html" if c in ("A", "B") else "str") for c in PAIR_COLUMNS]
    return {
        "value": three_decimals(frame),
        "datatype": types,
        "column_widths": column_widths(frame, PAIR_WIDTHS),
    }


def power_html(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """Each shown board's power line (:func:`benchmark.board.pairs.power_line`), escaped."""
    df = rows_shown(lb, family_id, flt)
    fam = REGISTRY[family_id]
    lines = []
    for board_id in dict.fromkeys(df["board_id"]) if not df.empty else []:
        row = df[df["board_id"] == board_id].iloc[0]
        line = power_line(row, fam.label(str(row["ranked_by"])))
        if line:
            lines.append(
                f"<p class='gc-power' data-board='{html.escape(str(board_id), quote=True)}'>{html.escape(line)}</p>"
            )
    return "".join(lines)
