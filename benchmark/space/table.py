"""The Space's ranked tables: a family's board as a DataFrame, filtered, with its columns
chosen and formatted, and the CSV a visitor downloads of what is shown.

Pure: a :class:`~benchmark.board.leaderboard.Leaderboard` and a tab's :class:`Filters` in,
DataFrames and escaped HTML out (the Gradio update :func:`shown_table` aside).  Scores stay
numbers (``datatype="number"``), so a column's menu sorts them as numbers, and a missing one
is a blank cell, never 0.  Names come from submissions: every cell drawn as HTML is built
from ``html.escape``-d text (:func:`model_cell`, :func:`words_cell`).
"""

from __future__ import annotations

import atexit
import html
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.board.render import entry_cells, failure_lines, fmt_ci, is_reference
from benchmark.board.trust import card_kind, trusts
from benchmark.core import exports
from benchmark.core.stats import MISSING
from benchmark.families import REGISTRY, MetricFamily

ANY = "any"
SIZES = {ANY: None, "≤ 1B": 1e9, "≤ 10B": 1e10, "≤ 100B": 1e11}
FIXED_COLUMNS = ("rank", "model")
SIZE = "params (B)"
#: what says who a model entry is; decomposition methods have no setting, size or weights
MODEL_ONLY = ("setting", SIZE, "open weights")
#: "copies": failures whose judge reproduced its prompt's worked example (part of "failed")
#: "n": the queries the headline's mean is over; "failed": those its judges failed on
#: the counts a reader must see beside the headline score (failures, copied examples)
COUNT_COLUMNS = ("n", "failed", "copies")
TAIL_COLUMNS = ("queries", "shared mean", "task", "judge profile", "board")
DEFAULT_TAIL = ("n", "failed", "copies", SIZE)

INTEGER_COLUMNS = {"rank", "queries", "n", "failed", "copies"}
NUMBER_COLUMNS = {"rank", SIZE, "queries", "n", "failed", "copies", "shared mean"}
DECIMALS = 3


@dataclass(frozen=True)
class Filters:
    """A tab's filters, typed once: Gradio hands them to callbacks as positional values in
    this order (:meth:`of`), and everything below takes this object."""

    search: str = ""
    weights: str = ANY
    size: str = ANY
    profile: str = ANY
    task: str = ANY

    @classmethod
    def of(cls, *values: Any) -> Filters:
        """From a tab's filter components' values, in the order of the dataclass fields."""
        return cls(*(str(v) if v is not None else "" for v in values))


def filter_rows(df: pd.DataFrame, flt: Filters) -> pd.DataFrame:
    if df.empty:
        return df
    search, weights, size, profile, task = flt.search, flt.weights, flt.size, flt.profile, flt.task
    keep = pd.Series(True, index=df.index)
    if search and search.strip():
        keep &= df["model"].str.contains(search.strip(), case=False, regex=False)
    if weights == "open":
        keep &= df["open_weights"].eq(True)
    elif weights == "closed":
        keep &= df["open_weights"].eq(False)
    limit = SIZES.get(size)
    if limit is not None:
        params = pd.to_numeric(df["parameters"], errors="coerce")
        keep &= params.notna() & (params > 0) & (params <= limit)
    if profile and profile != ANY:
        keep &= df["judge_profile"].eq(profile)
    if task and task != ANY:
        keep &= df["task"].eq(task)
    return df[keep]


def score_columns(family: MetricFamily) -> list[tuple[str, str]]:
    """(score key, label) and (score key, label + ' CI') for every column of the family,
    the headline score first."""
    out = []
    for col in (headline(family), *(c for c in family.columns if c is not headline(family))):
        out += [(col.key, col.label), (col.key, f"{col.label} CI")]
    return out


def headline(family: MetricFamily) -> Any:
    """The score a board is read by: the family's first column shown by default."""
    return next((c for c in family.columns if c.default_shown), family.columns[0])


