"""How sub-question coverage looks: per-type coverage bars, and one query's sub-questions.

Nothing here calls a model; texts are untrusted and escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families.subq.formulas import TYPES
from benchmark.families.views import trace_head

COLOURS = {"core": "#c44e52", "background": "#4c72b0", "follow-up": "#8c8c8c"}


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Per system, coverage of each sub-question type in the answer and the retrieved chunks."""
    series = [
        (f"{where}_{t.replace('-', '_')}", f"{t} ({where})", COLOURS[t], where == "retrieval")
        for t in TYPES
        for where in ("answer", "retrieval")
    ]
    return figures.bars(
        results,
        series,
        x_label="share of sub-questions covered (95% CI)",
        empty="no sub-question coverage results",
    )


def _mark(v: bool | None) -> str:
    return "?" if v is None else ("✓" if v else "✗")


def trace_html(trace: dict[str, Any]) -> str:
    e = lambda v: html.escape(str(v))  # noqa: E731
    scores = trace.get("scores", {})
    shown = [(t, scores.get(f"answer_{t.replace('-', '_')}")) for t in TYPES]
    parts = [
        trace_head(trace, [*shown, ("hybrid", scores.get("subq_hybrid"))]),
        "<table><tr><th>type</th><th>sub-question</th><th>answer</th><th>retrieved chunks</th></tr>",
    ]
    for s in trace.get("sub_questions", []):
        ans = _mark(s.get("in_answer")) + (f" {s['answer_evidence']}" if s.get("answer_evidence") else "")
        ret = _mark(s.get("in_retrieval")) if trace.get("retrieval_judged") else "not judged"
        if s.get("retrieval_evidence"):
            ret += f" {s['retrieval_evidence']}"
        parts.append(
            f"<tr><td>{e(s.get('type'))}</td><td>{e(s.get('text'))}</td><td>{e(ans)}</td><td>{e(ret)}</td></tr>"
        )
    parts.append("</table>")
    return "".join(parts)


def plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Per entry, one panel per sub-question type: coverage in the answer and the chunks."""
    rows = [r for r in results if any(r.scores.get(f"answer_{t.replace('-', '_')}") for t in TYPES)]
    if not rows:
        return figures.plot_empty("no sub-question coverage results")
    judged = any(
        figures.interval(r.scores.get(f"retrieval_{t.replace('-', '_')}")) is not None
        for r in rows
        for t in TYPES
    )
    series = []
    for j, t in enumerate(TYPES):
        key = t.replace("-", "_")
        series.append(figures.Series(f"answer_{key}", "in the answer", panel=j))
        if judged:
            series.append(figures.Series(f"retrieval_{key}", "in the retrieved chunks", panel=j, hollow=True))
    return figures.forest(
        rows, series, list(TYPES), x_range=(0.0, 1.0), x_title="share of sub-questions covered (95% CI)",
        undefined="not judged",
    )  # fmt: skip


#: the figure (matplotlib, Plotly) by title
FIGURES = {"Coverage by sub-question type": (figure, plot)}
