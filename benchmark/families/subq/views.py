"""How sub-question coverage looks: per-type coverage bars, and one query's sub-questions.

Nothing here calls a model; texts are untrusted and escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.core.stats import fmt_score
from benchmark.families.subq.formulas import TYPES

COLOURS = {"core": "#c44e52", "background": "#4c72b0", "follow-up": "#8c8c8c"}


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Per system, coverage of each sub-question type in the answer (solid) and in the
    retrieved chunks (hatched, where judged), with 95% intervals."""
    rows = [r for r in results if any(r.scores.get(f"answer_{t.replace('-', '_')}") for t in TYPES)]
    if not rows:
        return figures.empty_figure("no sub-question coverage results")
    import numpy as np

    fig, ax = figures.new_figure(7.5, 1.3 + 0.9 * len(rows) + figures.LEGEND_ROW_IN * 2)
    height = 0.13
    named: set[tuple[str, str]] = set()  # each (type, where) named once in the legend
    for i, r in enumerate(rows):
        for j, t in enumerate(TYPES):
            for k, where in enumerate(("answer", "retrieval")):
                s = r.scores.get(f"{where}_{t.replace('-', '_')}")
                if s is None or s.value is None:
                    continue
                y = i + (j * 2 + k - 2.5) * height
                err = np.array([[s.value - (s.ci_low or s.value)], [(s.ci_high or s.value) - s.value]])
                ax.barh(
                    y, s.value, height=height * 0.9, xerr=err, color=COLOURS[t], hatch="//" if k else None,
                    alpha=0.6 if k else 1.0, capsize=2, label=f"{t} ({where})" if (t, where) not in named else None,
                )  # fmt: skip
                named.add((t, where))
    ax.set_yticks(range(len(rows)), [figures.stacked(n) for n in figures.entry_labels(rows)])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("share of sub-questions covered (95% CI)")
    figures.legend_below(fig, [], columns=3)
    return fig


def _mark(v: bool | None) -> str:
    return "?" if v is None else ("✓" if v else "✗")


def trace_html(trace: dict[str, Any]) -> str:
    e = lambda v: html.escape(str(v))  # noqa: E731
    scores = trace.get("scores", {})
    parts = [
        f"<p><b>query</b> {e(trace.get('query', ''))}</p>",
        "<p>"
        + " · ".join(f"{e(t)} {fmt_score(scores.get('answer_' + t.replace('-', '_')))}" for t in TYPES)
        + f" · hybrid {fmt_score(scores.get('subq_hybrid'))}</p>",
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
    """Per entry (the board's order), one panel per sub-question type: coverage in the answer
    (filled) and, where judged, in the retrieved chunks (hollow), with 95% intervals."""
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
