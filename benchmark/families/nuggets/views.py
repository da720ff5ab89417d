"""How nugget scores look: vital against all, strict against partial; and one query's nuggets.

Nothing here calls a model; texts are untrusted and escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families.views import trace_head

BARS = (  # (score, label, colour, hatched)
    ("vital_strict", "vital, strict", "#c44e52", False),
    ("vital_partial", "vital, partial ½", "#c44e52", True),
    ("all_strict", "all, strict", "#4c72b0", False),
    ("all_partial", "all, partial ½", "#4c72b0", True),
)


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Per system, the four nugget scores with 95% intervals."""
    return figures.bars(
        results, BARS, x_label="share of nuggets the answer supports (95% CI)", empty="no nugget results"
    )


MARKS = {
    "support": "✓ support",
    "partial_support": "◐ partial",
    "not_support": "✗ not supported",
    None: "? failed",
}


def trace_html(trace: dict[str, Any]) -> str:
    e = lambda v: html.escape(str(v))  # noqa: E731
    scores = trace.get("scores", {})
    parts = [trace_head(trace, [(label, scores.get(k)) for k, label, *_ in BARS])]
    if trace.get("nuggetizer_compatible"):
        parts.append(
            "<p>Scored nuggetizer-compatible: 0 where the topic has no vital nugget (or none), importance "
            "'failed' counted as okay, as nuggetizer's calculate_metrics.py.</p>"
        )
    if not trace.get("partial_level", True):
        parts.append("<p>This judge has no partial level: partial scores equal strict ones.</p>")
    parts.append(
        "<table><tr><th>importance</th><th>nugget</th><th>assignment</th><th>answer sentence</th></tr>"
    )
    for n in trace.get("nuggets", []):
        parts.append(
            f"<tr><td>{e(n.get('importance'))}</td><td>{e(n.get('text'))}</td>"
            f"<td>{e(MARKS.get(n.get('assignment'), n.get('assignment')))}</td><td>{e(n.get('evidence') or '')}</td></tr>"
        )
    parts.append("</table>")
    return "".join(parts)


def plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Per entry, vital against all nuggets in two panels, strict beside partial credit."""
    rows = [r for r in results if any(figures.interval(r.scores.get(k)) for k, *_ in BARS)]
    if not rows:
        return figures.plot_empty("no nugget results")
    series = [
        figures.Series("vital_strict", "strict", panel=0),
        figures.Series("vital_partial", "partial ½", panel=0, hollow=True),
        figures.Series("all_strict", "strict", panel=1),
        figures.Series("all_partial", "partial ½", panel=1, hollow=True),
    ]
    return figures.forest(
        rows, series, ["vital nuggets", "all nuggets"], x_range=(0.0, 1.0),
        x_title="share of nuggets the answer supports (95% CI); filled: strict, hollow: partial ½",
    )  # fmt: skip


#: the figure (matplotlib, Plotly) by title
FIGURES = {"Vital and all nuggets, strict and partial": (figure, plot)}
