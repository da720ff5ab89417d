"""How argument-quality results look: the radar of dimensions, and one argument's drill-down.

Nothing here calls a model.  Arguments, evidence and judge replies are untrusted text:
the drill-down HTML is built from ``html.escape``-d text only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families.arguments.formulas import DIMENSIONS, QUALITY_SCALE, TOP_LEVEL
from benchmark.families.views import error_bars, first_number


def top_level(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Overall quality and cogency, effectiveness and reasonableness (1-3, 95% CI) per
    entry: the four numbers a reader compares first, before the 15-axis radar."""

    rows = [
        (name, r)
        for r, name in zip(results, figures.entry_labels(results), strict=True)
        if any((s := r.scores.get(d)) is not None and s.value is not None for d in TOP_LEVEL)
    ]
    if not rows:
        return figures.empty_figure("no argument-quality results")
    fig, ax = figures.new_figure(6.4, 1.2 + 0.6 * len(rows) + figures.LEGEND_ROW_IN)
    step = 0.6 / len(TOP_LEVEL)
    for j, d in enumerate(TOP_LEVEL):  # points, not bars: a rating of 1 is not an empty bar
        # not rated: no point, never one at the minimum
        rated = [(i, s) for i, (_, r) in enumerate(rows) if figures.interval(s := r.scores.get(d))]
        ys = [i + (j - (len(TOP_LEVEL) - 1) / 2) * step for i, _ in rated]
        xs, err = error_bars([s for _, s in rated])
        ax.errorbar(
            xs, ys, xerr=err, fmt=figures.MARKERS[j], color=figures.colour(j), capsize=2,
            label=d.replace("_", " "),
        )  # fmt: skip
    ax.set_yticks(range(len(rows)), [figures.stacked(name) for name, _ in rows])
    ax.set_xlim(QUALITY_SCALE[0] - 0.1, QUALITY_SCALE[1] + 0.1)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xticks(range(QUALITY_SCALE[0], QUALITY_SCALE[1] + 1))
    ax.set_xlabel("rating (1-3, 95% CI)")
    ax.grid(axis="x", alpha=0.3)
    figures.legend_below(fig, [], columns=len(TOP_LEVEL))
    return fig


def radar(results: Sequence[TaskResult], option: str | None = None, most: int = 6) -> Any:
    """The 15 dimensions (1-3) of up to ``most`` entries on one radar; a dimension no judge
    rated is left out of the entry's polygon (a gap), not drawn at the minimum."""
    import numpy as np

    named = [
        (name, r)
        for r, name in zip(results, figures.entry_labels(results), strict=True)
        if any((s := r.scores.get(d)) and s.value is not None for d in DIMENSIONS)
    ][:most]
    if not named:
        return figures.empty_figure("no argument-quality results")
    angles = np.linspace(0, 2 * np.pi, len(DIMENSIONS), endpoint=False)
    fig, ax = figures.new_figure(
        6.4,
        6.0 + figures.legend_height([name for name, _ in named]),
        subplot_kw={"projection": "polar"},
    )
    for i, (name, r) in enumerate(named):
        values = np.array(
            [
                s.value if (s := r.scores.get(d)) is not None and s.value is not None else np.nan
                for d in DIMENSIONS
            ]
        )
        closed_a, closed_v = np.append(angles, angles[0]), np.append(values, values[0])
        ax.plot(closed_a, closed_v, marker="o", markersize=3, color=figures.entry_colour(r, i), label=name)
        ax.fill(
            angles[~np.isnan(values)], values[~np.isnan(values)], color=figures.entry_colour(r, i), alpha=0.08
        )
    ax.set_xticks(angles)
    ax.set_xticklabels([d.replace("_", "\n") for d in DIMENSIONS], fontsize=7)
    ax.set_ylim(QUALITY_SCALE[0] - 0.2, QUALITY_SCALE[1])
    ax.set_yticks([1, 2, 3])
    figures.legend_below(fig, [name for name, _ in named])
    return fig


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _judge_html(name: str, rec: dict[str, Any]) -> str:
    parsed = rec.get("parsed", {})
    rows = []
    for key, value in parsed.items():
        if key in ("samples",):
            for i, sample in enumerate(value, start=1):
                rows.append(f"<li>order {i}: {_esc(sample)}</li>")
        else:
            rows.append(f"<li>{_esc(key)}: {_esc(value)}</li>")
    fails = "".join(f"<li>failure: {_esc(f)}</li>" for f in rec.get("failures", []))
    raw = "".join(f"<pre>{_esc(r)}</pre>" for r in rec.get("raw", []))
    return (
        f"<details><summary><b>{_esc(name)}</b> ({_esc(rec.get('prompt', ''))}){' · failed parts' if fails else ''}"
        f"</summary><ul>{''.join(rows)}{fails}</ul><details><summary>raw replies</summary>{raw}</details></details>"
    )


