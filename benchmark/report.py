"""Human-readable views of results: terminal tables and the β-sweep plot."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmark.results import Score, TaskResult

ICAT_COLUMNS = (
    ("s_fact", "S_fact"),
    ("s_coverage_m", "S_cov M"),
    ("icat_m", "ICAT-M"),
    ("s_coverage_s", "S_cov S"),
    ("icat_s", "ICAT-S"),
    ("s_coverage_a", "S_cov A"),
    ("icat_a", "ICAT-A"),
)


def fmt_score(score: Score | None, ci: bool = True) -> str:
    if score is None or score.value is None:
        return "—"
    text = f"{score.value:.3f}"
    if ci and score.ci_low is not None and score.ci_high is not None:
        text += f" [{score.ci_low:.2f}, {score.ci_high:.2f}]"
    return text


def icat_table(
    results: Iterable[TaskResult], title: str = "ICAT (macro-average over queries, 95% bootstrap CI)"
) -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("model")
    table.add_column("task")
    table.add_column("judge profile")
    for _, label in ICAT_COLUMNS:
        table.add_column(label, justify="right")
    table.add_column("queries", justify="right")
    table.add_column("failures", justify="right")
    for r in results:
        n = len(r.per_query)
        table.add_row(
            r.model.id,
            f"{r.task.id}@{r.task.version}",
            r.profile_id,
            *[fmt_score(r.scores.get(key)) for key, _ in ICAT_COLUMNS],
            str(n),
            ", ".join(f"{k}={v}" for k, v in sorted(r.failures.items())) or "0",
        )
    return table


def beta_table(result: TaskResult) -> Table:
    table = Table(
        title=f"ICAT_β sweep — {result.model.id} on {result.task.id} (β<1 favours factuality, β>1 coverage)"
    )
    curves = {k: v for k, v in result.curves.items() if k.endswith("_beta")}
    betas = next(iter(curves.values()), {}).keys()
    table.add_column("β", justify="right")
    for name in curves:
        table.add_column(name.removesuffix("_beta").upper().replace("_", "-"), justify="right")
    for b in betas:
        table.add_row(b, *["—" if curves[c].get(b) is None else f"{curves[c][b]:.3f}" for c in curves])
    return table


def plot_beta_sweep(results: Iterable[TaskResult], path: Path) -> Path:
    """Line plot of ICAT_β against β for every (model, variant)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for r in results:
        for name, curve in r.curves.items():
            pts = [(float(b), v) for b, v in curve.items() if v is not None]
            if pts:
                xs, ys = zip(*sorted(pts), strict=True)
                ax.plot(
                    xs,
                    ys,
                    marker="o",
                    label=f"{r.model.id} {name.removesuffix('_beta').upper().replace('_', '-')}",
                )
    ax.set_xlabel("β (weight of coverage relative to factuality)")
    ax.set_ylabel("ICAT_β")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def print_results(results: list[TaskResult], console: Console | None = None) -> None:
    console = console or Console(width=None if Console().is_terminal else 200)
    console.print(icat_table(results))
    for r in results:
        if r.curves:
            console.print(beta_table(r))
        for note in r.notes:
            console.print(f"[yellow]note[/yellow] {r.task.id}: {note}")
        if r.judge_profile.get("offline"):
            console.print(
                f"[yellow]judge profile {r.profile_id} is the offline default[/yellow]: its scores check that the "
                "pipeline runs; they are not comparable with real-judge profiles (see README, 'What the offline default can and cannot judge')."
            )
