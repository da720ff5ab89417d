"""What ``benchmark evaluate`` / ``score`` print after a run: one table per family, then the
family's own views (e.g. ICAT's β sweep), notes, and what the judge profile can't judge."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.core.errors import printable
from benchmark.core.results import Score, TaskResult
from benchmark.core.stats import fmt_score
from benchmark.families import REGISTRY, views

MAX_COLUMNS = 10


def _cells(score: Score | None, human: bool) -> list[str]:
    """A score's cell, and its human-corrected one (with the labels it stands on) when asked."""
    if score is None:
        cells = [fmt_score(None, None, None)]
    else:
        cells = ["withheld" if score.incomplete else fmt_score(score.value, score.ci_low, score.ci_high)]
    if human:
        h = score.human_corrected if score is not None else None
        cells.append("—" if h is None else f"{fmt_score(h.value, h.ci_low, h.ci_high)} n={h.n_labels}")
    return cells


def results_table(family_id: str, results: Sequence[TaskResult]) -> Table:
    fam = REGISTRY[family_id]
    computed = [c for c in fam.columns if any(c.key in r.scores for r in results)]
    # a family with many scores (argument quality has 32) shows the Space's default
    # columns, so the table stays readable in a terminal; the result file has every score
    keys = [
        c.key for c in computed if c.default_shown or c.key == fam.primary or len(computed) <= MAX_COLUMNS
    ]
    hidden = len(computed) - len(keys)
    note = f"; {hidden} more scores in the result file" if hidden else ""
    table = Table(
        title=Text(
            f"{fam.title} (macro-average over the n queries with a score, 95% bootstrap CI; failed: the "
            f"ranked score's judge failed{note})"
        )
    )
    for col in ("model", "task", "judge profile"):
        table.add_column(col)
    # a score corrected with human labels (--human-labels) gets its own column beside it
    human = {
        k for k in keys if any((s := r.scores.get(k)) is not None and s.human_corrected for r in results)
    }
    for k in keys:
        table.add_column(fam.label(k), justify="right")
        if k in human:
            table.add_column(f"{fam.label(k)} (human-corrected)", justify="right")
    for col in ("queries", "n", "failed"):
        table.add_column(col, justify="right")
    for r in results:
        ranked = r.scores.get(r.primary)
        table.add_row(
            *[
                Text(x)
                for x in (
                    printable(r.model.label),  # invisible controls as escapes, as on every board
                    f"{r.task.id}@{r.task.version}",
                    r.profile_id,
                    *[cell for k in keys for cell in _cells(r.scores.get(k), k in human)],
                    str(r.task.queries.n),
                    str(ranked.n if ranked is not None else 0),
                    str(ranked.failed if ranked is not None else len(r.failed_queries)),
                )
            ]
        )
    return table


def print_results(results: Sequence[TaskResult], console: Console | None = None) -> None:
    console = console or Console(width=None if Console().is_terminal else 200)
    for fid, fam in REGISTRY.items():
        mine = [r for r in results if r.metric_family == fid]
        if not mine:
            continue
        console.print(results_table(fid, mine))
        views.print_results(fam, mine, console)
        for r in mine:
            for note in r.notes:
                console.print(Text(f"note {r.task.id}: {note}", style="yellow"))
            if r.failures:
                shown = ", ".join(f"{k} {v}" for k, v in sorted(r.failures.items()))
                console.print(
                    Text(f"failures {r.model.label} on {r.task.id}: {shown} (see the traces)", style="yellow")
                )
            for reason in r.incomplete:
                console.print(Text(f"INCOMPLETE {r.model.label} on {r.task.id}: {reason}", style="bold red"))
            for s in r.scores.values():
                if s.incomplete and not r.incomplete:
                    console.print(
                        Text(
                            f"withheld {r.model.label} on {r.task.id}: {s.incomplete} (--retry-failed asks again)",
                            style="yellow",
                        )
                    )
    for pid in sorted({r.profile_id for r in results if r.judge_profile.get("offline")}):
        console.print(
            Text(
                f"judge profile {pid} is the offline default: its scores check that the pipeline runs and tell "
                "systems apart on the bundled data; they are not comparable with real-judge profiles "
                "(README, 'What the offline default can and cannot judge').",
                style="yellow",
            )
        )