def trace_html(trace: dict[str, Any]) -> str:
    cited = set(trace.get("cited", []))
    parts = [
        f"<p><b>topic</b> {_esc(trace.get('topic', ''))} · <b>stance</b> {_esc(trace.get('stance', ''))}</p>",
        f"<p><b>argument</b></p><pre style='white-space:pre-wrap'>{_esc(trace.get('answer', ''))}</pre>",
        f"<p><b>evidence</b> ({_esc(trace.get('evidence_source', 'none'))})</p><ol start='{first_number(trace, 'evidence')}'>",
    ]
    for doc in trace.get("evidence", []):
        mark = " · <b>cited</b>" if doc.get("doc_id") in cited else ""
        parts.append(
            f"<li><code>{_esc(doc.get('doc_id', ''))}</code>{mark}: {_esc(doc.get('text', '')[:400])}</li>"
        )
    parts.append("</ol>")
    if trace.get("reference_id"):
        parts.append(
            f"<p>pairwise judges compared it with the human argument <code>{_esc(trace['reference_id'])}</code></p>"
        )
    for name, rec in trace.get("judges", {}).items():
        parts.append(_judge_html(name, rec))
    return "".join(parts)


SHAPES = ("circle", "square", "diamond", "triangle-up")


def top_level_plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Overall quality, cogency, effectiveness and reasonableness (1-3, 95% CI) per entry in
    the board's order: the four sit apart in the entry's row, each its own shape, in the
    entry's colour; a dimension not rated reads "undefined", never the minimum."""
    rows = [r for r in results if any(figures.interval(r.scores.get(d)) for d in TOP_LEVEL)]
    if not rows:
        return figures.plot_empty("no argument-quality results")
    series = [
        figures.Series(d, d.replace("_", " "), symbol=SHAPES[j % len(SHAPES)])
        for j, d in enumerate(TOP_LEVEL)
    ]
    return figures.forest(
        rows, series, ["rating"], x_range=(float(QUALITY_SCALE[0]), float(QUALITY_SCALE[1])),
        x_title="rating (1-3, 95% CI)", undefined="not rated",
    )  # fmt: skip


def radar_plot(results: Sequence[TaskResult], option: str | None = None, most: int = 6) -> Any:
    """The 15 dimensions (1-3) of up to ``most`` entries on one radar, in the board's order; a
    dimension no judge rated is a gap in the entry's outline, not a point at the minimum."""
    go = figures._go()
    rows = [r for r in results if any(figures.interval(r.scores.get(d)) for d in DIMENSIONS)][:most]
    if not rows:
        return figures.plot_empty("no argument-quality results")
    fig = go.Figure()
    theta = [d.replace("_", " ") for d in DIMENSIONS]
    for r, name in zip(rows, figures.plot_names(rows), strict=True):
        label = r.model.label
        values = [s[0] if (s := figures.interval(r.scores.get(d))) else None for d in DIMENSIONS]
        fig.add_trace(
            go.Scatterpolar(
                r=[*values, values[0]], theta=[*theta, theta[0]], mode="lines+markers", connectgaps=False,
                name=figures.text(name), legendgroup=label, meta={"entry": label, "colour": figures.plot_colour(label)}, opacity=0.85,
                line={"color": figures.plot_colour(label), "width": 2},
                marker={"symbol": figures.plot_symbol(label), "size": 6},
                hovertext=[
                    f"<b>{figures.text(label)}</b><br>{t}: " + ("not rated" if v is None else f"{v:.3f}")
                    for t, v in zip([*theta, theta[0]], [*values, values[0]], strict=True)
                ],
                hoverinfo="text",
            )
        )  # fmt: skip
    fig.update_layout(
        polar={
            "radialaxis": {"range": [QUALITY_SCALE[0] - 0.2, QUALITY_SCALE[1]], "tickvals": [1, 2, 3]},
            "angularaxis": {"tickfont": {"size": 10}},
            "bgcolor": figures.PAPER,
        }
    )
    return figures.card(fig, 460, legend_rows=len(rows))


#: the figures (matplotlib, Plotly) by title
FIGURES = {
    "Overall quality and its three aspects": (top_level, top_level_plot),
    "All 15 dimensions": (radar, radar_plot),
}