def column_order(family: MetricFamily) -> list[str]:
    """Every column in the order a reader wants them, left to right: who (rank, a short
    model name), how good (the headline score and its interval), in which setting, the other
    scores, then the details (revision, size, weights, counts, task, judges, board).  At
    1366 px the headline score is in view without scrolling sideways."""
    scores = [label for _, label in score_columns(family)]
    cols = [
        *FIXED_COLUMNS,
        *scores[:2],
        *COUNT_COLUMNS,
        "setting",
        *scores[2:],
        "revision",
        SIZE,
        "open weights",
        *TAIL_COLUMNS,
    ]
    return cols if family.ranks_models else [c for c in cols if c not in MODEL_ONLY]


def all_columns(family: MetricFamily) -> list[str]:
    return [c for c in column_order(family) if c not in FIXED_COLUMNS]


def default_columns(family: MetricFamily) -> list[str]:
    """What fits a laptop screen: the headline score with its interval, the counts (n,
    failed, copies), the setting, and the other scores shown by default (no intervals), up
    to two of them; the column chooser holds the rest."""
    head = headline(family)
    shown = {head.label, f"{head.label} CI", "setting", *DEFAULT_TAIL}
    shown |= {c.label for c in family.columns if c.default_shown and c is not head}
    others = [c.label for c in family.columns if c.default_shown and c is not head]
    shown -= set(others[2:])
    return [c for c in all_columns(family) if c in shown]


def numeric_frame(df: pd.DataFrame, family: MetricFamily, bounds: bool = False) -> pd.DataFrame:
    """One row per result: a short model name (the revision and setting in their own
    columns), numeric scores with their intervals in their own columns (as text, or with
    ``bounds`` as two numbers each, "… CI low" and "… CI high", for downloads).  The frame's
    ``attrs["kind"]`` says which rows are reference entries."""
    if df.empty:
        return pd.DataFrame()
    rows = []
    kinds = []
    links: list[str | None] = []
    for _, r in df.iterrows():
        row: dict[str, Any] = entry_cells(r)
        row["model"] = r["model_id"]
        row["revision"] = r["revision"]
        del row["size"]  # as text ("8B"); a number here, so that it sorts as one
        params = pd.to_numeric(r["parameters"], errors="coerce")
        row[SIZE] = round(float(params) / 1e9, 3) if pd.notna(params) and params > 0 else None
        for key, label in score_columns(family):
            if label.endswith(" CI") and bounds:
                for end in ("low", "high"):
                    v = r.get(f"{key}_ci_{end}")
                    row[f"{label} {end}"] = None if v is None or pd.isna(v) else round(float(v), DECIMALS)
            elif label.endswith(" CI"):
                row[label] = fmt_ci(r, key) if key in r else ""
            else:
                value = r.get(key)
                row[label] = None if value is None or pd.isna(value) else round(float(value), DECIMALS)
        row.update(
            {
                "queries": int(r["queries"]),
                "n": int(r["n"]),
                "failed": int(r["failed"]),
                "copies": int(r["copies"]),
                "shared mean": None
                if r.get("shared_mean") is None or pd.isna(r["shared_mean"])
                else round(float(r["shared_mean"]), DECIMALS),
                "task": f"{r['task']}@{r['task_version']}",
                "judge profile": r["judge_profile"],
                "board": r["board"],
            }
        )
        rows.append(row)
        kinds.append(str(r.get("kind", "model")) if is_reference(r) else "model")
        links.append(r.get("link") if isinstance(r.get("link"), str) else None)
    order = column_order(family)
    if bounds:
        order = [x for c in order for x in ((f"{c} low", f"{c} high") if c.endswith(" CI") else (c,))]
    out = pd.DataFrame(rows)[order]
    out.attrs["kind"] = kinds
    out.attrs["link"] = links
    return out


