"""How EXAM results look: n-EXAM per system with its interval, and one query's exam.

Nothing here calls a model.  Question texts, options and evidence come from task files
or submitted answers and are untrusted: the drill-down is built from escaped text only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.core.stats import fmt_score
from benchmark.families.views import error_bars


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """EXAM and n-EXAM per system (95% CI); n-EXAM's line at 1 is the gold articles."""
    rows = []
    for r, name in zip(results, figures.entry_labels(results), strict=True):
        n, e = r.scores.get("n_exam"), r.scores.get("exam")
        if e is not None and e.value is not None:
            rows.append((figures.stacked(name), e, n))
    if not rows:
        return figures.empty_figure("no EXAM results")

    rows.sort(key=lambda t: -(t[2].value if t[2] is not None and t[2].value is not None else t[1].value))
    has_n = any(n is not None and n.value is not None for _, _, n in rows)
    fig, axes = figures.new_figure(
        9 if has_n else 5.5, 1.0 + 0.4 * len(rows), ncols=2 if has_n else 1, sharey=True
    )
    axes = list(axes) if has_n else [axes]
    for ax, idx, label, colour in ((axes[0], 1, "EXAM (share answered correctly)", "#4c72b0"),) + (
        ((axes[1], 2, "n-EXAM (1 = gold articles)", "#4c9a6a"),) if has_n else ()
    ):
        values, err = error_bars([row[idx] for row in rows])
        ax.barh([row[0] for row in rows], values, xerr=err, color=colour, capsize=3)
        ax.set_xlabel(label)
        if idx == 2:
            ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    axes[0].invert_yaxis()
    return fig


def _verdict(q: dict[str, Any]) -> str:
    if q.get("correct") is None:
        return "failed"
    if q.get("answered") is False:
        return "abstained"
    return "correct" if q["correct"] else "wrong"


def trace_html(trace: dict[str, Any]) -> str:
    e = lambda v: html.escape(str(v))  # noqa: E731
    score = trace.get("scores", {})
    parts = [
        f"<p><b>query</b> {e(trace.get('query', ''))}</p>",
        f"<p>EXAM {fmt_score(score.get('exam'))} · n-EXAM {fmt_score(score.get('n_exam'))} · gold article's EXAM "
        f"{fmt_score(trace.get('gold_exam'))} (mean over {e(trace.get('gold_queries', 0))} queries "
        f"{fmt_score(trace.get('gold_mean'))}) · answerer {e(trace.get('answerer', {}).get('answerer', '?'))}</p>",
        "<table><tr><th>question</th><th>options (key ✓, chosen ▶)</th><th>evidence</th><th>verdict</th></tr>",
    ]
    for q in trace.get("questions", []):
        opts = []
        for o in q.get("options", []):
            mark = ("▶ " if o == q.get("choice") else "") + ("✓ " if o == q.get("key") else "")
            opts.append(f"{e(mark)}{e(o)}")
        if not opts:  # free text: the key, and what the text said
            opts = [f"key: {e(q.get('key') or '—')}", f"read: {e(q.get('choice') or '—')}"]
            if q.get("rating") is not None:
                opts.append(f"rating {e(q['rating'])}/5")
        verdict = _verdict(q) + (f": {q['error']}" if q.get("error") else "")
        parts.append(
            f"<tr><td>{e(q.get('question', ''))}<br><small>{e(q.get('question_id', ''))}"
            f"{' · aspect ' + e(q['facet_id']) if q.get('facet_id') else ''}</small></td>"
            f"<td>{'<br>'.join(opts)}</td><td>{e(q.get('evidence') or '—')}</td><td>{e(verdict)}</td></tr>"
        )
    parts.append("</table>")
    return "".join(parts)


def plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """EXAM and n-EXAM per entry in the board's order; n-EXAM's dashed line at 1 is the gold articles."""
    rows = [r for r in results if figures.interval(r.scores.get("exam")) is not None]
    if not rows:
        return figures.plot_empty("no EXAM results")
    has_n = any(figures.interval(r.scores.get("n_exam")) is not None for r in rows)
    series = [figures.Series("exam", "EXAM (share answered correctly)")]
    panels = ["EXAM"]
    if has_n:
        series.append(figures.Series("n_exam", "n-EXAM (1 = gold articles)", panel=1))
        panels.append("n-EXAM (dashed: gold articles)")
    highs = [i[2] for r in rows for k in ("exam", "n_exam") if (i := figures.interval(r.scores.get(k)))]
    return figures.forest(
        rows, series, panels, x_title="score (95% CI)", x_range=(0.0, max(1.0, *highs)),
        reference_line=(1, 1.0) if has_n else None,
    )  # fmt: skip


#: the figure (matplotlib, Plotly) by title
FIGURES = {"EXAM and n-EXAM": (figure, plot)}
