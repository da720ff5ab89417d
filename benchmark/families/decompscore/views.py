"""How DecompScore results look: a methods table, a bar plot, examples side by side, a trace.

Nothing here calls a model.  Texts in traces come from submitted answers or user files
and are untrusted: the drill-down HTML is built from ``html.escape``-d text only.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.core.stats import fmt_score
from benchmark.families.views import error_bars

TABLE_KEYS = (
    ("decompscore", "DecompScore"),
    ("decompscore_nli", "DecompScore-NLI"),
    ("coherence", "coherence"),
    ("subclaims_per_unit", "subclaims/unit"),
    ("s_fact_all", "S_fact all"),
    ("s_fact_coherent", "S_fact supported only"),
    ("s_fact_change", "Δ S_fact"),
)


def method_name(result: TaskResult) -> str:
    return result.model.id.removeprefix("decomposer/")


def comparison_table(results: Sequence[TaskResult]) -> Table:
    """One row per method: each score with its interval over passages."""
    keys = [(k, label) for k, label in TABLE_KEYS if any(k in r.scores for r in results)]
    table = Table(title=Text("claim decomposition methods (means over passages, 95% CI)"))
    table.add_column("method")
    for _, label in keys:
        table.add_column(label, justify="right")
    table.add_column("failed", justify="right")
    for r in results:
        cells = [fmt_score(s.value, s.ci_low, s.ci_high) if (s := r.scores.get(k)) else "—" for k, _ in keys]
        table.add_row(Text(method_name(r)), *cells, str(sum(q.failed for q in r.per_query)))
    return table


def side_by_side(traces: Mapping[str, Sequence[dict[str, Any]]], n_units: int = 3) -> Table:
    """The first ``n_units`` source units with each method's subclaims side by side."""
    methods = list(traces)
    table = Table(title=Text("examples: the same sentences, decomposed by each method"), show_lines=True)
    table.add_column("source")
    for m in methods:
        table.add_column(m)
    first = next(iter(traces.values()), [])
    units = [(qi, ui) for qi, t in enumerate(first) for ui in range(len(t.get("units", [])))][:n_units]
    for qi, ui in units:
        row = []
        for m in methods:
            try:
                unit = traces[m][qi]["units"][ui]
            except (IndexError, KeyError):
                row.append("—")
                continue
            row.append(unit_text(unit))
        source = first[qi]["units"][ui]["source"]
        table.add_row(Text(source), *(Text(c) for c in row))
    return table


def _mark(sub: dict[str, Any]) -> str:
    support = sub.get("support")
    return "?" if support is None else ("✓" if support >= 0.5 else "✗")


def unit_text(unit: dict[str, Any]) -> str:
    if unit.get("error"):
        return f"(failed: {unit['error']})"
    return "\n".join(f"{_mark(s)} {s['text']}" for s in unit.get("subclaims", [])) or "(no subclaims)"


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """DecompScore per method with its interval, coherence written next to each bar."""
    rows = [(method_name(r), r.scores.get("decompscore"), r.scores.get("coherence")) for r in results]
    rows = sorted(
        [(m, s, c) for m, s, c in rows if s is not None and s.value is not None], key=lambda r: -r[1].value
    )
    if not rows:
        return figures.empty_figure("no DecompScore results")
    fig, ax = figures.new_figure(6.4, 1.0 + 0.4 * len(rows))
    values, err = error_bars([s for _, s, _ in rows])
    ax.barh([m for m, _, _ in rows], values, xerr=err, color="#4c9a6a", capsize=3)
    for y, (_, s, c) in enumerate(rows):  # right of the interval, so the two never overlap
        note = f"  coherence {c.value:.2f}" if c is not None and c.value is not None else ""
        ax.text(s.ci_high if s.ci_high is not None else s.value, y, note, va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max((s.ci_high or s.value) for _, s, _ in rows) * 1.35)
    ax.set_xlabel("DecompScore: supported subclaims per passage (95% CI)")
    return fig


def trace_html(trace: dict[str, Any]) -> str:
    parts = [
        f"<p><b>text</b> {html.escape(str(trace.get('query', '')))}</p>"
        f"<p><b>method</b> {html.escape(str(trace.get('method', {}).get('method', '?')))}"
        f" · {html.escape(str(trace.get('granularity', '')))} by {html.escape(str(trace.get('granularity', '')))}</p>"
    ]
    for unit in trace.get("units", []):
        parts.append(f"<p><i>{html.escape(unit.get('source', ''))}</i></p><ul>")
        if unit.get("error"):
            parts.append(f"<li>failed: {html.escape(str(unit['error']))}</li>")
        for s in unit.get("subclaims", []):
            extra = ""
            if s.get("grounded") is not None:
                extra = " · grounded in the corpus" if s["grounded"] else " · not grounded in the corpus"
            parts.append(f"<li>{_mark(s)} {html.escape(s.get('text', ''))}{html.escape(extra)}</li>")
        parts.append("</ul>")
    return "".join(parts)


def plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """DecompScore per method with its interval, in the board's rank order (not by value:
    the paired test ranks, and two methods can share a rank); coherence in the hover."""
    rows = [r for r in results if figures.interval(r.scores.get("decompscore")) is not None]
    if not rows:
        return figures.plot_empty("no DecompScore results")
    notes = [
        f"coherence {c.value:.3f}"
        if (c := r.scores.get("coherence")) is not None and c.value is not None
        else "coherence undefined"
        for r in rows
    ]
    return figures.forest(
        rows, [figures.Series("decompscore", "DecompScore")], ["DecompScore"],
        names=[method_name(r) for r in rows], notes=notes,
        x_title="DecompScore: supported subclaims per passage (95% CI)",
    )  # fmt: skip


#: the figure (matplotlib, Plotly) by title
FIGURES = {"DecompScore by method": (figure, plot)}
