"""Renderings of a :class:`~benchmark.board.leaderboard.Leaderboard`: terminal, CSV/JSON, Markdown, HTML.

Names and card fields come from submissions and are untrusted: the terminal prints them as
:class:`rich.text.Text` (never markup), HTML escapes every cell, and Markdown cells are code
spans, inside which neither HTML nor links are interpreted.
"""

from __future__ import annotations

import dataclasses
import html
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.board.leaderboard import HUMAN, Leaderboard
from benchmark.board.pairs import power_line
from benchmark.board.trust import trust_text, trusts
from benchmark.core import stats
from benchmark.core.errors import printable
from benchmark.core.exports import write_csv
from benchmark.core.results import RANDOM_SAMPLE_CAVEAT
from benchmark.core.stats import MISSING, fmt_score
from benchmark.families import REGISTRY, MetricFamily

RANKS_EXPLAINED = (
    "Rank = 1 + the number of models significantly better on the same queries (paired permutation test "
    f"on per-query scores, Holm-corrected per model, α = {stats.ALPHA}); models not significantly "
    "different share a rank. Intervals are 95% bootstrap CIs over queries (BCa from "
    f"{stats.BCA_MIN_N} queries, percentile below). The mean is over 'n' queries; those whose ranked "
    "score a judge failed on are counted in 'failed', never as 0. Incomplete results (a judge that "
    "could not be reached) are on no board until re-run. Reference entries (baselines, oracles, "
    "ceiling checks, as their model cards declare) are shown apart and never ranked among the models."
)

REFERENCES_TITLE = (
    "Reference entries (not ranked: baselines, oracles and ceiling checks, as their model cards say)"
)


def is_reference(r: pd.Series) -> bool:
    return bool(r.get("reference", False)) and not pd.isna(r.get("reference", False))


