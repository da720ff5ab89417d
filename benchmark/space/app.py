"""groundcover leaderboard: a Gradio Blocks app over scored result files — the wiring.

Run locally with ``benchmark space serve`` (from a checkout or an installed wheel), or as
the Hugging Face Space (``hf_space/app.py`` is its entry).  It reads result JSON, traces and
model cards from the results dataset pinned in the Space's ``results.yaml``
(:mod:`benchmark.board.results_dataset`), or, when that cannot be read or
``$GROUNDCOVER_RESULTS`` is set, from a local folder (default: the checkout's
``leaderboard/results/`` and ``submissions/``); the page says which.

One tab per registered metric family (:data:`benchmark.families.REGISTRY`,
:mod:`benchmark.space.board_tab`), then Model details (:mod:`benchmark.space.details`), FAQ,
About, How to submit and Citation (:mod:`benchmark.space.text`), as on the Hub's
leaderboards.  This module only loads the boards, puts the tabs together, wires what
crosses tabs (a row click opening its details, the share link) and launches; the tables
are :mod:`benchmark.space.table`, the figures :mod:`benchmark.space.figures`, the page's
styles and scripts :mod:`benchmark.space.page`.  No code here names a family.

Every string shown comes from submissions and is untrusted: tables are plain-text
``Dataframe`` cells, and the drill-down HTML is built only from ``html.escape``-d text.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board import results_dataset
from benchmark.board.leaderboard import Leaderboard, build_leaderboard
from benchmark.core import figures, paths
from benchmark.families import REGISTRY
from benchmark.space.board_tab import FamilyTab, default_profile_of, family_tab
from benchmark.space.details import (
    card_html,
    detail_html,
    entry_of_row,
    entry_order,
    page_choices,
    per_query_frame,
    query_choices,
    run_choices,
)
from benchmark.space.page import CSS, URL_JS, page_js
from benchmark.space.table import column_widths, datatypes, numeric_frame, styled, three_decimals
from benchmark.space.text import ABOUT, FAQ, HOW_TO_SUBMIT, INTRO, PICK_A_RESULT, citation_text

#: the Space's folder (``hf_space/`` in a checkout; the Space's root when deployed): the pin
SPACE_DIR = Path(os.environ.get("GROUNDCOVER_SPACE_DIR", paths.REPO_ROOT / "hf_space"))


def locate() -> results_dataset.Located:
    """An explicit local folder, else the pinned results dataset, else the local copy."""
    submissions = Path(os.environ.get("GROUNDCOVER_SUBMISSIONS", paths.REPO_ROOT / "submissions"))
    if os.environ.get("GROUNDCOVER_RESULTS"):
        results = Path(os.environ["GROUNDCOVER_RESULTS"])
        return results_dataset.Located(results, submissions, f"local folder {results}")
    pin = Path(os.environ.get("GROUNDCOVER_RESULTS_PIN", SPACE_DIR / "results.yaml"))
    return results_dataset.locate(pin, paths.REPO_ROOT / "leaderboard" / "results", submissions)


def load() -> tuple[Leaderboard, str]:
    where = locate()
    return build_leaderboard(where.results, where.submissions), where.source


#: the filters a share link carries, in each tab's filter order
URL_KEYS = ("q", "weights", "size", "profile", "task")


def build_app(lb: Leaderboard | None = None, source: str | None = None) -> gr.Blocks:
    if lb is None:
        lb, source = load()
    default_profile = default_profile_of(list(lb.profiles))
    # one colour per entry for the whole app, in board order
    figures.fix_colours([lb.entries[i].model_label for i in entry_order(lb)])
    tabs: list[FamilyTab] = []
    with gr.Blocks(title="groundcover leaderboard", delete_cache=(3600, 3600)) as demo:
        gr.Markdown(INTRO)
        if source:  # a path or dataset id: escaped, as everything else shown
            gr.Markdown(f"<small>Results shown: {html.escape(source)}</small>", elem_id="gc-source")
        with gr.Tabs(
            elem_id="gc-tabs", overflow_behavior="wrap"
        ) as tabset:  # every tab in sight, however many families
            for fid, fam in REGISTRY.items():
                with gr.Tab(fam.title, id=f"tab-{fid}", elem_id=f"gc-tab-{fid}"):
                    tabs.append(family_tab(lb, fid, fam, default_profile))
            with gr.Tab("Model details", id="tab-model", elem_id="gc-tab-model"):
                run = gr.Dropdown(
                    run_choices(lb),
                    value=None,
                    label="Result (family: model · task · judge profile), or click a row of a board",
                    elem_id="gc-run",
                )
                hint = gr.Markdown(PICK_A_RESULT, elem_id="gc-details-hint")
                # nothing below shows until a result is chosen (empty tables read "1 2 3")
                with gr.Column(visible=False, elem_id="gc-details") as details:
                    card = gr.HTML(elem_id="gc-card")
                    summary = gr.Dataframe(
                        interactive=False,
                        wrap=True,
                        label="Scores",
                        elem_id="gc-summary",
                        elem_classes=["gc-board"],
                    )
                    queries = gr.Dataframe(
                        interactive=False,
                        wrap=True,
                        label="Per query (sort by any column from its menu; click a row for its trace)",
                        elem_id="gc-queries",
                        elem_classes=["gc-board"],
                    )
                    with gr.Row():
                        query = gr.Dropdown([], value=None, label="Query", elem_id="gc-query", scale=3)
                        trace_page = gr.Dropdown(
                            [],
                            value=None,
                            label="Trace page",
                            elem_id="gc-trace-page",
                            visible=False,
                            scale=1,
                        )
                    detail = gr.HTML(elem_id="gc-detail")

                def _open(idx: str | None) -> tuple[Any, ...]:
                    if idx is None or not str(idx).isdigit() or int(idx) >= len(lb.entries):
                        return (
                            gr.update(visible=True),
                            gr.update(visible=False),
                            "",
                            pd.DataFrame(),
                            pd.DataFrame(),
                            gr.update(choices=[], value=None),
                            "",
                        )
                    entry = lb.entries[int(idx)]
                    fam = REGISTRY.get(entry.result.metric_family)
                    table = lb.tables.get(entry.result.metric_family, pd.DataFrame())
                    row = (
                        table[(table["model"] == entry.model_label) & (table["board_id"] == entry.board_id)]
                        if not table.empty
                        else table
                    )
                    if fam and not row.empty:
                        frame = numeric_frame(row, fam)
                        summ = gr.Dataframe(
                            value=styled(frame, fam),
                            datatype=datatypes(frame, fam),
                            column_widths=column_widths(frame),
                        )
                    else:
                        summ = pd.DataFrame()
                    per_query = per_query_frame(entry)
                    q_types = [
                        "number" if c not in ("query", "text", "failed", "failures") else "str"
                        for c in per_query.columns
                    ]
                    return (
                        gr.update(visible=False),
                        gr.update(visible=True),
                        card_html(entry),
                        summ,
                        gr.Dataframe(value=three_decimals(per_query), datatype=q_types),
                        gr.update(choices=query_choices(entry), value=None),
                        "",
                    )

                def _valid(idx: str | None, qid: str | None) -> bool:
                    return (
                        idx is not None
                        and qid is not None
                        and str(idx).isdigit()
                        and int(idx) < len(lb.entries)
                    )

                def _detail(idx: str | None, qid: str | None) -> tuple[str, Any]:
                    if not _valid(idx, qid):
                        return "", gr.update(choices=[], value=None, visible=False)
                    entry = lb.entries[int(idx)]  # type: ignore[arg-type]
                    pages = page_choices(entry, str(qid))
                    return detail_html(entry, str(qid)), gr.update(
                        choices=pages, value=pages[0][1] if pages else None, visible=bool(pages)
                    )

                def _page(idx: str | None, qid: str | None, page: str | None) -> Any:
                    if not _valid(idx, qid) or page is None or not str(page).isdigit():
                        return gr.update()
                    return detail_html(lb.entries[int(idx)], str(qid), int(page))  # type: ignore[arg-type]

                def _pick_query(evt: gr.SelectData) -> Any:
                    row = evt.row_value or []
                    return gr.update(value=str(row[0])) if row else gr.update()

                run.change(_open, inputs=run, outputs=[hint, details, card, summary, queries, query, detail])
                query.change(_detail, inputs=[run, query], outputs=[detail, trace_page])
                trace_page.input(_page, inputs=[run, query, trace_page], outputs=detail)
                queries.select(_pick_query, None, query)
            with gr.Tab("FAQ", id="tab-faq", elem_id="gc-tab-faq"):
                gr.Markdown(FAQ)
            with gr.Tab("About", id="tab-about", elem_id="gc-tab-about"):
                gr.Markdown(ABOUT)
            with gr.Tab("How to submit", id="tab-submit", elem_id="gc-tab-submit"):
                gr.Markdown(HOW_TO_SUBMIT)
            with gr.Tab("Citation", id="tab-citation", elem_id="gc-tab-citation"):
                gr.Markdown(citation_text())
        if lb.skipped:  # file names come from the results tree: shown as plain text, never markup
            gr.Textbox("\n".join(lb.skipped), label="Skipped result files", interactive=False, lines=2)

        for ft in tabs:
            # a row click opens the entry's details
            def _row(evt: gr.SelectData, *state: Any, _fid: str = ft.fid) -> tuple[Any, Any]:
                idx = entry_of_row(lb, _fid, evt.row_value, *state)
                if idx is None:
                    return gr.update(), gr.update()
                return gr.Tabs(selected="tab-model"), gr.update(value=str(idx))

            ft.table.select(_row, [*ft.filters, ft.columns], [tabset, run])
            fid_box = gr.Textbox(ft.fid, visible=False)
            gr.on(
                [f.change for f in ft.filters],
                None,
                [fid_box, *ft.filters],
                None,
                js=URL_JS,
            )

        def _from_url(request: gr.Request) -> list[Any]:
            """A share link's tab and filters (unknown values are ignored)."""
            params = dict(request.query_params) if request is not None else {}
            out: list[Any] = []
            tab = params.get("tab")
            out.append(gr.Tabs(selected=f"tab-{tab}") if tab in REGISTRY else gr.update())
            for ft in tabs:
                mine = ft.fid == tab
                for key, comp in zip(URL_KEYS, ft.filters, strict=True):
                    value = params.get(key) if mine else None
                    if value is None:
                        out.append(gr.update())
                    elif key == "q":
                        out.append(gr.update(value=value[:200]))
                    else:
                        out.append(gr.update(value=value) if value in _choices(comp) else gr.update())
            return out

        demo.load(_from_url, None, [tabset, *[f for ft in tabs for f in ft.filters]])
    return demo


def _choices(component: Any) -> set[str]:
    return {str(c[1]) if isinstance(c, tuple | list) else str(c) for c in (component.choices or [])}


def launch(demo: gr.Blocks, port: int | None = None) -> None:
    """Serve ``demo`` with the page's styles and script (Gradio takes them at launch)."""
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=port, css=CSS, js=page_js()
    )


if __name__ == "__main__":
    launch(build_app())
