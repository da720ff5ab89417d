"""How a family's results and traces are shown, over what its optional ``views`` module declares:
``FIGURES`` (title -> a matplotlib figure and its Plotly twin), ``trace_html(trace)`` (from
``html.escape``d text only) and ``print_results(results, console)``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchmark.core.family import MetricFamily
from benchmark.families.base import module

if TYPE_CHECKING:
    from benchmark.core.results import TaskResult


def error_bars(scores: Sequence[Any]) -> tuple[list[float], list[list[float]]]:
    """The scores' values (0 where undefined) and their 95% intervals as matplotlib's
    ``[below, above]`` error lengths."""
    from benchmark.core.figures import interval

    spans = [interval(s) or (0.0, 0.0, 0.0) for s in scores]
    return [v for v, _, _ in spans], [[v - lo for v, lo, _ in spans], [hi - v for v, _, hi in spans]]


def trace_head(trace: dict[str, Any], shown: Sequence[tuple[str, Any]]) -> str:
    """A drill-down's first lines: the query, then each shown ``(label, score)``."""
    from benchmark.core.stats import fmt_score

    scores = " · ".join(f"{html.escape(label)} {fmt_score(score)}" for label, score in shown)
    return f"<p><b>query</b> {html.escape(str(trace.get('query', '')))}</p><p>{scores}</p>"


def first_number(trace: dict[str, Any], key: str) -> int:
    """The number of the first item of ``key`` shown: a later page of a long trace numbers on."""
    page = trace.get("page") or {}
    return int(page.get("start", 0)) + 1 if page.get("list") == key else 1


def _figures(family: MetricFamily) -> dict[str, tuple[Any, Any]]:
    views = module(family, "views")
    return dict(getattr(views, "FIGURES", {})) if views is not None else {}


def figures(family: MetricFamily, results: Sequence[TaskResult], option: str | None = None) -> dict[str, Any]:
    """Matplotlib figures for a set of results, by title (written as PNGs beside a result)."""
    return {title: static(results, option) for title, (static, _) in _figures(family).items()}


def plots(family: MetricFamily, results: Sequence[TaskResult], option: str | None = None) -> dict[str, Any]:
    """Interactive (Plotly) figures by title, the same titles as :func:`figures`."""
    if not results:
        return {}
    return {title: live(results, option) for title, (_, live) in _figures(family).items()}


def trace_html(family: MetricFamily, trace: dict[str, Any]) -> str:
    """The drill-down of one query's trace as escaped HTML, ending with its failures."""
    views = module(family, "views")
    body = (
        str(views.trace_html(trace))
        if views is not None and hasattr(views, "trace_html")
        else f"<pre>{html.escape(repr(trace))}</pre>"
    )
    return body + "".join(f"<p>failure: {html.escape(str(f))}</p>" for f in trace.get("failures", []))


def print_results(family: MetricFamily, results: Sequence[TaskResult], console: Any) -> None:
    """Family-specific terminal output after the common table (e.g. ICAT's β sweeps)."""
    views = module(family, "views")
    if views is not None and hasattr(views, "print_results"):
        views.print_results(results, console)
