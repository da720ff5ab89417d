"""The Space's "Canary" tab, when the pin names a *candidate* release (every published
submission re-scored under a new judge of record) beside the pinned one: per board, Kendall τ
between the two and each shared entry's place and rank under both judges
(:func:`benchmark.board.releases.compare`).  Model names reach the page as plain-text cells
only; judges' ids are escaped, board names Markdown code spans."""

from __future__ import annotations

import html

import gradio as gr
import pandas as pd

from benchmark.board import releases
from benchmark.board.render import md_cell
from benchmark.board.results_dataset import Located
from benchmark.space.table import board_table, number

COLUMNS = [
    "model", "place before", "place after", "moved", "rank before", "rank after", "score before", "score after",
]  # fmt: skip


def comparison(where: Located) -> releases.Comparison | None:
    """The pinned candidate's comparison with the pinned release, when the pin names one."""
    if where.root is None or where.pin is None or where.pin.candidate is None:
        return None
    return releases.read_comparison(where.root, where.pin.candidate)


def board_frame(change: releases.BoardChange) -> pd.DataFrame:
    """One board's shared entries, in the candidate's order."""
    return pd.DataFrame(
        [
            [m.model, m.place_before, m.place_after, m.moved, m.rank_before, m.rank_after]
            + [number(v) for v in (m.before, m.after)]
            for m in change.entries
        ],
        columns=COLUMNS,
    )


def headline(found: releases.Comparison) -> str:
    return (
        f"**Candidate release {found.candidate}** (judge {html.escape(found.candidate_judge)}) beside "
        f"**release {found.current}** (judge of record {html.escape(found.current_judge)}). The candidate "
        "becomes the board of record only by a reviewed change of the Space's pin."
    )


def tau_line(change: releases.BoardChange) -> str:
    tau = "n/a (fewer than 2 shared entries)" if change.kendall_tau is None else f"{change.kendall_tau:.3f}"
    moved = sum(1 for m in change.entries if m.moved)
    return (
        f"{md_cell(change.board)}: Kendall τ between the two boards {tau}; "
        f"{moved} of {len(change.entries)} entries moved"
    )


def canary_tab(found: releases.Comparison | None) -> None:
    """Inside the app's ``gr.Tabs``: a "Canary" tab when the pin names a candidate."""
    if found is None:
        return
    with gr.Tab("Canary", id="tab-canary", elem_id="gc-tab-canary"):
        gr.Markdown(headline(found), elem_id="gc-canary-head")
        for change in found.boards:
            gr.Markdown(tau_line(change))
            board_table(value=board_frame(change))
