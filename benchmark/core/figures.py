"""Figures people read at a glance: short entry names, legends outside the axes, and one
colour per entry that every figure of a board shares.

Long model labels ("ORG/NAME@REVISION (RAG bm25 + core sub-questions (all) k=5)") used to
be drawn inside the axes, where they covered the curves and ran off the figure; here every
figure names an entry by :attr:`~benchmark.core.results.ModelInfo.short_label` and puts
the legend below the axes, in space the layout reserves for it.  Nothing here calls a model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmark.core.results import TaskResult

#: colour-blind-safe enough for up to ten entries; more cycle (and get distinct markers)
PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LEGEND_ROW_IN = 0.22  # inches a legend row takes at font size 8
WIDE_LABEL = 34  # characters: a longer name gets a legend row of its own


def pyplot() -> Any:
    """matplotlib's pyplot on the non-interactive backend (servers have no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def new_figure(width: float, height: float, **kwargs: Any) -> tuple[Any, Any]:
    """A figure whose layout makes room for labels and an outside legend (constrained)."""
    return pyplot().subplots(figsize=(width, height), layout="constrained", **kwargs)


def empty_figure(message: str) -> Any:
    fig, ax = new_figure(6, 3.6)
    ax.text(0.5, 0.5, message, ha="center", va="center")
    ax.set_axis_off()
    return fig


def entry_labels(results: Sequence[TaskResult]) -> list[str]:
    """Short names, one per result; where two would read alike, both keep their full label.
    Names come from result files: drawn as plain text, never as math."""
    short = [r.model.short_label for r in results]
    twice = {s for s, n in Counter(short).items() if n > 1}
    names = [r.model.label if s in twice else s for r, s in zip(results, short, strict=True)]
    return [n.replace("$", r"\$") for n in names]  # a "$" would start matplotlib's math mode


def stacked(label: str) -> str:
    """A name on an axis: the model above its setting, so that the labels leave the axes
    their width."""
    return label.replace(" · ", "\n")


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def marker(i: int) -> str:
    return MARKERS[(i // len(PALETTE)) % len(MARKERS)]


#: entry label -> its place in the app's one colour order (see :func:`fix_colours`)
_FIXED: dict[str, int] = {}


def fix_colours(labels: Sequence[str]) -> None:
    """One colour (and marker) per entry for the whole app: each label keeps the place it has
    in ``labels``, whatever a filter leaves in a figure.  Labels not given fall back to their
    position in the figure."""
    _FIXED.clear()
    for label in labels:
        _FIXED.setdefault(label, len(_FIXED))


def entry_colour(result: TaskResult, i: int) -> str:
    return colour(_FIXED.get(result.model.label, i))


def entry_marker(result: TaskResult, i: int) -> str:
    return marker(_FIXED.get(result.model.label, i))


def legend_columns(labels: Sequence[str]) -> int:
    """Two legend columns where the names are short enough to sit side by side in a 6.4 in
    figure, else one (a wider legend is cut at the figure's edges)."""
    return 2 if max(map(len, labels), default=0) <= WIDE_LABEL else 1


def legend_height(labels: Sequence[str]) -> float:
    """Inches the legend of ``labels`` needs below the axes."""
    return LEGEND_ROW_IN * -(-len(labels) // legend_columns(labels))


def legend_below(fig: Any, labels: Sequence[str], columns: int | None = None) -> None:
    """The figure's legend under the axes, never over them (needs a constrained layout)."""
    fig.legend(
        loc="outside lower center",
        ncols=columns or legend_columns(labels),
        fontsize=8,
        frameon=False,
    )