def table_view(
    lb: Leaderboard,
    family_id: str,
    flt: Filters,
    columns: list[str] | None,
    bounds: bool = False,
) -> pd.DataFrame:
    """The rows that pass the filters, in the leaderboard's order (board, models by rank
    then the ranked score, best first, then the board's reference entries), with the chosen
    columns (with ``bounds``, each interval as two numeric columns, for downloads).

    Missing numbers stay ``None`` (a blank cell that sorts last when descending);
    missing text is "—".  Sorting by any other column is the table's own column menu.
    """
    fam = REGISTRY[family_id]
    view = numeric_frame(
        filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt),
        fam,
        bounds=bounds,
    )
    if view.empty:
        out = pd.DataFrame({"model": ["no results match"]})
        out.attrs["kind"] = ["model"]
        out.attrs["link"] = [None]
        return out
    chosen = set(columns or [])
    chosen |= {f"{c} {end}" for c in chosen if c.endswith(" CI") for end in ("low", "high")}
    shown = [c for c in view.columns if c in FIXED_COLUMNS or c in chosen]
    out = view[shown].reset_index(drop=True).astype(object)
    numbers = [c for c in out.columns if is_number(c, fam)]
    text = [c for c in out.columns if c not in numbers]
    out[numbers] = out[numbers].where(out[numbers].notna(), None)
    out[text] = out[text].where(out[text].notna(), MISSING)
    for col in INTEGER_COLUMNS & set(out.columns):  # a reference's empty rank made them floats
        out[col] = pd.Series(
            [None if v is None or pd.isna(v) else int(v) for v in out[col]], index=out.index, dtype=object
        )
    out.attrs["kind"] = list(view.attrs.get("kind", []))
    out.attrs["link"] = list(view.attrs.get("link", []))
    return out


def is_number(column: str, family: MetricFamily) -> bool:
    labels = {c.label for c in family.columns}
    return (
        column in NUMBER_COLUMNS
        or column in labels
        or (column.endswith((" CI low", " CI high")) and column.rsplit(" CI ", 1)[0] in labels)
    )


def datatypes(view: pd.DataFrame, family: MetricFamily) -> list[str]:
    """Each column's Dataframe datatype: numbers sort as numbers in the column menu; the model
    name is a link (HTML built by :func:`model_cell` from escaped text only)."""
    return [
        "number" if is_number(c, family) else ("html" if c in HTML_COLUMNS else "str") for c in view.columns
    ]


#: columns drawn as HTML (built from escaped text only): the model's link, the setting's words
HTML_COLUMNS = ("model", "setting")


def words_cell(value: Any) -> str:
    """Text that wraps only between its words, never at a hyphen inside one ("sub-questions"
    whole): each word escaped, in a span that does not break."""
    return " ".join(f"<span class='gc-word'>{html.escape(w)}</span>" for w in str(value).split())


def model_cell(name: Any, link: str | None, kind: str | None = None) -> str:
    """A model name as the board shows it: a link to its model page or submission
    (:func:`benchmark.board.links.model_link`) opening in a new tab, a reference entry's kind
    beside it.  Names come from submissions: escaped, as is the URL."""
    shown = html.escape(str(name))
    if link and link.startswith(("https://", "http://")):
        shown = (
            f"<a href='{html.escape(link, quote=True)}' target='_blank' rel='nofollow noopener' "
            f"title='{html.escape(link, quote=True)}'>{shown}</a>"
        )
    return shown + (f" [{html.escape(kind)}]" if kind and kind != "model" else "")


#: a reference row's look: italic on a faint tint (readable in light and dark mode), the
#: first one of a board under a rule that parts it from the models
REFERENCE_STYLE = "font-style: italic; background-color: rgba(127, 127, 127, 0.16)"
REFERENCE_RULE = "; border-top: 3px double currentColor"


