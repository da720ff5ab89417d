"""Figures people read at a glance: short entry names
(:attr:`~benchmark.core.results.ModelInfo.short_label`), legends below the axes, and one
colour per entry that every figure of a board shares.  matplotlib draws the PNG files the
command line writes beside a result; Plotly, below, the Space's interactive figures (hover
for whole names and intervals, an undefined value named and never drawn as a number).
"""

from __future__ import annotations

import html
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.core.errors import printable
from benchmark.core.results import TaskResult

#: colour-blind-safe enough for up to ten entries; more cycle (and get distinct markers)
PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LEGEND_ROW_IN = 0.22  # inches a legend row takes at font size 8
WIDE_LABEL = 34  # characters: a longer name gets a legend row of its own


def bars(
    results: Sequence[TaskResult], series: Sequence[tuple[str, str, str, bool]], *, x_label: str, empty: str
) -> Any:
    """Per entry, a horizontal bar per series (score key, label, colour, hatched) with its 95%
    interval; an entry with none of the scores is left out."""
    rows = [r for r in results if any(r.scores.get(k) for k, *_ in series)]
    if not rows:
        return empty_figure(empty)
    fig, ax = new_figure(7.5, 1.3 + (0.2 + 0.15 * len(series)) * len(rows) + LEGEND_ROW_IN * 2)
    height, named = 0.72 / len(series), set()
    for i, r in enumerate(rows):
        for j, (key, label, colour, hatched) in enumerate(series):
            s = r.scores.get(key)
            if s is None or s.value is None:
                continue
            err = [[s.value - (s.ci_low or s.value)], [(s.ci_high or s.value) - s.value]]
            ax.barh(
                i + (j - (len(series) - 1) / 2) * height, s.value, height=height * 0.9, xerr=err, color=colour,
                hatch="//" if hatched else None, alpha=0.6 if hatched else 1.0, capsize=2,
                label=label if label not in named else None,
            )  # fmt: skip
            named.add(label)
    ax.set_yticks(range(len(rows)), [stacked(n) for n in entry_labels(rows)])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel(x_label)
    legend_below(fig, [], columns=min(4, len(series)))
    return fig


def pyplot() -> Any:
    """matplotlib's pyplot on the non-interactive backend (servers have no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def new_figure(width: float, height: float, **kwargs: Any) -> tuple[Any, Any]:
    """A figure whose layout makes room for labels and an outside legend (constrained)."""
    return pyplot().subplots(figsize=(width, height), layout="constrained", **kwargs)


def empty_figure(message: str) -> Any:
    fig, ax = new_figure(6, 3.6)
    ax.text(0.5, 0.5, message, ha="center", va="center")
    ax.set_axis_off()
    return fig


def entry_labels(results: Sequence[TaskResult]) -> list[str]:
    """Short names, one per result; where two would read alike, both keep their full label.
    Names come from result files: drawn as plain text, never as math."""
    return [n.replace("$", r"\$") for n in _short_names(results)]  # "$" starts matplotlib's math mode


def _short_names(results: Sequence[TaskResult]) -> list[str]:
    short = [r.model.short_label for r in results]
    twice = {s for s, n in Counter(short).items() if n > 1}
    return [r.model.label if s in twice else s for r, s in zip(results, short, strict=True)]


def stacked(label: str) -> str:
    """A name on an axis: the model above its setting."""
    return label.replace(" · ", "\n")


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def marker(i: int) -> str:
    return MARKERS[(i // len(PALETTE)) % len(MARKERS)]


#: entry label -> its place in the app's one colour order (see :func:`fix_colours`)
_FIXED: dict[str, int] = {}


def fix_colours(labels: Sequence[str]) -> None:
    """One colour (and marker) per entry for the whole app: each label keeps its place in
    ``labels`` whatever a filter leaves in a figure."""
    _FIXED.clear()
    for label in labels:
        _FIXED.setdefault(label, len(_FIXED))


def entry_colour(result: TaskResult, i: int) -> str:
    return colour(_FIXED.get(result.model.label, i))


def entry_marker(result: TaskResult, i: int) -> str:
    return marker(_FIXED.get(result.model.label, i))


def legend_columns(labels: Sequence[str]) -> int:
    """Two legend columns where the names fit side by side in a 6.4 in figure, else one."""
    return 2 if max(map(len, labels), default=0) <= WIDE_LABEL else 1


def legend_height(labels: Sequence[str]) -> float:
    """Inches the legend of ``labels`` needs below the axes."""
    return LEGEND_ROW_IN * -(-len(labels) // legend_columns(labels))


def legend_below(fig: Any, labels: Sequence[str], columns: int | None = None) -> None:
    """The figure's legend under the axes, never over them (needs a constrained layout)."""
    fig.legend(
        loc="outside lower center",
        ncols=columns or legend_columns(labels),
        fontsize=8,
        frameon=False,
    )


