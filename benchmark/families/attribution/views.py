"""How attribution looks: citation recall against precision per system, and one answer's
sentences beside the passages they cite.

Nothing here calls a model; texts are untrusted and escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core import figures
from benchmark.core.results import TaskResult
from benchmark.families.views import first_number, trace_head

SHOWN = (
    ("citation_recall", "citation recall"),
    ("citation_precision", "citation precision"),
    ("support_recall", "support recall (weighted)"),
    ("support_precision", "support precision (weighted)"),
    ("faithfulness", "faithfulness"),
    ("self_knowledge", "self-knowledge"),
    ("hallucination", "hallucination"),
    ("context_utilisation", "context utilisation"),
    ("uncited", "uncited sentences"),
    ("invalid_citations", "citations to passages not given"),
)


def figure(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Citation recall (x) against citation precision (y), a point per system with 95% intervals."""
    rows = [r for r in results if r.scores.get("citation_recall") is not None]
    if not rows:
        return figures.empty_figure("no attribution results")
    fig, ax = figures.new_figure(6.5, 4.8 + figures.LEGEND_ROW_IN * (1 + len(rows) // 3))
    undefined_y = -0.15  # a row of its own below the 0-1 scale: no precision is not 0
    any_undefined = False
    for i, (r, label) in enumerate(zip(rows, figures.entry_labels(rows), strict=True)):
        rec, prec = r.scores["citation_recall"], r.scores.get("citation_precision")
        defined = prec is not None and prec.value is not None
        any_undefined |= not defined
        y = prec.value if defined else undefined_y  # type: ignore[union-attr]
        xerr = [[rec.value - (rec.ci_low or rec.value)], [(rec.ci_high or rec.value) - rec.value]]
        yerr = [[y - (prec.ci_low or y)], [(prec.ci_high or y) - y]] if defined else None  # type: ignore[union-attr]
        ax.errorbar(
            rec.value, y, xerr=xerr, yerr=yerr, fmt=figures.entry_marker(r, i) if defined else "x", capsize=3,
            color=figures.entry_colour(r, i), alpha=0.85,
            label=label if defined else f"{label} (cites nothing: precision undefined)",
        )  # fmt: skip
    ax.set_xlim(-0.02, 1.02)
    if any_undefined:
        ax.axhline((undefined_y + 0) / 2 - 0.01, color="0.6", linewidth=0.8, linestyle=":")
        ax.set_ylim(undefined_y - 0.07, 1.02)
        ax.set_yticks(
            [undefined_y, 0, 0.2, 0.4, 0.6, 0.8, 1.0], ["undefined", "0", "0.2", "0.4", "0.6", "0.8", "1"]
        )
    else:
        ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("citation recall: sentences their citations support (95% CI)")
    ax.set_ylabel("citation precision: citations that support")
    ax.grid(alpha=0.3)
    figures.legend_below(fig, ax.get_legend_handles_labels()[1], columns=1)
    return fig


SOURCES = {
    "context": "a passage it was given",
    "corpus": "the corpus only (self-knowledge)",
    "neither": "neither (hallucination)",
}


def trace_html(trace: dict[str, Any]) -> str:
    e = lambda v: html.escape(str(v))  # noqa: E731
    scores = trace.get("scores", {})
    parts = [trace_head(trace, [(label, scores[k]) for k, label in SHOWN if k in scores])]
    if not trace.get("partial_level", True):
        parts.append("<p>This judge has no partial level: support is full or none.</p>")
    parts.append("<table><tr><th>sentence</th><th>cited passage</th><th>alone</th><th>together</th></tr>")
    for number, s in enumerate(trace.get("sentences", []), start=first_number(trace, "sentences")):
        cites = s.get("citations", [])
        invalid = s.get("invalid", [])
        rows = max(1, len(cites) + bool(invalid))
        where = (
            f"<br><small>support from: {e(SOURCES.get(s['source'], s['source']))}</small>"
            if s.get("source")
            else ""
        )
        head = f"<td rowspan='{rows}'><b class='gc-number'>{number}.</b> {e(s.get('text'))}{where}</td>"
        joint = f"<td rowspan='{rows}'>{e(s.get('joint') or ('—' if not cites else '? failed'))}</td>"
        if not cites and not invalid:
            parts.append(f"<tr>{head}<td><i>no citation</i></td><td></td>{joint}</tr>")
        for n, c in enumerate(cites):
            without = f" (others without it: {e(c['without'])})" if c.get("without") else ""
            parts.append(
                f"<tr>{head if n == 0 else ''}<td>[{e(c.get('number'))}] <code>{e(c.get('passage_id'))}</code> "
                f"{e(c.get('text'))}</td><td>{e(c.get('alone') or '? failed')}{without}</td>"
                f"{joint if n == 0 else ''}</tr>"
            )
        if invalid:
            parts.append(
                f"<tr>{head if not cites else ''}<td>not given: {e(', '.join(invalid))}</td><td>none</td>"
                f"{joint if not cites else ''}</tr>"
            )
        for err in s.get("errors", []):
            parts.append(f"<tr><td colspan='4'>failure: {e(err)}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def plot(results: Sequence[TaskResult], option: str | None = None) -> Any:
    """Citation recall (x) against citation precision (y), a point per entry in the board's
    order; an entry that cites nothing has no precision: it is named in the legend as not
    drawn, never put at 0."""
    return figures.interval_scatter(
        [r for r in results if figures.interval(r.scores.get("citation_recall")) is not None],
        ("citation_recall", "citation recall", "citation recall: sentences their citations support (95% CI)"),
        ("citation_precision", "citation precision", "citation precision"),
        undrawn="cites nothing, precision undefined",
        empty="no attribution results",
        height=420,
    )


#: the figure (matplotlib, Plotly) by title
FIGURES = {"Citation recall and precision": (figure, plot)}
