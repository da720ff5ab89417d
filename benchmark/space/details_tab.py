"""The Model details tab: choose a result (or click a row of a board), then read its model
card, its scores, each query's scores, and a query's trace page by page.  A share link
(``?tab=model&result=…&query=…&trace=…``) opens the result, then the query, then the page,
each once the one before it is shown (:class:`Wanted` carries the link down that chain)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.space.details import (
    card_html,
    detail_html,
    entries_by_key,
    page_choices,
    per_query_frame,
    query_choices,
    run_choices,
    scores_frame,
)
from benchmark.space.page import DETAILS_URL_JS
from benchmark.space.table import board_table, three_decimals
from benchmark.space.text import PICK_A_RESULT

#: the per-query table's text columns (the rest are scores: numbers)
QUERY_TEXT = ("query", "text", "failed", "failures")


@dataclass(frozen=True)
class Wanted:
    """What a share link asks the details to show: a result, a query of it, a trace page."""

    result: str | None = None
    query: str | None = None
    page: str | None = None

    def query_for(self, result: str) -> str | None:
        return self.query if self.result == result else None

    def page_for(self, result: str, query: str) -> str | None:
        return self.page if (self.result, self.query) == (result, query) else None


@dataclass
class DetailsTab:
    """What the app wires beyond the tab: the result list and what a share link fills."""

    run: Any
    wanted: Any


def details_tab(lb: Leaderboard) -> DetailsTab:
    """The tab's components and listeners (call inside its ``gr.Tab``)."""
    by_key = entries_by_key(lb)
    run = gr.Dropdown(
        run_choices(lb),
        value=None,
        label="Result (family: model · task · judge profile), or click a row of a board",
        elem_id="gc-run",
    )
    wanted = gr.State(Wanted())
    hint = gr.Markdown(PICK_A_RESULT, elem_id="gc-details-hint")
    # nothing below shows until a result is chosen (empty tables read "1 2 3")
    with gr.Column(visible=False, elem_id="gc-details") as details:
        card = gr.HTML(elem_id="gc-card")
        summary = board_table("gc-summary", label="Scores")
        queries = board_table(
            "gc-queries", label="Per query (sort by any column from its menu; click a row for its trace)"
        )
        with gr.Row():
            query = gr.Dropdown([], value=None, label="Query", elem_id="gc-query", scale=3)
            trace_page = gr.Dropdown(
                [], value=None, label="Trace page", elem_id="gc-trace-page", visible=False, scale=1
            )
        detail = gr.HTML(elem_id="gc-detail", elem_classes=["gc-trace"])

    def _open(key: str | None, want: Wanted) -> tuple[Any, ...]:
        entry = by_key.get(str(key))
        if entry is None:
            empty, no_query = pd.DataFrame(), gr.update(choices=[], value=None)
            return gr.update(visible=True), gr.update(visible=False), "", empty, empty, no_query, ""
        per_query = per_query_frame(entry)
        choices = query_choices(entry)
        asked = want.query_for(str(key))
        return (
            gr.update(visible=False),
            gr.update(visible=True),
            card_html(entry),
            gr.Dataframe(
                value=three_decimals(scores_frame(lb, entry)),
                datatype=["str", "str", "str", "number", "number"],
            ),
            gr.Dataframe(
                value=three_decimals(per_query),
                datatype=["str" if c in QUERY_TEXT else "number" for c in per_query.columns],
            ),
            gr.update(choices=choices, value=asked if asked in {c[1] for c in choices} else None),
            "",
        )

    def _detail(key: str | None, qid: str | None, want: Wanted) -> tuple[str, Any]:
        entry = by_key.get(str(key))
        if entry is None or qid is None:
            return "", gr.update(choices=[], value=None, visible=False)
        pages = page_choices(entry, str(qid))
        asked = want.page_for(str(key), str(qid))
        page = asked if asked in {p[1] for p in pages} else (pages[0][1] if pages else None)
        return detail_html(entry, str(qid), int(page) if page else 0), gr.update(
            choices=pages, value=page, visible=bool(pages)
        )

    def _page(key: str | None, qid: str | None, page: str | None) -> Any:
        entry = by_key.get(str(key))
        if entry is None or qid is None or page is None or not str(page).isdigit():
            return gr.update()
        return detail_html(entry, str(qid), int(page))

    def _pick_query(evt: gr.SelectData) -> Any:
        row = evt.row_value or []
        return gr.update(value=str(row[0])) if row else gr.update()

    run.change(_open, inputs=[run, wanted], outputs=[hint, details, card, summary, queries, query, detail])
    query.change(_detail, inputs=[run, query, wanted], outputs=[detail, trace_page])
    trace_page.input(_page, inputs=[run, query, trace_page], outputs=detail)
    queries.select(_pick_query, None, query)
    # what is shown goes into the address bar (a share link); nothing is sent
    gr.on(
        [run.change, query.change, trace_page.change], None, [run, query, trace_page], None, js=DETAILS_URL_JS
    )
    return DetailsTab(run, wanted)
