"""The Space's figures: which results a tab's figures draw (the filtered board, in rank
order), their caption (each entry's name and colour), and the family's interactive Plotly
figures for that selection (:meth:`~benchmark.families.base.MetricFamily.plots`)."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.core import figures
from benchmark.families import REGISTRY
from benchmark.space.table import Filters, filter_rows


def select_results(lb: Leaderboard, family_id: str, flt: Filters) -> list[Any]:
    """The results shown by the filters, in the table's order (rank order, references last)."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    order = {key: n for n, key in enumerate(zip(df.get("model", []), df.get("board_id", []), strict=False))}
    mine = [
        e for e in lb.entries if (e.model_label, e.board_id) in order and e.result.metric_family == family_id
    ]
    return [e.result for e in sorted(mine, key=lambda e: order[(e.model_label, e.board_id)])]


def figure_caption(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """Which entries the figures are drawn for, named as the figures name them (escaped), each
    with its colour (one per entry, the same in every figure and tab): the figures' own record
    of the selection they show."""
    results = select_results(lb, family_id, flt)
    if not results:
        return "<p class='gc-figcaption'>Figures: no results match.</p>"
    names = figures.plot_names(results)  # as the figures name them
    items = "".join(
        f"<li data-entry='{html.escape(r.model.label, quote=True)}' title='{html.escape(r.model.label, quote=True)}'>"
        f"<span class='gc-swatch' style='background:{figures.plot_colour(r.model.label)}'></span>"
        f"{html.escape(names[i])}" + (" [reference]" if _is_ref(lb, r) else "") + "</li>"
        for i, r in enumerate(results)
    )
    return f"<div class='gc-figcaption'>Figures drawn for {len(results)} entries, in rank order:<ul>{items}</ul></div>"


def _is_ref(lb: Leaderboard, result: Any) -> bool:
    return any(e.result is result and e.is_reference for e in lb.entries)


def family_figures(
    lb: Leaderboard, family_id: str, option: str | None, titles: list[str], flt: Filters
) -> list[Any]:
    """The tab's interactive figures for the selection, one per title the tab was built with
    (a selection with nothing to draw gets a figure that says so)."""
    plots = REGISTRY[family_id].plots(select_results(lb, family_id, flt), option)
    return [plots[t] if t in plots else figures.plot_empty("no results match the filters") for t in titles]
