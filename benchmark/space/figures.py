"""The Space's figures: the family's Plotly figures of the filtered board in rank order, their
caption, and a light sketch of the landing figure until Plotly draws it."""

from __future__ import annotations

import html
import math
import re
from typing import Any

from benchmark.board.leaderboard import Leaderboard
from benchmark.core import figures
from benchmark.core.errors import printable
from benchmark.families import REGISTRY, views
from benchmark.space.table import Filters, rows_shown


def select_results(lb: Leaderboard, family_id: str, flt: Filters) -> list[Any]:
    """The results shown by the filters, in the table's order (rank order, references last)."""
    df = rows_shown(lb, family_id, flt)
    order = {key: n for n, key in enumerate(zip(df.get("model", []), df.get("board_id", []), strict=False))}
    mine = [
        e for e in lb.entries if (e.model_label, e.board_id) in order and e.result.metric_family == family_id
    ]
    return [e.result for e in sorted(mine, key=lambda e: order[(e.model_label, e.board_id)])]


def figure_caption(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """The entries the figures are drawn for, named as the figures name them (escaped), in
    their colours."""
    results = select_results(lb, family_id, flt)
    if not results:
        return "<p class='gc-figcaption'>Figures: no results match.</p>"
    names = figures.plot_names(results)  # as the figures name them
    items = "".join(
        f"<li data-entry='{html.escape(r.model.label, quote=True)}' "
        f"title='{html.escape(printable(r.model.label), quote=True)}'>"
        f"<span class='gc-swatch' style='background:{figures.plot_colour(r.model.label)}'></span>"
        f"{html.escape(printable(names[i]))}" + (" [reference]" if _is_ref(lb, r) else "") + "</li>"
        for i, r in enumerate(results)
    )
    return f"<div class='gc-figcaption'>Figures drawn for {len(results)} entries, in rank order:<ul>{items}</ul></div>"


def _is_ref(lb: Leaderboard, result: Any) -> bool:
    return any(e.result is result and e.is_reference for e in lb.entries)


def family_plots(lb: Leaderboard, family_id: str, option: str | None, flt: Filters) -> dict[str, Any]:
    """The family's Plotly figures for the selection, by title (:func:`zoom_to_models`)."""
    results = select_results(lb, family_id, flt)
    references = {r.model.label for r in results if _is_ref(lb, r)}
    return {
        t: zoom_to_models(f, references) for t, f in views.plots(REGISTRY[family_id], results, option).items()
    }


def family_figures(
    lb: Leaderboard, family_id: str, option: str | None, titles: list[str], flt: Filters
) -> list[Any]:
    """One figure per title the tab was built with (one that says so where nothing is drawn)."""
    plots = family_plots(lb, family_id, option, flt)
    return [plots[t] if t in plots else figures.plot_empty("no results match the filters") for t in titles]


#: a scatter whose models span less than this share of an axis's range is drawn zoomed to them
CROWDED = 0.4
#: room around the models in a zoomed view, as a share of their own span (at least 0.02)
PAD = 0.12


def zoom_to_models(fig: Any, references: set[str]) -> Any:
    """A scatter of entries (one point, with its error bars, each) opens zoomed to its models
    where they span less than :data:`CROWDED` of an axis (a dozen small models at 0.1–0.3 and a
    ceiling check at 1.0); a reference entry left outside is named at the edge, and a
    double-click shows every entry.  Other figures are returned as they are."""
    points: dict[str, list[tuple[float, float, float, float]]] = {"model": [], "reference": []}
    for trace in fig.data:
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if trace.type != "scatter" or "entry" not in meta or trace.xaxis not in (None, "x"):
            continue
        if trace.x is not None and len(trace.x) == 1 and trace.x[0] is None:
            continue  # an entry named in the legend, not drawn (an undefined value)
        if len(trace.x or ()) != 1 or (trace.mode or "") != "markers":
            return fig  # lines, or several points per entry: not a scatter of entries
        x, y = float(trace.x[0]), float(trace.y[0])
        ex, ey = _spread(trace.error_x), _spread(trace.error_y)
        box = (x - ex[1], x + ex[0], y - ey[1], y + ey[0])
        points["reference" if meta["entry"] in references else "model"].append(box)
    if not points["model"] or fig.layout.yaxis.tickvals is not None or "xaxis2" in fig.layout:
        return fig
    everything = points["model"] + points["reference"]
    changed = False
    for axis, lo_i, hi_i in (("xaxis", 0, 1), ("yaxis", 2, 3)):
        fixed = getattr(fig.layout, axis).range
        full = tuple(fixed) if fixed else (min(b[lo_i] for b in everything), max(b[hi_i] for b in everything))
        lo, hi = min(b[lo_i] for b in points["model"]), max(b[hi_i] for b in points["model"])
        span = full[1] - full[0]
        if span <= 0 or (hi - lo) >= CROWDED * span:
            continue
        pad = max(0.02, PAD * (hi - lo))
        getattr(fig.layout, axis).update(
            range=[max(full[0], lo - pad), min(full[1], hi + pad)], autorange=False
        )
        changed = True
    if not changed:
        return fig
    x0, x1 = fig.layout.xaxis.range or (None, None)
    y0, y1 = fig.layout.yaxis.range or (None, None)
    for trace in fig.data:
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if meta.get("entry") not in references or not trace.x or trace.x[0] is None:
            continue
        x, y = float(trace.x[0]), float(trace.y[0])
        if (x0 is None or x0 <= x <= x1) and (y0 is None or y0 <= y <= y1):
            continue
        fig.add_annotation(
            x=min(max(x, x0), x1) if x0 is not None else x,
            y=min(max(y, y0), y1) if y0 is not None else y,
            text=f"{trace.name} [reference] at ({x:.2f}, {y:.2f}), off this view →",
            xanchor="right", yanchor="top", showarrow=False, font={"size": 10, "color": figures.MUTED},
        )  # fmt: skip
    fig.add_annotation(
        text="zoomed to the models: double-click for every entry", x=1, y=1, xref="paper", yref="paper",
        xanchor="right", yanchor="bottom", showarrow=False, font={"size": 10, "color": figures.MUTED},
    )  # fmt: skip
    return fig


def _spread(error: Any) -> tuple[float, float]:
    """(above, below) of a one-point error bar; (0, 0) without one."""
    if error is None or error.array is None:
        return 0.0, 0.0
    up = float(error.array[0]) if error.array is not None and len(error.array) else 0.0
    down = float(error.arrayminus[0]) if error.arrayminus is not None and len(error.arrayminus) else up
    return up, down


#: the sketch's width in its own units (it scales to the column; a column is ~600 px at 1366)
SKETCH_WIDTH = 600


def sketch(fig: Any) -> str | None:
    """A light SVG of a figure of lines and points on one pair of linear axes (no intervals or
    notes), shown until Plotly has loaded and drawn it; ``None`` for any other figure."""
    lay = fig.layout
    if not fig.data or any(t.type != "scatter" or t.xaxis not in (None, "x") for t in fig.data):
        return None
    if "xaxis2" in lay or lay.xaxis.type not in (None, "-", "linear") or lay.yaxis.tickvals is not None:
        return None
    if lay.annotations or any(t.error_x.array is not None or t.error_y.array is not None for t in fig.data):
        return None  # notes and intervals: what a sketch would leave out
    pts = [[(x, y) for x, y in zip(t.x or (), t.y or (), strict=False)] for t in fig.data]
    known = [p for trace in pts for p in trace if None not in p]
    if not known or any(not isinstance(v, int | float) for p in known for v in p):
        return None
    width, height, margin = SKETCH_WIDTH, lay.height or 450, lay.margin
    x0, x1, y0, y1 = 64, width - (margin.r or 16), margin.t or 36, height - (margin.b or 56)
    xr = lay.xaxis.range or _padded([p[0] for p in known])
    yr = lay.yaxis.range or _padded([p[1] for p in known])
    sx = lambda v: x0 + (v - xr[0]) / ((xr[1] - xr[0]) or 1) * (x1 - x0)  # noqa: E731
    sy = lambda v: y1 - (v - yr[0]) / ((yr[1] - yr[0]) or 1) * (y1 - y0)  # noqa: E731
    out = [f"<rect class='bg' width='{width}' height='{height}' fill='{figures.PAPER}'/>"]
    for v in _ticks(*xr):
        out.append(f"<line x1='{sx(v):.1f}' x2='{sx(v):.1f}' y1='{y0}' y2='{y1}' stroke='#d8dee4'/>")
        out.append(f"<text x='{sx(v):.1f}' y='{y1 + 16}' text-anchor='middle'>{v:g}</text>")
    for v in _ticks(*yr):
        out.append(f"<line x1='{x0}' x2='{x1}' y1='{sy(v):.1f}' y2='{sy(v):.1f}' stroke='#d8dee4'/>")
        out.append(f"<text x='{x0 - 6}' y='{sy(v) + 4:.1f}' text-anchor='end'>{v:g}</text>")
    out.append(
        f"<text x='{(x0 + x1) / 2}' y='{y1 + 36}' text-anchor='middle'>{_plain(lay.xaxis.title.text)}</text>"
    )
    out.append(
        f"<text transform='translate(14 {(y0 + y1) / 2}) rotate(-90)' text-anchor='middle'>"
        f"{_plain(lay.yaxis.title.text)}</text>"
    )
    rows = 0
    for trace, points in zip(fig.data, pts, strict=True):
        colour = html.escape(
            str((trace.marker.color if trace.marker else None) or trace.line.color or figures.INK)
        )
        mode = trace.mode or "markers"
        run: list[str] = []
        for x, y in [*points, (None, None)]:  # an undefined value ends a line (a gap)
            if x is not None and y is not None:
                run.append(f"{sx(x):.1f},{sy(y):.1f}")
                if "markers" in mode:
                    out.append(f"<circle cx='{sx(x):.1f}' cy='{sy(y):.1f}' r='3.5' fill='{colour}'/>")
            elif run:
                if "lines" in mode:
                    out.append(
                        f"<polyline points='{' '.join(run)}' fill='none' stroke='{colour}' stroke-width='2'/>"
                    )
                run = []
        if lay.showlegend and trace.showlegend is not False:
            y = height - 12 - figures.LEGEND_ROW_PX * (len(fig.data) - 1 - rows)
            out.append(f"<rect x='8' y='{y - 8}' width='24' height='4' fill='{colour}'/>")
            out.append(f"<text x='40' y='{y}' font-size='11'>{_plain(trace.name)}</text>")
            rows += 1
    return (
        f"<svg class='gc-sketch-svg' viewBox='0 0 {width} {height}' width='100%' role='img' "
        f"font-size='12' font-family='system-ui, sans-serif' fill='{figures.INK}'>{''.join(out)}</svg>"
    )


def _plain(text: Any) -> str:
    """Plotly's label markup as escaped plain text (a name, already escaped, shows as it reads)."""
    return html.escape(html.unescape(re.sub(r"<br>|</?[a-z]+[^<>]*>", " ", str(text or ""))))


def _padded(values: list[float]) -> tuple[float, float]:
    pad = (max(values) - min(values)) * 0.05 or 0.5
    return min(values) - pad, max(values) + pad


def _ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round values between ``lo`` and ``hi``, at most ``most`` of them (steps of 1, 2 or 5)."""
    step = 10 ** math.floor(math.log10((hi - lo) / most or 1))
    step *= next(k for k in (1, 2, 5, 10) if (hi - lo) / (step * k) <= most)
    return [round(i * step, 10) for i in range(math.ceil(lo / step), math.floor(hi / step) + 1)]