# ---------------------------------------------------------------------------------
# Interactive figures (Plotly): what the Space shows.  (Plotly's PNG export needs kaleido
# and a Chrome, which a scoring machine lacks: hence matplotlib above.)
# ---------------------------------------------------------------------------------

#: one colour per entry for the whole app, each of mid luminance (0.12–0.30): WCAG 3:1 on the
#: white card and on the dark page alike (tests/unit/test_space_figures.py measures it)
ENTRY_PALETTE = (
    "#2f6fc0",
    "#d55e00",
    "#009e73",
    "#c2458a",
    "#b07d00",
    "#3a8fd0",
    "#7b52b9",
    "#8c6d31",
    "#d0303d",
    "#6e6e6e",
    "#4f8f17",
    "#0f8b8d",
    "#d8508e",
    "#5570b8",
    "#8a7fd8",
    "#8f8f1a",
)
#: a second look for entries beyond the palette: the 17th entry is a blue square, not a circle
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "star")
#: the figures' card in light mode (benchmark/space/page.py darkens it in dark mode)
INK = "#1f2328"
PAPER = "#ffffff"
MUTED = "#57606a"
LEGEND_ROW_PX = 20


def _place(label: str) -> int:
    """An entry's place in the app's colour order (:func:`fix_colours`), else one from its
    name alone, so it never depends on what else is drawn."""
    return _FIXED[label] if label in _FIXED else zlib.crc32(label.encode("utf-8"))


def plot_colour(label: str) -> str:
    """The entry's colour, by its full label: the same in every figure, tab and filter."""
    return ENTRY_PALETTE[_place(label) % len(ENTRY_PALETTE)]


