"""One metric family's tab: its ranked table first, then the judge card, the counts, the
column help, the CSV download, the pairwise tests, the search and filters, the column
chooser and the family's figures, with the listeners that keep them in agreement."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.families import MetricFamily
from benchmark.models.profiles import DEFAULT_PROFILE
from benchmark.space.download import write_csv
from benchmark.space.figures import family_figures, family_plots, figure_caption, sketch
from benchmark.space.ranks import pair_props, pairwise_frame, power_html
from benchmark.space.table import (
    ANY,
    SIZES,
    Filters,
    all_columns,
    board_table,
    counts_text,
    default_columns,
    shown_table,
    table_props,
    table_view,
    three_decimals,
    trust_html,
    useful_filters,
)
from benchmark.space.text import PAIRWISE_HELP, column_help_html


def _on_change(fn: Any, inputs: list[Any], outputs: list[Any]) -> Any:
    """One listener for changes to any of ``inputs``; a burst runs ``fn`` once more at the end."""
    return gr.on([c.change for c in inputs], fn, inputs=inputs, outputs=outputs, trigger_mode="always_last")


def default_profile_of(profiles: list[str]) -> str | None:
    """The profile a tab opens on: the newest version of the offline default among the tab's
    own results (a family not yet re-scored opens on the version it has), else the first."""
    mine = [p for p in profiles if p.split("@")[0] == DEFAULT_PROFILE]
    version = lambda p: int(v) if (v := p.partition("@")[2]).isdigit() else -1  # noqa: E731
    return max(mine, key=version) if mine else (profiles[0] if profiles else None)


@dataclass
class FamilyTab:
    """The components of one family's tab that the app wires beyond the tab."""

    fid: str
    table: Any
    filters: list[Any]
    columns: Any


def family_tab(
    lb: Leaderboard, fid: str, fam: MetricFamily, default_profile: str | None, landing: bool = False
) -> FamilyTab:
    """The tab; on the ``landing`` tab its first figure is sketched until Plotly draws it."""
    table = lb.tables.get(fid, pd.DataFrame())
    profiles = sorted(set(table["judge_profile"])) if not table.empty else lb.profiles
    default_profile = default_profile_of(profiles) if not table.empty else default_profile
    useful = useful_filters(table)
    # the tab's own tasks, and only filters that change something on it
    tasks = [ANY, *sorted(set(table["task"]))] if not table.empty else [ANY]
    cols = all_columns(fam)
    defaults = default_columns(fam)
    start_filters = Filters(profile=default_profile or ANY)
    first = table_view(lb, fid, start_filters, defaults)
    gr.Markdown(
        f"{html.escape(fam.description)} Ranked by each board's main score; reference entries "
        "(baselines, ceiling checks) are shown after the models, marked, and not ranked. See *FAQ*."
    )
    trust = gr.HTML(trust_html(lb, fid, start_filters), elem_id=f"gc-trust-{fid}")
    count = gr.Markdown(counts_text(lb, fid, start_filters), elem_id=f"gc-count-{fid}")
    # beside the ranks: what the board's test can tell apart
    power = gr.HTML(power_html(lb, fid, start_filters), elem_id=f"gc-power-{fid}")
    shown = board_table(f"gc-table-{fid}", pinned_columns=2, **table_props(first, fam))
    gr.HTML(column_help_html(fam), elem_id=f"gc-help-{fid}")
    with gr.Row():
        download = gr.DownloadButton(
            "Download this table (CSV)",
            value=write_csv(table_view(lb, fid, start_filters, defaults, bounds=True), fid),
            size="sm",
            elem_id=f"gc-download-{fid}",
        )
    with gr.Accordion("Why these ranks: pairwise tests", open=False, elem_id=f"gc-pairs-acc-{fid}"):
        gr.Markdown(PAIRWISE_HELP)
        pairs = board_table(f"gc-pairs-{fid}", **pair_props(pairwise_frame(lb, fid, start_filters)))
    with gr.Accordion("Search and filters", open=True, elem_id=f"gc-filters-{fid}"), gr.Row():
        search = gr.Textbox(label="Search model", placeholder="e.g. llama", elem_id=f"gc-search-{fid}")
        # model-only filters are hidden where the entries are not models (decomposition methods)
        weights, size, profile, task = (
            gr.Dropdown(
                choices, value=value, label=label, elem_id=f"gc-{key}-{fid}", visible=useful[key] and offered
            )
            for key, label, choices, value, offered in (
                ("weights", "Weights", [ANY, "open", "closed"], ANY, fam.ranks_models),
                ("size", "Size", list(SIZES), ANY, fam.ranks_models),
                ("profile", "Judge profile", profiles or [ANY], default_profile or ANY, True),
                ("task", "Task", tasks, ANY, True),
            )
        )
    with gr.Accordion("Columns", open=False, elem_id=f"gc-columns-acc-{fid}"):
        columns = gr.CheckboxGroup(cols, value=defaults, label="Columns", elem_id=f"gc-columns-{fid}")
    filters = [search, weights, size, profile, task]
    option = None
    if fam.view_options:
        option = gr.Radio(
            [label for label, _ in fam.view_options],
            value=fam.view_options[0][0],
            label="Figures for",
            elem_id=f"gc-option-{fid}",
        )
    values = dict(fam.view_options)
    start = values.get(fam.view_options[0][0]) if fam.view_options else None
    # interactive (Plotly) figures, entries in rank order, one colour per entry app-wide
    figs = family_plots(lb, fid, start, start_filters)
    titles = list(figs)
    plots = []
    caption = (
        gr.HTML(figure_caption(lb, fid, start_filters), elem_id=f"gc-figcaption-{fid}") if figs else None
    )
    with gr.Row(equal_height=False):
        for n, (title, fig) in enumerate(figs.items(), start=1):
            # the title as text above the figure: Gradio's label badge covered the figure's own
            with gr.Column(min_width=420, elem_classes=["gc-figcol"]):
                gr.Markdown(f"**{html.escape(title)}**")
                if landing and n == 1 and (svg := sketch(fig)) is not None:
                    gr.HTML(svg, elem_classes=["gc-sketch"], padding=False)
                plots.append(
                    gr.Plot(fig, show_label=False, elem_id=f"gc-fig-{fid}-{n}", elem_classes=["gc-figure"])
                )

    def _table(*vals: Any) -> tuple[Any, ...]:
        *filter_values, chosen = vals
        flt = Filters.of(*filter_values)
        view = table_view(lb, fid, flt, chosen)
        return (
            shown_table(view, fam),
            write_csv(table_view(lb, fid, flt, chosen, bounds=True), fid),
            trust_html(lb, fid, flt),
            counts_text(lb, fid, flt),
            power_html(lb, fid, flt),
            three_decimals(pairwise_frame(lb, fid, flt)),
        )

    def _plots(*vals: Any) -> list[Any]:
        *filter_values, opt = vals if option is not None else (*vals, None)
        flt = Filters.of(*filter_values)
        return [
            *family_figures(lb, fid, values.get(opt) if opt else None, titles, flt),
            figure_caption(lb, fid, flt),
        ]

    # the table and the figures each listen to every filter (a chained update could be dropped,
    # leaving figures of an older selection beside the table)
    _on_change(_table, [*filters, columns], [shown, download, trust, count, power, pairs])
    if plots:
        _on_change(_plots, [*filters, *([option] if option is not None else [])], [*plots, caption])
    return FamilyTab(fid, shown, filters, columns)