def styled(view: pd.DataFrame, family: MetricFamily) -> Any:
    """``view`` with every score shown to the same number of decimals ("0.500", not "0.5");
    the cells keep their numbers, so the column menu still sorts them as numbers.  A
    reference entry's rank reads "ref" and its name carries its kind ("[ceiling check]")."""
    scores = [c for c in view.columns if c in {col.label for col in family.columns}]
    sizes = [c for c in view.columns if c == SIZE]  # 0.135, 8, 70: as few digits as they need
    kinds = list(view.attrs.get("kind", [])) or ["model"] * len(view)
    counts = [c for c in view.columns if c in INTEGER_COLUMNS]
    out = (
        view.style.format(precision=DECIMALS, na_rep="", subset=scores)
        .format("{:g}", na_rep="", subset=sizes)
        .format(lambda v: "" if v is None or pd.isna(v) else str(int(v)), subset=counts)
    )
    links = list(view.attrs.get("link", [])) or [None] * len(view)
    if "model" in view.columns:  # every name escaped, a link where the entry has a page
        for i in range(len(view)):
            link, kind = links[i] if i < len(links) else None, kinds[i] if i < len(kinds) else "model"
            out = out.format(
                lambda v, u=link, k=kind: model_cell(v, u, k),
                subset=pd.IndexSlice[view.index[[i]], ["model"]],
            )
    if "setting" in view.columns:
        out = out.format(words_cell, subset=["setting"])
    refs = [i for i, k in enumerate(kinds[: len(view)]) if k != "model"]
    if not refs:
        return out
    idx = view.index[refs]
    if "rank" in view.columns:
        out = out.format(lambda _: "ref", subset=pd.IndexSlice[idx, ["rank"]])
    first = {i for i in refs if i == 0 or kinds[i - 1] == "model"}
    styles = pd.DataFrame("", index=view.index, columns=view.columns)
    for i in refs:
        styles.iloc[i, :] = REFERENCE_STYLE + (REFERENCE_RULE if i in first else "")
    return out.apply(lambda _: styles, axis=None)


def shown_table(view: pd.DataFrame, family: MetricFamily) -> Any:
    """The Dataframe update for ``view``: its values, each column's datatype and width."""
    return gr.Dataframe(
        value=styled(view, family), datatype=datatypes(view, family), column_widths=column_widths(view)
    )


#: pixels a column takes at most: long text (a setting, a model name) wraps at its spaces
#: inside it, so that at 1366 px the headline, its interval, failed and copies are in view
#: and the setting is read whole, never cut at the screen's edge
WIDTHS = {
    "rank": 64,
    "model": 310,
    "n": 56,
    "failed": 72,
    "copies": 74,
    "setting": 230,
    "revision": 150,
    SIZE: 96,
    "open weights": 110,
    "queries": 80,
    "shared mean": 110,
    "task": 170,
    "judge profile": 220,
    "board": 320,
}
CHAR_PX = 8.5  # a header character in the table's monospace font


def column_widths(view: pd.DataFrame) -> list[str]:
    """Each shown column's width: :data:`WIDTHS`, an interval 150 px, any other score as wide
    as its header (headers never wrap)."""
    out = []
    for c in view.columns:
        header = round(CHAR_PX * len(str(c))) + 28  # its padding and menu button
        if c in WIDTHS:
            out.append(f"{max(WIDTHS[c], header)}px")
        elif str(c).endswith(" CI"):
            out.append(f"{max(150, header)}px")
        else:
            out.append(f"{max(84, header)}px")
    return out


_DOWNLOADS: list[Path] = []


def _downloads() -> Path:
    """One folder for the process's downloads, removed when it exits (a table update writes
    over its tab's file rather than leaving a folder behind)."""
    if not _DOWNLOADS:
        _DOWNLOADS.append(Path(tempfile.mkdtemp(prefix="groundcover-csv-")))
        atexit.register(shutil.rmtree, _DOWNLOADS[0], True)
    return _DOWNLOADS[0]


def download_frame(view: pd.DataFrame) -> pd.DataFrame:
    """The shown table for a download: numbers as numbers, each interval as its bounds, and
    a ``kind`` column (model, or a reference entry's kind)."""
    out = view.copy()
    kinds = list(view.attrs.get("kind", []))
    for col in ("rank", "n", "failed", "copies", "queries"):
        if col in out.columns:
            out[col] = pd.array(
                [None if v is None or pd.isna(v) else int(v) for v in out[col]], dtype="Int64"
            )
    if len(kinds) == len(out) and "model" in out.columns:
        out.insert(list(out.columns).index("model") + 1, "kind", kinds)
    return out