def split_references(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A board's ranked models, and its reference entries (shown apart)."""
    if "reference" not in df or df.empty:
        return df, df.iloc[0:0]
    ref = df["reference"].fillna(False).astype(bool)
    return df[~ref], df[ref]


def fmt_ci(row: pd.Series, key: str) -> str:
    """The interval of ``key`` alone (the Space shows it in its own column)."""
    lo, hi = row.get(f"{key}_ci_low"), row.get(f"{key}_ci_high")
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return ""
    return f"[{float(lo):.3f}, {float(hi):.3f}]"


def fmt_cell(row: pd.Series, key: str) -> str:
    if isinstance(row.get(f"{key}_withheld"), str):
        return "withheld"  # its judge failed past --max-failure-rate: never a number
    text = fmt_score(row.get(key), row.get(f"{key}_ci_low"), row.get(f"{key}_ci_high"))
    if key.endswith(HUMAN) and text != MISSING:
        text += f" n={int(row[f'{key}_n'])}"  # the human labels it stands on
    return text


def score_label(family: MetricFamily, key: str) -> str:
    """A column's header: the family's label, and for a human-corrected column that it is."""
    if key.endswith(HUMAN):
        return f"{family.label(key.removesuffix(HUMAN))} (human-corrected)"
    return family.label(key)


def fmt_params(value: object) -> str:
    """Parameter count as 1.5B / 135M; ``—`` when unknown or not applicable (0: no model)."""
    if value is None or pd.isna(value) or float(value) <= 0:  # type: ignore[arg-type]
        return MISSING
    n = float(value)  # type: ignore[arg-type]
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


def score_keys(df: pd.DataFrame, family: MetricFamily) -> list[str]:
    """The family's columns present in ``df``, then any extra scores, in a stable order."""
    keys = [c.key for c in family.columns if c.key in df.columns]
    extra = sorted(
        c.removesuffix("_ci_low")
        for c in df.columns
        if c.endswith("_ci_low") and c.removesuffix("_ci_low") not in keys
    )
    raw = keys + [k for k in extra if not k.endswith(HUMAN)]
    return [c for k in raw for c in (k, f"{k}{HUMAN}") if c == k or c in extra]  # human beside its raw score


def entry_cells(r: pd.Series) -> dict[str, object]:
    """The cells that say who an entry is: rank, model, setting, size, open weights."""
    return {
        "rank": None if pd.isna(r["rank"]) else int(r["rank"]),
        # a name's invisible controls shown as escapes: a right-to-left override in a result's
        # model id would otherwise print what follows it reversed
        "model": printable(str(r["model"])),
        "setting": r["setting"],
        "size": fmt_params(r["parameters"]),
        "open weights": MISSING
        if r["open_weights"] is None or pd.isna(r["open_weights"])
        else ("yes" if r["open_weights"] else "no"),
    }


def display_frame(df: pd.DataFrame, family: MetricFamily) -> pd.DataFrame:
    """Human columns: rank, model, setting, size, scores (with CIs), queries, failed, board."""
    if df.empty:
        return df
    keys = score_keys(df, family)
    return pd.DataFrame(
        {
            **entry_cells(r),
            "rank": str(r["kind"])
            if is_reference(r)
            else (MISSING if pd.isna(r["rank"]) else int(r["rank"])),
            **{score_label(family, k): fmt_cell(r, k) for k in keys},
            **{c: int(r[c]) for c in ("queries", "n", "failed", "copies")},
            "task": f"{r['task']}@{r['task_version']}",
            "judge profile": r["judge_profile"],
        }
        for _, r in df.iterrows()
    )


def overall_frame(df: pd.DataFrame) -> pd.DataFrame:
    if df.empty:
        return df
    return pd.DataFrame(
        {
            "overall rank": [MISSING if pd.isna(x) else int(x) for x in df["overall_rank"]],
            "model": [printable(str(m)) for m in df["model"]],
            "mean rank": [MISSING if x is None or pd.isna(x) else f"{x:.2f}" for x in df["mean_rank"]],
            "boards": [f"{a}/{b}" for a, b in zip(df["boards"], df["of_boards"], strict=True)],
            "missing": [m or MISSING for m in df["missing"]],
            "judge profile": df["judge_profile"],
        }
    )


def column_legend(family: MetricFamily, keys: list[str]) -> list[str]:
    """One line per score column: what it means."""
    return [f"{family.label(k)}: {c.description}" for k in keys if (c := family.column(k)) is not None]


def terminal_frame(df: pd.DataFrame, family: MetricFamily) -> pd.DataFrame:
    """The display frame cut to what fits a terminal: the family's default-shown scores;
    task and judge profile are in the board's title."""
    view = display_frame(df, family)
    shown = {family.label(c.key) for c in family.columns if c.default_shown}
    shown |= {score_label(family, f"{c.key}{HUMAN}") for c in family.columns}
    keep = [
        "rank", "model", "setting", "size", *[c for c in view.columns if c in shown], "queries", "n", "failed"
    ]  # fmt: skip
    return view[[c for c in keep if c in view.columns]]


def print_leaderboard(
    lb: Leaderboard, console: Console | None = None, *, legend: bool = False, skip_empty: bool = False
) -> None:
    """Every family's boards; ``skip_empty`` leaves out families without results (a run's
    own report) instead of saying so (the published board)."""
    console = console or Console(width=200)
    if not lb.entries:
        console.print("no results yet")
    for fid, fam in REGISTRY.items():
        df = lb.tables.get(fid, pd.DataFrame())
        if df.empty:
            if not skip_empty:
                console.print(Text(f"{fam.title}: no results yet"))
            continue
        for board, sub in df.groupby("board", sort=True):
            view = terminal_frame(sub, fam)
            table = Table(title=Text(f"{fam.title} — {board}"))
            for col in view.columns:
                left = col in ("model", "setting")
                table.add_column(
                    col, justify="left" if left else "right", overflow="fold", min_width=6 if left else None
                )
            refs = [is_reference(r) for _, r in sub.iterrows()]
            for (_, row), ref, prev in zip(view.iterrows(), refs, [False, *refs], strict=False):
                if ref and not prev:  # the reference entries under a rule of their own
                    table.add_section()
                # Text(...) so that markup in a model name is printed, never interpreted
                table.add_row(*[Text(str(v), style="italic" if ref else "") for v in row])
            console.print(table)
            for line in _trust_lines(fam, sub):
                style = "bold yellow" if line.startswith("Warning:") else "dim"
                console.print(Text(line, style=style))
            if legend:
                for line in column_legend(fam, [c.key for c in fam.columns if c.default_shown]):
                    console.print(Text(f"  {line}"))
    console.print(Text(RANKS_EXPLAINED, style="dim"))
    ov = overall_frame(lb.overall)
    if not ov.empty and int(lb.overall["of_boards"].max()) > 1:  # one board: its table says it all
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


def _trust_lines(family: MetricFamily, board: pd.DataFrame) -> list[str]:
    """What its test can tell apart (beside the ranks), the judge card's lines (and banner) for
    one board's rows, then its failure warnings."""
    return (
        power_lines(family, board)
        + [line for t in trusts(family, board) for line in trust_text(t)]
        + failure_lines(family, board)
        + withheld_lines(board)
        + human_label_lines(family, board)
        + noise_lines(family, board)
    )


def power_lines(family: MetricFamily, board: pd.DataFrame) -> list[str]:
    """The board's power line (:func:`benchmark.board.pairs.power_line`): the smallest
    difference in its ranked score its paired test detects with 80 % power, and how many
    pairs differ by less."""
    if board.empty:
        return []
    row = board.iloc[0]
    return [line] if (line := power_line(row, family.label(str(row["ranked_by"])))) else []


def noise_lines(family: MetricFamily, board: pd.DataFrame) -> list[str]:
    """Under a board judged with repeats (``--judge-repeats``): how much of each entry's
    interval on the ranked score is the judge's own noise."""
    out = []
    for _, r in board.iterrows():
        key = r["ranked_by"]
        n = r.get(f"{key}_repeats")
        if n is None or pd.isna(n):
            continue
        share = r.get(f"{key}_noise_share")
        said = "not measurable" if share is None or pd.isna(share) else f"{float(share):.0%}"
        out.append(
            f"Judge noise: {printable(str(r['model']))}: each judgement asked {int(n)} times; the judge's own noise makes "
            f"{said} of the variance of its {family.label(key)} mean (interval: queries, then repeats, "
            "resampled; ranks from the same two-level test)."
        )
    return out


def human_label_lines(family: MetricFamily, board: pd.DataFrame) -> list[str]:
    """Under a board with human-corrected columns: what they are, and the condition their
    intervals rest on, which nothing in the labels file can show (the units were sampled at random)."""
    keys = [c.removesuffix("_n") for c in board.columns if c.endswith(f"{HUMAN}_n")]
    keys = [k for k in keys if board[k].notna().any()]
    if not keys:
        return []
    names = ", ".join(score_label(family, k) for k in keys)
    return [
        f"Note: {names}: the judge's score corrected with human labels of its units (prediction-powered "
        f"inference, PPI++; n = labels), beside the judge's own; {RANDOM_SAMPLE_CAVEAT}. Ranks are the judge's."
    ]


def withheld_lines(board: pd.DataFrame) -> list[str]:
    """One note for the scores a board shows as *withheld* (their judge failed on more than
    ``--max-failure-rate`` of the queries: no number is shown, none is ranked), entry by entry."""
    said = []
    for _, r in board.iterrows():
        reasons = [
            str(r[c]).split(" (", 1)[0]
            for c in board.columns
            if c.endswith("_withheld") and isinstance(r.get(c), str)
        ]
        if reasons:
            said.append(f"{r['model']}: {'; '.join(reasons)}")
    if not said:
        return []
    return [
        "Withheld, shown as no number and never ranked (the judge failed on more than --max-failure-rate of "
        "the queries): " + " · ".join(said)
    ]


def failure_lines(family: MetricFamily, board: pd.DataFrame) -> list[str]:
    """A warning per entry whose judges failed on more queries than the board's median by a
    margin (:func:`benchmark.board.leaderboard.failure_outliers`), with its mean over the
    queries every entry has: a mean over the easy queries alone must not pass for a score."""
    out = []
    for _, r in board.iterrows():
        if not r.get("failure_flag"):
            continue
        shared = r.get("shared_mean")
        on_shared = (
            f"; over the {int(r['shared_n'])} queries every entry has, its {family.label(r['ranked_by'])} is "
            f"{float(shared):.3f}"
            if shared is not None and not pd.isna(shared)
            else "; no query has a score from every entry"
        )
        out.append(
            f"Warning: {printable(str(r['model']))} has {int(r['failed'])} of {int(r['queries'])} queries failed, more than "
            f"the board's other entries; its mean is over {int(r['n'])} queries{on_shared}."
        )
    return out


_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>#|!~])")


def md_text(text: str) -> str:
    """Prose in Markdown that renders as the text itself: every special character escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


_PLAIN = re.compile(r"^[0-9.,\[\] —/-]*$")  # numbers, intervals, ranks: printed as they are


def md_cell(value: object) -> str:
    """A Markdown table cell that renders as plain text whatever it holds: numbers as they are,
    other text in a code span (inside which neither HTML nor ``[x](javascript:…)`` links are
    interpreted) fenced longer than any backtick run in it, pipes escaped."""
    text = " ".join(str(value).split()).replace("|", "\\|")
    if _PLAIN.match(text):
        return text
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_table(frame: pd.DataFrame) -> str:
    view = frame.map(md_cell)
    view.columns = [md_cell(c) for c in view.columns]
    return view.to_markdown(index=False)


def to_markdown(lb: Leaderboard) -> str:
    """Markdown for a pull-request comment: one table per board, then the overall table."""
    parts = []
    for fid, fam in REGISTRY.items():
        df = lb.tables.get(fid, pd.DataFrame())
        for board, sub in df.groupby("board", sort=True) if not df.empty else []:
            models, refs = split_references(sub)
            parts.append(f"### {fam.title} — {md_cell(board)}\n")
            if not models.empty:
                parts.append(f"{_md_table(display_frame(models, fam))}\n")
            if not refs.empty:
                parts.append(f"*{md_text(REFERENCES_TITLE)}*\n\n{_md_table(display_frame(refs, fam))}\n")
            parts += [
                f"> **{md_text(line)}**\n" if line.startswith("Warning:") else f"* {md_text(line)}\n"
                for line in _trust_lines(fam, sub)
            ]
    ov = overall_frame(lb.overall)
    if not ov.empty:
        parts.append(f"### Overall\n\n{ov.map(md_cell).to_markdown(index=False)}\n")
    if parts:
        parts.append(RANKS_EXPLAINED + "\n")
    return "\n".join(parts) if parts else "no results yet\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:1400px}
table{border-collapse:collapse;margin-bottom:2rem;font-size:.9rem}th,td{border:1px solid #ccc;padding:.3rem .5rem}
th{background:#f3f3f3}.warning{background:#fff3cd;padding:.5rem;border-left:4px solid #e0a800}.card{color:#555;font-size:.85rem}td{text-align:right}td:nth-child(2){text-align:left;max-width:28em;overflow-wrap:anywhere;unicode-bidi:isolate}caption{text-align:left;font-weight:600;margin:.5rem 0}.ref{font-style:italic;margin:0 0 .25rem}"""


def to_html(lb: Leaderboard) -> str:
    """A self-contained static page; pandas escapes every cell (``escape=True``)."""
    body = [
        f"<h1>groundcover leaderboard</h1><p>snapshot {datetime.now(UTC).isoformat(timespec='seconds')}</p>",
        f"<p>{html.escape(RANKS_EXPLAINED)}</p>",
    ]
    for fid, fam in REGISTRY.items():
        df = lb.tables.get(fid, pd.DataFrame())
        body.append(f"<h2>{html.escape(fam.title)}</h2>")
        if df.empty:
            body.append("<p>no results yet</p>")
            continue
        for board, sub in df.groupby("board", sort=True):
            body.append(f"<h3>{html.escape(str(board))}</h3>")
            models, refs = split_references(sub)
            if not models.empty:
                body.append(display_frame(models, fam).to_html(index=False, escape=True, border=0))
            if not refs.empty:
                body.append(f"<p class='ref'>{html.escape(REFERENCES_TITLE)}</p>")
                body.append(display_frame(refs, fam).to_html(index=False, escape=True, border=0))
            body += [
                f"<p class='{'warning' if line.startswith('Warning:') else 'card'}'>{html.escape(line)}</p>"
                for line in _trust_lines(fam, sub)
            ]
    ov = overall_frame(lb.overall)
    if not ov.empty:
        body.append("<h2>Overall</h2>" + ov.to_html(index=False, escape=True, border=0))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>groundcover leaderboard</title>"
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>"
    )