def plot_symbol(label: str) -> str:
    return SYMBOLS[(_place(label) // len(ENTRY_PALETTE)) % len(SYMBOLS)]


def text(value: Any) -> str:
    """Submitted text as Plotly draws it: HTML-escaped (Plotly reads ``<b>``, ``<a href>`` and
    entities in labels), invisible controls shown as escapes (:func:`~benchmark.core.errors.printable`)."""
    return html.escape(printable(str(value)), quote=False)


#: characters a name takes in a legend, on an axis or in a caption; a longer one is cut with
#: "…" (its whole label is in the hover text), or it runs past Plotly's margins
NAME_CHARS = 64


def plot_names(results: Sequence[TaskResult]) -> list[str]:
    """Short names as :func:`entry_labels` gives them, at most :data:`NAME_CHARS` long,
    unescaped ("$" is plain text in Plotly); escape them with :func:`text` where drawn."""
    return [cut(n) for n in _short_names(results)]


#: characters a name takes on an axis, where it shares the figure's width with the data
AXIS_CHARS = 36


def axis_name(name: str) -> str:
    """A name on an axis, escaped: the model above its setting, each cut at :data:`AXIS_CHARS`."""
    return "<br>".join(text(cut(part, AXIS_CHARS)) for part in name.split(" · "))


def cut(name: str, most: int = NAME_CHARS) -> str:
    """``name`` at most ``most`` characters long, cut with "…"."""
    return name if len(name) <= most else name[: most - 1] + "…"


def _go() -> Any:
    import plotly.graph_objects as go

    return go


def card(fig: Any, height: int, *, legend_rows: int = 0, **layout: Any) -> Any:
    """The figures' common look: a white card with dark ink, hover labels that show whole
    names, and ``legend_rows`` rows of legend in a margin under the axes."""
    bottom = 56 + LEGEND_ROW_PX * legend_rows
    fig.update_layout(
        template="plotly_white",
        height=height + LEGEND_ROW_PX * legend_rows,
        paper_bgcolor=PAPER,
        plot_bgcolor=PAPER,
        font={"color": INK, "size": 12},
        margin={"l": 8, "r": 16, "t": 36, "b": bottom},
        hoverlabel={"namelength": -1, "align": "left"},
        hovermode="closest",
        showlegend=legend_rows > 0,
        legend={
            "orientation": "v",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "x": 0,
            "xanchor": "left",
            "font": {"size": 11},
            "itemclick": "toggle",
            "tracegroupgap": 0,  # an entry's traces are a group: no gap, so rows are as reserved
        },
        **layout,
    )
    fig.update_xaxes(gridcolor="#d8dee4", zerolinecolor="#afb8c1", linecolor="#afb8c1", automargin=True)
    fig.update_yaxes(gridcolor="#d8dee4", zerolinecolor="#afb8c1", linecolor="#afb8c1", automargin=True)
    return fig


def plot_empty(message: str) -> Any:
    """A figure that says why nothing is drawn."""
    fig = _go().Figure()
    fig.add_annotation(text=text(message), x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return card(fig, 160)


def interval(score: Any) -> tuple[float, float, float] | None:
    """(value, low, high) of a score; ``None`` where it is undefined (never drawn as 0)."""
    if score is None or score.value is None:
        return None
    v = float(score.value)
    lo = float(score.ci_low) if score.ci_low is not None else v
    hi = float(score.ci_high) if score.ci_high is not None else v
    return v, lo, hi


def fmt_interval(v: float, lo: float, hi: float) -> str:
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if (lo, hi) != (v, v) else f"{v:.3f}"


@dataclass(frozen=True)
class Series:
    """One score drawn on a forest plot: its result key, its name, its panel, and whether its
    marker is hollow."""

    key: str
    name: str
    panel: int = 0
    hollow: bool = False
    symbol: str | None = None  # where a panel's series differ by shape, not by fill


DODGE = 0.24  # rows apart of two series in one panel: their markers never cover each other


def forest(
    results: Sequence[TaskResult],
    series: Sequence[Series],
    panels: Sequence[str],
    *,
    x_title: str,
    x_range: tuple[float, float] | None = None,
    names: Sequence[str] | None = None,
    undefined: str = "undefined",
    notes: Sequence[str] | None = None,
    reference_line: tuple[int, float] | None = None,
) -> Any:
    """One row per entry, in the order given (best first), a point with its 95% interval for
    each series, one panel per group of series, every point of an entry in its colour.  An
    undefined score's place reads ``undefined``.  Two series of one panel sit a little apart,
    the second hollow.  ``notes`` add a line of hover text per entry."""
    from plotly.subplots import make_subplots

    if not results:
        return plot_empty("nothing to draw for this selection")
    go = _go()
    names = list(names) if names is not None else plot_names(results)
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        horizontal_spacing=0.05 if len(panels) > 1 else 0.02,
        subplot_titles=[text(p) for p in panels] if len(panels) > 1 else None,
    )
    per_panel = Counter(s.panel for s in series)
    place = {s.key: sum(t.panel == s.panel for t in series[:i]) for i, s in enumerate(series)}
    lo_x = x_range[0] if x_range else 0.0
    hi_x = x_range[1] if x_range else 1.0
    for i, (r, name) in enumerate(zip(results, names, strict=True)):
        label = r.model.label
        colour = plot_colour(label)
        for s in series:
            offset = (place[s.key] - (per_panel[s.panel] - 1) / 2) * DODGE
            got = interval(r.scores.get(s.key))
            col = s.panel + 1
            if got is None:
                fig.add_annotation(
                    x=(lo_x + hi_x) / 2,
                    y=i + offset,
                    text=f"<i>{text(undefined)}</i>",
                    hovertext=text(f"{label}: {s.name} {undefined} (not drawn)"),
                    showarrow=False,
                    font={"size": 10, "color": MUTED},
                    row=1,
                    col=col,
                )
                continue
            v, lo, hi = got
            hover = f"<b>{text(label)}</b><br>{text(s.name)}: {fmt_interval(v, lo, hi)}"
            if notes is not None and notes[i]:
                hover += f"<br>{text(notes[i])}"
            fig.add_trace(
                go.Scatter(
                    x=[v],
                    y=[i + offset],
                    mode="markers",
                    name=text(name),
                    legendgroup=label,
                    showlegend=False,
                    meta={"entry": label, "colour": colour, "series": s.name},
                    marker={
                        "color": PAPER if s.hollow else colour,
                        "symbol": s.symbol or plot_symbol(label),
                        "size": 10,
                        "line": {"color": colour, "width": 2},
                    },
                    error_x={
                        "type": "data",
                        "symmetric": False,
                        "array": [hi - v],
                        "arrayminus": [v - lo],
                        "color": colour,
                        "thickness": 1.5,
                        "width": 3,
                    },
                    hovertext=[hover],
                    hoverinfo="text",
                ),
                row=1,
                col=col,
            )
    keyed = {s.name: s for s in series if per_panel[s.panel] > 1}  # each kind of marker once
    shown_series = list(keyed.values())
    for s in shown_series:  # the key to filled and hollow markers, in grey: colours are entries
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=text(s.name),
                marker={
                    "color": PAPER if s.hollow else MUTED,
                    "line": {"color": MUTED, "width": 2},
                    "size": 9,
                    "symbol": s.symbol or "circle",
                },
                showlegend=True,
                hoverinfo="skip",
            ),
            row=1,
            col=s.panel + 1,
        )
    if reference_line is not None:  # what the line means is in the panel's title
        panel, at = reference_line
        fig.add_vline(x=at, line={"color": MUTED, "dash": "dash", "width": 1}, row=1, col=panel + 1)
    n = len(results)
    fig.update_yaxes(
        tickvals=list(range(n)),
        ticktext=[axis_name(x) for x in names],
        range=[n - 0.5, -0.5],
        showgrid=False,
        zeroline=False,
    )
    if x_range is not None:
        pad = (x_range[1] - x_range[0]) * 0.03
        fig.update_xaxes(range=[x_range[0] - pad, x_range[1] + pad])
    fig.add_annotation(  # one title under all panels: they share the scale
        text=text(x_title), x=0.5, y=0, xref="paper", yref="paper", yanchor="top", yshift=-24,
        showarrow=False, font={"size": 11},
    )  # fmt: skip
    rows_px = 26 + 8 * (max(per_panel.values()) - 1)
    if any(" · " in x for x in names):  # a name on two lines: room for both
        rows_px = max(rows_px, 36)
    return card(fig, max(200, 90 + rows_px * n), legend_rows=len(shown_series))


