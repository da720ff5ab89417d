"""How ICAT results look: the β-sweep table and plot, factuality vs coverage, a trace's claims.

Everything here reads result files and traces; nothing calls a model.  Strings in
traces come from submitted answers and are untrusted: the drill-down HTML is built from
``html.escape``-d text only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families.views import first_number


def _variant_name(curve: str) -> str:
    return curve.removesuffix("_beta").upper().replace("_", "-")


def beta_table(result: TaskResult) -> Table:
    table = Table(
        title=Text(
            f"ICAT_β sweep — {result.model.label} on {result.task.id} (β<1 favours factuality, β>1 coverage)"
        )
    )
    curves = {k: v for k, v in result.curves.items() if k.endswith("_beta")}
    betas = next(iter(curves.values()), {}).keys()
    table.add_column("β", justify="right")
    for name in curves:
        table.add_column(_variant_name(name), justify="right")
    for b in betas:
        table.add_row(b, *["—" if curves[c].get(b) is None else f"{curves[c][b]:.3f}" for c in curves])
    return table


def beta_figure(results: Sequence[TaskResult], variant: str | None = None) -> Any:
    """ICAT_β against β, one line per (result, variant); ``variant`` picks one."""
    keys = [f"icat_{variant}_beta"] if variant else None
    styles = ("-", "--", ":")
    lines = []
    for i, (r, name) in enumerate(zip(results, figures.entry_labels(results), strict=True)):
        curves = [
            (k, c)
            for k, c in r.curves.items()
            if k.endswith("_beta") and (keys is None or k in keys) and any(v is not None for v in c.values())
        ]
        for j, (k, c) in enumerate(curves):
            label = name if variant else f"{name} {_variant_name(k)}"
            lines.append(
                (label, c, figures.entry_colour(r, i), styles[j % len(styles)], figures.entry_marker(r, i))
            )
    if not lines:
        return figures.empty_figure("no ICAT β sweep for this selection")
    labels = [line[0] for line in lines]
    fig, ax = figures.new_figure(6.4, 3.6 + figures.legend_height(labels))
    for label, curve, col, style, mark in lines:
        pts = sorted((float(b), v) for b, v in curve.items() if v is not None)
        ax.plot(
            [b for b, _ in pts], [v for _, v in pts], marker=mark, markersize=4, color=col, linestyle=style,
            label=label,
        )  # fmt: skip
    ax.set_xlabel("β (<1 favours factuality, >1 coverage)")
    ax.set_ylabel("ICAT_β" if not variant else f"ICAT-{variant.upper()}_β")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("ICAT_β sweep")
    ax.grid(alpha=0.3)
    figures.legend_below(fig, labels)
    return fig


def scatter_figure(results: Sequence[TaskResult], variant: str | None = None) -> Any:
    """S_fact against S_coverage of one variant (ICAT-M by default), a point per result."""
    variant = variant or "m"
    pts = []
    for i, (r, name) in enumerate(zip(results, figures.entry_labels(results), strict=True)):
        f, c = r.scores.get("s_fact"), r.scores.get(f"s_coverage_{variant}")
        if f is not None and c is not None and f.value is not None and c.value is not None:
            pts.append((name, f.value, c.value, i, r))
    if not pts:
        return figures.empty_figure(f"no S_fact / S_coverage-{variant.upper()} scores for this selection")
    labels = [p[0] for p in pts]
    fig, ax = figures.new_figure(6.4, 3.6 + figures.legend_height(labels))
    for name, f, c, i, r in pts:  # see-through, edged: a point on another still shows
        ax.scatter(
            [f], [c], color=figures.entry_colour(r, i), marker=figures.entry_marker(r, i), s=48, label=name,
            alpha=0.8, edgecolors="white", linewidths=0.8,
        )  # fmt: skip
    ax.set_xlabel("S_fact (share of claims grounded)")
    ax.set_ylabel(f"S_coverage-{variant.upper()}\n(share of aspects covered)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Factuality vs coverage")
    ax.grid(alpha=0.3)
    figures.legend_below(fig, labels)
    return fig


def trace_html(tr: dict[str, Any]) -> str:
    """Claims, their evidence passages and covered aspects; every string escaped."""
    e = html.escape
    aspects = {str(a["aspect_id"]): a["text"] for a in tr.get("aspects", [])}
    generated = {str(a["aspect_id"]): a["text"] for a in tr.get("generated_aspects", [])}
    parts = [
        f"<h3>Query {e(str(tr.get('query_id', '')))}: {e(str(tr.get('query', '')))}</h3>",
        f"<details open><summary>Answer</summary><p class='gc-answer'>{e(str(tr.get('answer', '')))}</p></details>",
    ]
    dropped = {
        k: v for k, v in tr.get("counts", {}).items() if k in ("claims_too_short", "claims_truncated") and v
    }
    if dropped:
        parts.append(
            "<p><i>Claims left out: " + e(", ".join(f"{k} {v}" for k, v in dropped.items())) + "</i></p>"
        )
    parts.append(f"<ol class='gc-claims' start='{first_number(tr, 'claims')}'>")
    for c in tr.get("claims", []):
        verdict = "undetermined" if c.get("failed") else ("grounded" if c.get("grounded") else "not grounded")
        covered = []
        for v, table in (("m", aspects), ("s", aspects), ("a", generated)):
            ids = c.get(f"aspects_{v}") or []
            if ids:
                covered.append(
                    f"ICAT-{v.upper()}: "
                    + ", ".join(f"{e(str(i))} ({e(str(table.get(str(i), '?')))})" for i in ids)
                )
        parts.append(
            f"<li class='gc-claim'><b>{e(str(c.get('text', '')))}</b> — <i>{e(verdict)}</i>"
            + (f"<br>covers: {'; '.join(covered)}" if covered else "<br>covers: none")
        )
        passages = c.get("passages", [])
        supported = sum(1 for p in passages if p.get("supported"))
        # the evidence collapsed under each claim: a trace reads as its claims first
        parts.append(
            f"<details class='gc-passages'><summary>{len(passages)} passage{'s' if len(passages) != 1 else ''}"
            f" ({supported} supporting)</summary><ul>"
        )
        for p in c.get("passages", []):
            mark = "✔ " if p.get("supported") else ""
            support = p.get("support")
            parts.append(
                f"<li class='gc-passage'>{mark}{e(str(p.get('passage_id', '')))} (rank {e(str(p.get('rank', '')))}, "
                f"support {e('—' if support is None else f'{float(support):.2f}')}): {e(str(p.get('text', '')))}</li>"
            )
        parts.append("</ul></details></li>")
    parts.append("</ol>")
    return "".join(parts)


# ---------------------------------------------------------------------------------
# Interactive figures (the Space): the same two, in Plotly
# ---------------------------------------------------------------------------------


DASHES = ("solid", "dash", "dot")


def beta_plot(results: Sequence[TaskResult], variant: str | None = None) -> Any:
    """ICAT_β against β, a line per (entry, variant); an undefined value is a gap."""
    go = figures._go()
    keys = [f"icat_{variant}_beta"] if variant else None
    fig = go.Figure()
    items = 0
    for r, name in zip(results, figures.plot_names(results), strict=True):
        label = r.model.label
        curves = [(k, c) for k, c in r.curves.items() if k.endswith("_beta") and (keys is None or k in keys)]
        drawn = [(k, c) for k, c in curves if any(v is not None for v in c.values())]
        if not drawn:
            fig.add_trace(figures.undrawn_trace(label, name, "no ICAT_β value"))
            items += 1
            continue
        for j, (k, c) in enumerate(drawn):
            pts = sorted((float(b), v) for b, v in c.items())
            shown = name if variant else f"{name} {_variant_name(k)}"
            fig.add_trace(
                go.Scatter(
                    x=[b for b, _ in pts],
                    y=[v for _, v in pts],  # None: a gap, never a point at 0
                    mode="lines+markers",
                    connectgaps=False,
                    name=figures.text(shown),
                    legendgroup=label,
                    meta={"entry": label, "colour": figures.plot_colour(label), "series": _variant_name(k)},
                    opacity=0.85,
                    line={"color": figures.plot_colour(label), "dash": DASHES[j % len(DASHES)], "width": 2},
                    marker={"symbol": figures.plot_symbol(label), "size": 7},
                    hovertext=[
                        f"<b>{figures.text(label)}</b><br>{_variant_name(k)}_β at β = {b:g}: "
                        + ("undefined" if v is None else f"{v:.3f}")
                        for b, v in pts
                    ],
                    hoverinfo="text",
                )
            )
            items += 1
    if not items:
        return figures.plot_empty("no ICAT β sweep for this selection")
    fig.update_xaxes(title_text="β (<1 favours factuality, >1 coverage)")
    fig.update_yaxes(title_text="ICAT_β" if not variant else f"ICAT-{variant.upper()}_β", range=[-0.02, 1.02])
    return figures.card(fig, 380, legend_rows=items)


def scatter_plot(results: Sequence[TaskResult], variant: str | None = None) -> Any:
    """S_fact against S_coverage of one variant (ICAT-M's by default), a point per entry."""
    v = (variant or "m").upper()
    return figures.interval_scatter(
        results,
        ("s_fact", "S_fact", "S_fact (share of claims grounded)"),
        (f"s_coverage_{v.lower()}", f"S_coverage-{v}", f"S_coverage-{v} (aspects covered)"),
        undrawn="a score undefined",
        empty=f"no S_fact / S_coverage-{v} scores for this selection",
        height=400,
    )


#: the figures by title (matplotlib, Plotly), each of the results and the variant chosen
#: (all variants, or ICAT-M's scatter, when none is)
FIGURES = {"beta sweep": (beta_figure, beta_plot), "factuality vs coverage": (scatter_figure, scatter_plot)}


def print_results(results: Sequence[TaskResult], console: Any) -> None:
    """Each result's β sweep, after the common table."""
    for r in results:
        if r.curves:
            console.print(beta_table(r))
