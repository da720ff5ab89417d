"""The summary across boards (as MTEB's): per judge profile, each model's rank on every board
of its profile, its mean rank and overall rank (:func:`benchmark.board.leaderboard.overall_table`).
Models only; a board that does not apply to an entry reads "n/a", a missing result "—"."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.board.render import split_references
from benchmark.families import REGISTRY
from benchmark.space.board_tab import default_profile_of
from benchmark.space.ranks import entry_names
from benchmark.space.table import CHAR_PX, board_table, name_lines, whole, whole_text

FIRST = ["overall rank", "model", "mean rank", "boards"]


def profile_boards(lb: Leaderboard, profile: str) -> list[tuple[str, str, pd.DataFrame]]:
    """(column header, family id, rows) of every model-ranking board of ``profile``."""
    out = []
    for fid, fam in REGISTRY.items():
        table = lb.tables.get(fid, pd.DataFrame())
        if table.empty or not fam.ranks_models:
            continue
        mine = table[table["judge_profile"] == profile]
        boards = list(dict.fromkeys(mine["board_id"]))
        for board_id in boards:
            rows = mine[mine["board_id"] == board_id]
            header = fam.title if len(boards) == 1 else f"{fam.title} · {rows['task'].iloc[0]}"
            if any(h == header for h, _, _ in out):
                header = f"{header} [{board_id[:6]}]"
            out.append((header, fid, rows))
    return out


def summary_frame(lb: Leaderboard, profile: str) -> pd.DataFrame:
    """One row per model of ``profile``: overall rank, name, mean rank, boards, then its rank on
    each board."""
    overall = lb.overall[lb.overall["judge_profile"] == profile] if not lb.overall.empty else lb.overall
    boards = profile_boards(lb, profile)
    if overall.empty or not boards:
        return pd.DataFrame(columns=FIRST)
    names: dict[str, str] = {}
    ranks: dict[str, dict[str, Any]] = {}
    closed_book: set[str] = set()
    for header, _, rows in boards:
        models, _ = split_references(rows)
        names.update(entry_names(models))
        ranks[header] = {r["model"]: r["rank"] for _, r in models.iterrows()}
        closed_book |= set(models.loc[models["setting"] == "closed-book", "model"])
    out = []
    for _, o in overall.iterrows():
        model = str(o["model"])
        row: dict[str, Any] = {
            "overall rank": whole(o["overall_rank"]),
            "model": name_lines(names.get(model, model), model),
            "mean rank": None if pd.isna(o["mean_rank"]) else round(float(o["mean_rank"]), 2),
            "boards": f"{int(o['boards'])}/{int(o['of_boards'])}",
        }
        for header, fid, _ in boards:
            rank = ranks[header].get(model)
            if model in closed_book and REGISTRY[fid].needs_evidence:  # as overall_table counts it
                row[header] = "n/a"
            else:
                row[header] = whole_text(rank) or "—"
        out.append(row)
    return pd.DataFrame(out, columns=[*FIRST, *(h for h, _, _ in boards)])


def summary_tab(lb: Leaderboard) -> None:
    """The tab's components and listener (call inside its ``gr.Tab``)."""
    profiles = sorted(set(lb.overall["judge_profile"])) if not lb.overall.empty else []
    start = default_profile_of(profiles)
    gr.Markdown(
        "Each model's rank on every board of its judge profile, as on each family's tab (paired tests; "
        "equal ranks: not told apart), with the mean of its ranks; a model has an overall rank only with "
        "a result on every board that applies to it. Reference entries are not ranked and not here."
    )
    profile = gr.Dropdown(profiles, value=start, label="Judge profile", elem_id="gc-overall-profile")
    first = summary_frame(lb, start) if start else pd.DataFrame(columns=FIRST)
    table = board_table(
        "gc-overall", wrap=False, value=first, datatype=_types(first), column_widths=_widths(first)
    )

    def _show(chosen: str | None) -> Any:
        frame = summary_frame(lb, str(chosen)) if chosen else pd.DataFrame(columns=FIRST)
        return gr.Dataframe(value=frame, datatype=_types(frame), column_widths=_widths(frame))

    profile.change(_show, profile, table)


def _types(frame: pd.DataFrame) -> list[str]:
    return [
        "number" if c in ("overall rank", "mean rank") else ("html" if c == "model" else "str")
        for c in frame.columns
    ]


def _widths(frame: pd.DataFrame) -> list[str]:
    return [f"{300 if c == 'model' else max(90, round(CHAR_PX * len(str(c))) + 28)}px" for c in frame.columns]