def point_sizes(points: Sequence[tuple[float, float]], size: int = 14, step: int = 4) -> list[int]:
    """Marker sizes for points drawn in order: one on an earlier point's place is smaller,
    so both show."""
    seen: Counter[tuple[float, float]] = Counter()
    out = []
    for x, y in points:
        spot = (round(x, 2), round(y, 2))
        out.append(max(5, size - step * seen[spot]))
        seen[spot] += 1
    return out


def same_spot(points: Sequence[tuple[float, float]], names: Sequence[str]) -> list[str]:
    """For each point, the other entries drawn at its place (a line of its hover text)."""
    spots = [(round(x, 2), round(y, 2)) for x, y in points]
    return [
        ", ".join(n for j, n in enumerate(names) if j != i and spots[j] == spot)
        for i, spot in enumerate(spots)
    ]


def undrawn_trace(label: str, name: str, why: str) -> Any:
    """A legend item (no point) for an entry whose value is undefined, with why."""
    return _go().Scatter(
        x=[None],
        y=[None],
        mode="markers",
        name=f"{text(name)} — {text(why)}: not drawn",
        legendgroup=label,
        meta={"entry": label, "colour": plot_colour(label), "undefined": why},
        # an open symbol is drawn in the marker's colour: the entry's, so the legend shows it
        marker={"color": plot_colour(label), "symbol": "x-thin-open", "size": 10, "line": {"width": 2}},
        hoverinfo="skip",
    )


def interval_scatter(
    results: Sequence[TaskResult],
    x: tuple[str, str, str],
    y: tuple[str, str, str],
    *,
    undrawn: str,
    empty: str,
    height: int,
) -> Any:
    """Two scores of each entry against each other, ``x`` and ``y`` each (score key, hover
    name, axis title), with 95% intervals as error bars; points at one place are rings of
    decreasing size; an entry missing either score is named in the legend as not drawn
    (``undrawn`` says why), never put at 0."""
    go = _go()
    pts, missing = [], []
    for r, name in zip(results, plot_names(results), strict=True):
        a, b = interval(r.scores.get(x[0])), interval(r.scores.get(y[0]))
        (pts if a is not None and b is not None else missing).append((r, name, a, b))
    if not pts:
        return plot_empty(empty)
    fig = go.Figure()
    xy = [(a[0], b[0]) for _, _, a, b in pts]
    for (r, name, a, b), size, also in zip(
        pts, point_sizes(xy), same_spot(xy, [r.model.label for r, *_ in pts]), strict=True
    ):
        label, colour = r.model.label, plot_colour(r.model.label)
        hover = f"<b>{text(label)}</b><br>{x[1]} {fmt_interval(*a)}<br>{y[1]} {fmt_interval(*b)}" + (
            f"<br>same point as: {text(also)}" if also else ""
        )
        bars = {"type": "data", "symmetric": False, "color": colour, "thickness": 1, "width": 2}
        fig.add_trace(
            go.Scatter(
                x=[a[0]], y=[b[0]], mode="markers", name=text(name), legendgroup=label,
                meta={"entry": label, "colour": colour}, opacity=0.85,
                marker={"color": colour, "symbol": plot_symbol(label), "size": size,
                        "line": {"color": PAPER, "width": 1}},
                error_x={**bars, "array": [a[2] - a[0]], "arrayminus": [a[0] - a[1]]},
                error_y={**bars, "array": [b[2] - b[0]], "arrayminus": [b[0] - b[1]]},
                hovertext=[hover], hoverinfo="text",
            )
        )  # fmt: skip
    for r, name, _, _ in missing:
        fig.add_trace(undrawn_trace(r.model.label, name, undrawn))
    fig.update_xaxes(title_text=x[2], range=[-0.02, 1.02])
    fig.update_yaxes(title_text=y[2], range=[-0.02, 1.02])
    return card(fig, height, legend_rows=len(pts) + len(missing))
