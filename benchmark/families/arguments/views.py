"""How argument-quality results look: the radar of dimensions, and one argument's drill-down.

Nothing here calls a model.  Arguments, evidence and judge replies are untrusted text:
the drill-down HTML is built from ``html.escape``-d text only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from benchmark.core.results import TaskResult
from benchmark.families.arguments.formulas import DIMENSIONS, QUALITY_SCALE


def entry_label(result: TaskResult) -> str:
    rag = f" +{result.model.rag.slug}" if result.model.rag else ""
    return f"{result.model.id}{rag}"


def radar(results: Sequence[TaskResult], most: int = 6) -> Any:
    """The 15 dimensions (1-3) of up to ``most`` entries on one radar; a dimension no judge
    rated is left out of the entry's polygon (a gap), not drawn at the minimum."""
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in results if any((s := r.scores.get(d)) and s.value is not None for d in DIMENSIONS)][
        :most
    ]
    if not rows:
        from benchmark.families.icat.views import empty_figure

        return empty_figure("no argument-quality results")
    angles = np.linspace(0, 2 * np.pi, len(DIMENSIONS), endpoint=False)
    fig, ax = plt.subplots(figsize=(6.4, 6.4), subplot_kw={"projection": "polar"})
    for r in rows:
        values = np.array(
            [
                s.value if (s := r.scores.get(d)) is not None and s.value is not None else np.nan
                for d in DIMENSIONS
            ]
        )
        closed_a, closed_v = np.append(angles, angles[0]), np.append(values, values[0])
        ax.plot(closed_a, closed_v, marker="o", markersize=3, label=entry_label(r))
        ax.fill(angles[~np.isnan(values)], values[~np.isnan(values)], alpha=0.08)
    ax.set_xticks(angles)
    ax.set_xticklabels([d.replace("_", "\n") for d in DIMENSIONS], fontsize=7)
    ax.set_ylim(QUALITY_SCALE[0] - 0.2, QUALITY_SCALE[1])
    ax.set_yticks([1, 2, 3])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2, fontsize=7, frameon=False)
    fig.tight_layout()
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
        f"<p><b>evidence</b> ({_esc(trace.get('evidence_source', 'none'))})</p><ol>",
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
    for failure in trace.get("failures", []):
        parts.append(f"<p>failure: {_esc(failure)}</p>")
    return "".join(parts)
