"""Renderings of a :class:`~leaderboard.build.Leaderboard`: terminal, CSV/JSON, Markdown, HTML.

Every rendering shows a score with its confidence interval and a missing score as
``—``; the HTML page escapes every cell, since model names come from submissions.
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from leaderboard.build import FAMILIES, Family, Leaderboard

MISSING = "—"


def fmt_cell(row: pd.Series, key: str, ci: bool = True) -> str:
    value = row.get(key)
    if value is None or pd.isna(value):
        return MISSING
    text = f"{float(value):.3f}"
    lo, hi = row.get(f"{key}_ci_low"), row.get(f"{key}_ci_high")
    if ci and lo is not None and hi is not None and not pd.isna(lo) and not pd.isna(hi):
        text += f" [{float(lo):.2f}, {float(hi):.2f}]"
    return text


def _fmt_params(value: object) -> str:
    if value is None or pd.isna(value):
        return MISSING
    n = float(value)  # type: ignore[arg-type]
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


def display_frame(df: pd.DataFrame, family: Family, ci: bool = True) -> pd.DataFrame:
    """Human columns: rank, model, open weights, size, scores with CIs, counts, board."""
    if df.empty:
        return df
    score_keys = [k for k, _ in family.columns if k in df.columns]
    extra = sorted(
        c.removesuffix("_ci_low")
        for c in df.columns
        if c.endswith("_ci_low") and c.removesuffix("_ci_low") not in score_keys
    )
    labels = dict(family.columns)
    rows = []
    for _, r in df.iterrows():
        rows.append(
            {
                "rank": MISSING if pd.isna(r["rank"]) else int(r["rank"]),
                "model": r["model"],
                "open weights": MISSING
                if r["open_weights"] is None or pd.isna(r["open_weights"])
                else ("yes" if r["open_weights"] else "no"),
                "size": _fmt_params(r["parameters"]),
                **{labels.get(k, k): fmt_cell(r, k, ci) for k in score_keys + extra},
                "queries": int(r["queries"]),
                "failures": int(r["failures"]),
                "task": f"{r['task']}@{r['task_version']}",
                "judge profile": r["judge_profile"],
            }
        )
    return pd.DataFrame(rows)


def overall_frame(df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    return pd.DataFrame(
        {
            "overall rank": [MISSING if pd.isna(x) else int(x) for x in df["overall_rank"]],
            "model": df["model"],
            "mean rank": [MISSING if x is None or pd.isna(x) else f"{x:.2f}" for x in df["mean_rank"]],
            "boards": [f"{a}/{b}" for a, b in zip(df["boards"], df["of_boards"], strict=True)],
            "missing": [m or MISSING for m in df["missing"]],
            "judge profile": df["judge_profile"],
        }
    )


def print_leaderboard(lb: Leaderboard, console: Console | None = None) -> None:
    console = console or Console(width=200)
    if not lb.entries:
        console.print("no results yet")
    for fid, fam in FAMILIES.items():
        df = lb.tables.get(fid, pd.DataFrame())
        if df.empty:
            console.print(f"[bold]{fam.title}[/]: no results yet")
            continue
        for board, sub in df.groupby("board", sort=True):
            view = display_frame(sub, fam)
            table = Table(
                title=f"{fam.title} — {board} (ranked by {sub['ranked_by'].iloc[0]}; shared rank = CIs overlap)"
            )
            for col in view.columns:
                table.add_column(
                    col, justify="left" if col in ("model", "task", "judge profile") else "right"
                )
            for _, row in view.iterrows():
                # Text(...) so that markup in a model name is printed, never interpreted
                table.add_row(*[Text(str(v)) for v in row])
            console.print(table)
    ov = overall_frame(lb.overall)
    if not ov.empty:
        table = Table(
            title="Overall (mean of per-board ranks; only models with every board of their profile)"
        )
        for col in ov.columns:
            table.add_column(col)
        for _, row in ov.iterrows():
            table.add_row(*[Text(str(v)) for v in row])
        console.print(table)
    for s in lb.skipped:
        console.print(Text(f"skipped {s}", style="yellow"))


def to_markdown(lb: Leaderboard) -> str:
    """Markdown for a pull-request comment: one table per board, then the overall table."""
    parts = []
    for fid, fam in FAMILIES.items():
        df = lb.tables.get(fid, pd.DataFrame())
        for board, sub in df.groupby("board", sort=True) if not df.empty else []:
            view = display_frame(sub, fam).map(lambda v: html.escape(str(v)).replace("|", "\\|"))
            parts.append(
                f"### {html.escape(fam.title)} — {html.escape(str(board))}\n\n{view.to_markdown(index=False)}\n"
            )
    ov = overall_frame(lb.overall)
    if not ov.empty:
        ov = ov.map(lambda v: html.escape(str(v)).replace("|", "\\|"))
        parts.append(f"### Overall\n\n{ov.to_markdown(index=False)}\n")
    return "\n".join(parts) if parts else "no results yet\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:1400px}
table{border-collapse:collapse;margin-bottom:2rem;font-size:.9rem}th,td{border:1px solid #ccc;padding:.3rem .5rem}
th{background:#f3f3f3}td{text-align:right}td:nth-child(2){text-align:left}caption{text-align:left;font-weight:600;margin:.5rem 0}"""


def to_html(lb: Leaderboard) -> str:
    """A self-contained static page; pandas escapes every cell (``escape=True``)."""
    body = [
        f"<h1>groundcover leaderboard</h1><p>snapshot {datetime.now(UTC).isoformat(timespec='seconds')}</p>"
    ]
    for fid, fam in FAMILIES.items():
        df = lb.tables.get(fid, pd.DataFrame())
        body.append(f"<h2>{html.escape(fam.title)}</h2>")
        if df.empty:
            body.append("<p>no results yet</p>")
            continue
        for board, sub in df.groupby("board", sort=True):
            body.append(f"<h3>{html.escape(str(board))}</h3>")
            body.append(display_frame(sub, fam).to_html(index=False, escape=True, border=0))
    ov = overall_frame(lb.overall)
    if not ov.empty:
        body.append("<h2>Overall</h2>" + ov.to_html(index=False, escape=True, border=0))
    return f"<!doctype html><html><head><meta charset='utf-8'><title>groundcover leaderboard</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>"


def write_snapshot(lb: Leaderboard, out_dir: Path | str) -> list[Path]:
    """CSV per family (raw numbers), ``leaderboard.json``, ``leaderboard.md`` and ``index.html``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    payload: dict[str, object] = {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "families": {},
    }
    for fid, df in lb.tables.items():
        path = out / f"{fid}.csv"
        df.to_csv(path, index=False)
        written.append(path)
        payload["families"][fid] = json.loads(df.to_json(orient="records")) if not df.empty else []  # type: ignore[index]
    lb.overall.to_csv(out / "overall.csv", index=False)
    payload["overall"] = json.loads(lb.overall.to_json(orient="records")) if not lb.overall.empty else []
    payload["skipped"] = lb.skipped
    for name, text in (
        ("leaderboard.json", json.dumps(payload, indent=2, ensure_ascii=False)),
        ("leaderboard.md", to_markdown(lb)),
        ("index.html", to_html(lb)),
    ):
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    written.append(out / "overall.csv")
    return written