def write_snapshot(lb: Leaderboard, out_dir: Path | str) -> list[Path]:
    """CSV per family (raw numbers), ``leaderboard.json``, ``leaderboard.md`` and ``index.html``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    payload: dict[str, object] = {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "rank_method": stats.RANK_METHOD,
        "alpha": stats.ALPHA,
        "families": {},
    }
    for old in out.glob("*.csv"):
        old.unlink()
    for fid, df in lb.tables.items():
        if df.empty:  # no board, no entry: a plug-in merely installed here is no part of a snapshot
            continue
        payload["families"][fid] = json.loads(df.to_json(orient="records"))  # type: ignore[index]
        written.append(write_csv(df, out / f"{fid}.csv"))
    written.append(write_csv(lb.overall, out / "overall.csv"))
    payload["overall"] = json.loads(lb.overall.to_json(orient="records")) if not lb.overall.empty else []
    payload["skipped"] = lb.skipped
    for name, text in (
        ("leaderboard.json", json.dumps(payload, indent=2, ensure_ascii=False)),
        ("leaderboard.md", to_markdown(lb)),
        ("index.html", to_html(lb)),
    ):
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    return written


class ShownLeaderboard(Leaderboard):
    """A :class:`Leaderboard` that shows itself as the board: what ``Results.leaderboard()``
    returns, so a notebook cell or a REPL prints the ranked tables, not a dataclass dump."""

    def __repr__(self) -> str:
        console = Console(record=True, width=160, file=io.StringIO())
        print_leaderboard(self, console, skip_empty=True)
        return console.export_text()

    def _repr_html_(self) -> str:
        """The boards as HTML tables, every cell escaped."""
        parts = []
        for fid, table in self.tables.items():
            if table.empty:
                continue
            for board, sub in table.groupby("board", sort=True):
                parts.append(f"<h4>{html.escape(REGISTRY[fid].title)} — {html.escape(str(board))}</h4>")
                parts.append(display_frame(sub, REGISTRY[fid]).to_html(index=False, escape=True))
        parts += [f"<p>skipped {html.escape(s)}</p>" for s in self.skipped]
        return "\n".join(parts) or "<p>no results</p>"


def shown(lb: Leaderboard) -> ShownLeaderboard:
    return ShownLeaderboard(**{f.name: getattr(lb, f.name) for f in dataclasses.fields(lb)})