def write_csv(view: pd.DataFrame, family_id: str) -> str:
    """The table for the download button, as CSV; one file per tab, rewritten per view."""
    path = _downloads() / f"groundcover-{family_id}.csv"
    exports.write_csv(download_frame(view), path)
    return str(path)


def trust_html(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """The judge card's lines for the boards shown, a banner first where a main-score judge is
    at chance or below a baseline (:mod:`benchmark.board.trust`); escaped text only."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    if df.empty:
        return ""
    parts = []
    for t in trusts(REGISTRY[family_id], df):
        if t.banner:
            parts.append(f"<div class='gc-banner' role='alert'>{html.escape(t.banner)}</div>")
        parts += [
            f"<div class='gc-card'>{card_kind(x)} ({html.escape(t.profile)}, {html.escape(t.score)}): "
            f"{html.escape(x)}</div>"
            for x in t.lines
        ]
    for board_id in sorted(df["board_id"].unique()):
        parts += [
            f"<div class='gc-banner' role='alert'>{html.escape(line)}</div>"
            for line in failure_lines(REGISTRY[family_id], df[df["board_id"] == board_id])
        ]
    return "".join(parts)


#: columns of counts and ranks: whole numbers, never "3.000"
COUNT_LIKE = INTEGER_COLUMNS | {"rank A", "rank B", "shared queries"}
#: p-values: three decimals, and "< 0.001" below that (never a bare 0.000)
P_COLUMNS = {"p", "Holm p"}


def three_decimals(frame: pd.DataFrame) -> Any:
    """``frame`` with every score shown to three decimals ("1.000", not "1"), counts and
    ranks as whole numbers, a missing number blank; the cells keep their numbers, so a
    column's menu sorts them as numbers."""
    if frame.empty:
        return frame
    numeric = [
        c
        for c in frame.columns
        if all(v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in frame[c])
        and any(v is not None for v in frame[c])
    ]
    counts = [c for c in numeric if c in COUNT_LIKE]
    ps = [c for c in numeric if c in P_COLUMNS]
    scores = [c for c in numeric if c not in counts and c not in ps]
    return (
        frame.style.format(precision=DECIMALS, na_rep="", subset=scores)
        .format(lambda v: "" if v is None or pd.isna(v) else str(int(v)), subset=counts)
        .format(
            lambda v: "" if v is None or pd.isna(v) else ("< 0.001" if v < 0.001 else f"{v:.3f}"), subset=ps
        )
    )


def counts_text(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """How many results are shown of how many, on how many boards, and when the newest
    result was scored (plain text: no name from a submission in it)."""
    table = lb.tables.get(family_id, pd.DataFrame())
    df = filter_rows(table, flt)
    mine = [e for e in lb.entries if e.result.metric_family == family_id]
    newest = max((e.result.run.finished for e in mine), default="")
    boards = df["board_id"].nunique() if not df.empty else 0
    refs = int(df["reference"].astype(bool).sum()) if not df.empty else 0
    parts = [f"Showing {len(df)} of {len(table)} results on {boards} board{'s' if boards != 1 else ''}"]
    if refs:
        parts.append(f"{refs} of them reference entr{'ies' if refs != 1 else 'y'} (not ranked)")
    if newest:
        parts.append(f"last updated {str(newest)[:10]}")
    return " · ".join(parts)


def useful_filters(table: pd.DataFrame) -> dict[str, bool]:
    """Which filters change something on this tab: weights only where open and closed entries
    are both known, size only where some size limit keeps some rows and drops others, judge
    profile and task only where there is more than one."""
    if table.empty:
        return {"weights": False, "size": False, "profile": False, "task": False}
    known = set(table["open_weights"].dropna())
    params = pd.to_numeric(table["parameters"], errors="coerce")
    kept = {int((params.notna() & (params > 0) & (params <= lim)).sum()) for lim in SIZES.values() if lim}
    return {
        "weights": known == {True, False},
        "size": any(0 < k < len(table) for k in kept),
        "profile": table["judge_profile"].nunique() > 1,
        "task": table["task"].nunique() > 1,
    }
