"""groundcover leaderboard: a Gradio Blocks app over scored result files.

Run locally with ``benchmark space serve`` (from a checkout or an installed wheel), or as
the Hugging Face Space (``hf_space/app.py`` is its entry).  It reads result JSON, traces and
model cards from the results dataset pinned in the Space's ``results.yaml``
(:mod:`benchmark.board.results_dataset`), or, when that cannot be read or
``$GROUNDCOVER_RESULTS`` is set, from a local folder (default: the checkout's
``leaderboard/results/`` and ``submissions/``); the page says which.

One tab per registered metric family (:data:`benchmark.families.REGISTRY`): the ranked
table first, then its search, filters and columns, a CSV download of what is shown, and
the family's figures.  Scores are numbers (``datatype="number"``): a column's menu sorts
them as numbers, a missing one is a blank cell, never 0; then a drill-down into any result's per-query traces, rendered by
the family; then About, How to submit and Citation, as on the Hub's leaderboards.  No
code here names a family.

Every string shown comes from submissions and is untrusted: tables are plain-text
``Dataframe`` cells, and the drill-down HTML is built only from ``html.escape``-d text.
"""

from __future__ import annotations

import atexit
import html
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board import results_dataset
from benchmark.board.leaderboard import Entry, Leaderboard, build_leaderboard
from benchmark.board.releases import Comparison
from benchmark.board.render import RANKS_EXPLAINED, entry_cells, failure_lines, fmt_ci, is_reference
from benchmark.board.trust import card_kind, trusts
from benchmark.core import exports, figures, paths
from benchmark.core.results import traces_path
from benchmark.core.stats import ALPHA, MISSING, holm_adjusted
from benchmark.families import REGISTRY, MetricFamily
from benchmark.models.profiles import DEFAULT_PROFILE
from benchmark.space import releases as space_releases

#: the Space's folder (``hf_space/`` in a checkout; the Space's root when deployed): the pin
SPACE_DIR = Path(os.environ.get("GROUNDCOVER_SPACE_DIR", paths.REPO_ROOT / "hf_space"))
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
#: what each column that is not a score means (scores: the family's own descriptions)
COLUMN_HELP = {
    "rank": "1 + the number of models significantly better on the same queries (paired permutation "
    "test, Holm-corrected, α = 0.05); equal ranks: not significantly different. 'ref': a reference "
    "entry (baseline, oracle or ceiling check), never ranked among the models.",
    "model": "organisation/name, a link to its model page (or its submission when it has none); click "
    "elsewhere in the row to open its model card, per-query scores and traces.",
    "n": "queries the mean is over (those with a score).",
    "failed": "queries whose ranked score a judge failed on: left out of the mean, never counted as 0.",
    "copies": "judge replies that copied their prompt's worked example instead of judging (counted in failed).",
    "setting": "closed-book, retrieval-augmented (retriever, k), or a reference entry's declared setting.",
    "revision": "the model's commit or tag.",
    SIZE: "parameters in billions; blank when unknown or not a model.",
    "open weights": "yes/no from the model card; — without a card.",
    "queries": "queries on the board.",
    "shared mean": "mean over the queries every entry on the board has a score for (failing on hard "
    "queries cannot raise it).",
    "task": "task and version.",
    "judge profile": "the pinned judges that scored the answers; only one profile's results are ranked together.",
    "board": "what must be equal for scores to be comparable (family, task, queries, judges, settings).",
}
INTEGER_COLUMNS = {"rank", "queries", "n", "failed", "copies"}
NUMBER_COLUMNS = {"rank", SIZE, "queries", "n", "failed", "copies", "shared mean"}
DECIMALS = 3


def locate() -> results_dataset.Located:
    """An explicit local folder, else the pinned results dataset, else the local copy."""
    submissions = Path(os.environ.get("GROUNDCOVER_SUBMISSIONS", paths.REPO_ROOT / "submissions"))
    if os.environ.get("GROUNDCOVER_RESULTS"):
        results = Path(os.environ["GROUNDCOVER_RESULTS"])
        return results_dataset.Located(results, submissions, f"local folder {results}")
    pin = Path(os.environ.get("GROUNDCOVER_RESULTS_PIN", SPACE_DIR / "results.yaml"))
    return results_dataset.locate(pin, paths.REPO_ROOT / "leaderboard" / "results", submissions)


def load() -> tuple[Leaderboard, str]:
    where = locate()
    return build_leaderboard(where.results, where.submissions), where.source


# ---------------------------------------------------------------------------------
# Tables (pure: DataFrame in, DataFrame out)
# ---------------------------------------------------------------------------------


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


def select_results(lb: Leaderboard, family_id: str, flt: Filters) -> list[Any]:
    """The results shown by the filters, in the table's order (rank order, references last)."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    order = {key: n for n, key in enumerate(zip(df.get("model", []), df.get("board_id", []), strict=False))}
    mine = [
        e for e in lb.entries if (e.model_label, e.board_id) in order and e.result.metric_family == family_id
    ]
    return [e.result for e in sorted(mine, key=lambda e: order[(e.model_label, e.board_id)])]


def figure_caption(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """Which entries the figures are drawn for, named as the figures name them (escaped), each
    with its colour (one per entry, the same in every figure and tab): the figures' own record
    of the selection they show."""
    results = select_results(lb, family_id, flt)
    if not results:
        return "<p class='gc-figcaption'>Figures: no results match.</p>"
    names = figures.plot_names(results)  # as the figures name them
    items = "".join(
        f"<li data-entry='{html.escape(r.model.label, quote=True)}' title='{html.escape(r.model.label, quote=True)}'>"
        f"<span class='gc-swatch' style='background:{figures.plot_colour(r.model.label)}'></span>"
        f"{html.escape(names[i])}" + (" [reference]" if _is_ref(lb, r) else "") + "</li>"
        for i, r in enumerate(results)
    )
    return f"<div class='gc-figcaption'>Figures drawn for {len(results)} entries, in rank order:<ul>{items}</ul></div>"


def _is_ref(lb: Leaderboard, result: Any) -> bool:
    return any(e.result is result and e.is_reference for e in lb.entries)


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


def family_figures(
    lb: Leaderboard, family_id: str, option: str | None, titles: list[str], flt: Filters
) -> list[Any]:
    """The tab's interactive figures for the selection, one per title the tab was built with
    (a selection with nothing to draw gets a figure that says so)."""
    plots = REGISTRY[family_id].plots(select_results(lb, family_id, flt), option)
    return [plots[t] if t in plots else figures.plot_empty("no results match the filters") for t in titles]


def shown_name(r: pd.Series) -> str:
    """An entry's name as the table shows it: the model, with its setting unless closed-book."""
    setting = str(r["setting"])
    return str(r["model_id"]) if setting == "closed-book" else f"{r['model_id']} ({setting})"


def pairwise_frame(lb: Leaderboard, family_id: str, flt: Filters) -> pd.DataFrame:
    """Why two models share or swap a rank: for every pair of ranked models shown on a board,
    the mean difference on the queries both have a score for, the paired permutation test's
    p-value, and the Holm-adjusted p-value the rank counted against α (the lower-ranked
    model's).  Reference entries are not ranked, so not here."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    fam = REGISTRY[family_id]
    rows: list[dict[str, Any]] = []
    for board_id in dict.fromkeys(df["board_id"]) if not df.empty else []:
        cmp = lb.comparisons.get(board_id)
        sub = df[(df["board_id"] == board_id) & ~df["reference"].astype(bool)]
        if cmp is None or len(sub) < 2:
            continue
        col = fam.column(str(sub["ranked_by"].iloc[0]))
        sign = 1.0 if col is None or col.higher_is_better else -1.0
        info = {r["model"]: r for _, r in sub.iterrows()}
        index = {m: i for i, m in enumerate(cmp.models)}
        adjusted = holm_adjusted(cmp)
        order = [m for m in sub["model"] if m in index]  # rank order, best first
        for a_pos, a in enumerate(order):
            for b in order[a_pos + 1 :]:
                i, j = index[a], index[b]
                diff = float(cmp.mean_diff[i, j])
                held = adjusted[j, i] < ALPHA and sign * diff > 0 and cmp.n_shared[i, j] > 0
                rows.append(
                    {
                        "rank A": _rank(info[a]["rank"]),
                        "A": shown_name(info[a]),
                        "rank B": _rank(info[b]["rank"]),
                        "B": shown_name(info[b]),
                        "mean A − B": round(diff, DECIMALS),
                        "shared queries": int(cmp.n_shared[i, j]),
                        "p": round(float(cmp.pvalue[i, j]), 4),
                        "Holm p": round(float(adjusted[j, i]), 4),
                        "A significantly better": "yes" if held else "no",
                        "board": str(info[a]["board"]),
                    }
                )
    columns = ["rank A", "A", "rank B", "B", "mean A − B", "shared queries", "p", "Holm p"]
    columns += ["A significantly better", "board"]
    return pd.DataFrame(rows, columns=columns)


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


def _rank(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


PAIRWISE_HELP = (
    "Each pair of ranked models on the board shown: the mean difference of the ranked score on the "
    "queries both have a score for, the two-sided paired permutation test's p-value, and the "
    f"Holm-adjusted p-value that the lower model's rank was tested against (α = {ALPHA}). A model "
    "ranks below another only when that adjusted p is under α: two models with different means can "
    "share a rank, and a model with the higher mean over its own queries can rank lower when the "
    "difference on shared queries points the other way or a lower score is better (as for DecompScore's "
    "scores where the column says so)."
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


def column_help(family: MetricFamily) -> list[tuple[str, str]]:
    """(column, what it means) for every column a family's board can show, in board order."""
    items = [("rank", COLUMN_HELP["rank"]), ("model", COLUMN_HELP["model"])]
    for c in (headline(family), *(c for c in family.columns if c is not headline(family))):
        items.append((c.label, c.description))
        if c is headline(family):
            items.append((f"{c.label} CI", "95% bootstrap confidence interval over queries."))
            items += [(k, COLUMN_HELP[k]) for k in COUNT_COLUMNS]
    cols = set(column_order(family))
    items += [(k, v) for k, v in COLUMN_HELP.items() if k in cols and k not in dict(items)]
    labels = dict(items)
    items += [
        (f"{c.label} CI", f"95% bootstrap confidence interval of {c.label} over queries.")
        for c in family.columns
        if f"{c.label} CI" not in labels
    ]
    return items


#: the pairwise view's and the per-query table's own columns
PAIRWISE_COLUMN_HELP = {
    "rank A": "A's rank on the board.",
    "A": "the better-ranked model of the pair (its setting in brackets unless closed-book).",
    "rank B": "B's rank on the board.",
    "B": "the other model of the pair.",
    "mean A − B": "mean difference of the ranked score on the queries both have a score for.",
    "shared queries": "queries both models have a score for: the test is over these.",
    "p": "two-sided paired permutation test's p-value of the difference.",
    "Holm p": "the p-value Holm-adjusted over the board's pairs; a rank counts it against α = 0.05.",
    "A significantly better": "yes when the Holm p is under α and the difference favours A.",
    "board": COLUMN_HELP["board"],
}
QUERY_COLUMN_HELP = {
    "query": "the query's id (click a row to open its trace).",
    "text": "the start of the query's text.",
    "failed": "yes when a judge failed on every score of this query (left out of the means).",
    "failures": "what failed, stage by stage.",
}


def header_help() -> dict[str, dict[str, str]]:
    """What every column of every table means, by the table's element id: each header's
    tooltip (see :data:`HEADER_JS`).  The texts are the project's own, never a submission's."""
    out: dict[str, dict[str, str]] = {}
    scores: dict[str, str] = {}
    for fid, fam in REGISTRY.items():
        out[f"gc-table-{fid}"] = dict(column_help(fam))
        out[f"gc-pairs-{fid}"] = dict(PAIRWISE_COLUMN_HELP)
        for k, v in column_help(fam):
            scores.setdefault(k, v)
    out["gc-summary"] = dict(scores)
    out["gc-queries"] = {**{k: v for k, v in scores.items() if not k.endswith(" CI")}, **QUERY_COLUMN_HELP}
    return out


def column_help_html(family: MetricFamily) -> str:
    """What each column means, as a collapsible list under the table (escaped text only)."""
    items = column_help(family)
    body = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in items)
    return (
        "<details class='gc-help'><summary>What each column means</summary>"
        f"<dl>{body}</dl><p>Any X CI column: the 95% interval of X.</p></details>"
    )


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


# ---------------------------------------------------------------------------------
# Per-model drill-down
# ---------------------------------------------------------------------------------


def entry_order(lb: Leaderboard) -> list[int]:
    """Entries as the boards show them: family, board, models by rank, then references."""
    families = list(REGISTRY)
    position: dict[tuple[str, str], int] = {}
    for table in lb.tables.values():
        for n, (_, r) in enumerate(table.iterrows()):
            position[(r["board_id"], r["model"])] = n
    return sorted(
        range(len(lb.entries)),
        key=lambda i: (
            families.index(lb.entries[i].result.metric_family)
            if lb.entries[i].result.metric_family in families
            else len(families),
            position.get((lb.entries[i].board_id, lb.entries[i].model_label), 10**6),
        ),
    )


def run_choices(lb: Leaderboard) -> list[tuple[str, str]]:
    """One choice per result, in board order: family, name, task, judge profile."""
    out = []
    for i in entry_order(lb):
        e = lb.entries[i]
        fam = REGISTRY.get(e.result.metric_family)
        ref = f" [{e.kind}]" if e.is_reference else ""
        out.append(
            (
                f"{fam.title if fam else e.result.metric_family}: {e.model_label}{ref} · {e.result.task.id} · "
                f"{e.result.profile_id}",
                str(i),
            )
        )
    return out


def entry_of_row(lb: Leaderboard, family_id: str, row: list[Any] | None, *state: Any) -> int | None:
    """The entry of a clicked table row: the row of the current view whose cells equal the
    clicked row's (the view is recomputed from the same filters and columns)."""
    if not row:
        return None
    *values, columns = state
    flt = Filters.of(*values)
    view = table_view(lb, family_id, flt, columns)
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)
    if df.empty or len(view) != len(df):
        return None

    def same(a: Any, b: Any) -> bool:
        if a is None or (isinstance(a, float) and pd.isna(a)) or a == "":
            return b is None or b == "" or (isinstance(b, float) and pd.isna(b))
        try:
            return abs(float(a) - float(b)) < 1e-9
        except (TypeError, ValueError):
            return str(a) == str(b)

    for n, (_, cells) in enumerate(view.iterrows()):
        if len(cells) == len(row) and all(same(v, w) for v, w in zip(cells, row, strict=True)):
            r = df.iloc[n]
            for i, e in enumerate(lb.entries):
                if e.model_label == r["model"] and e.board_id == r["board_id"]:
                    return i
    return None


def card_html(entry: Entry) -> str:
    """The model card of an entry (every field escaped; links are the card's validated URLs)."""
    e = html.escape
    card = entry.card
    name = e(entry.model_label)
    if card is None:
        return f"<div class='gc-cardview'><h3>{name}</h3><p>No model card was submitted.</p></div>"
    links = "".join(
        f"<li><a href='{e(str(u), quote=True)}' rel='nofollow noopener' target='_blank'>{e(str(u))}</a></li>"
        for u in card.links
        if str(u).startswith(("https://", "http://"))
    )
    kind = (
        f"<p class='gc-refnote'><b>Reference entry: {e(card.kind)}.</b> Shown apart from the models and "
        "never ranked among them.</p>"
        if card.is_reference
        else ""
    )
    facts = [
        ("kind", card.kind),
        ("setting", card.reference_setting or card.setting),
        ("revision", card.revision),
        ("license", card.license),
        ("parameters", "—" if not card.parameters else f"{card.parameters:,}"),
        ("open weights", "yes" if card.open_weights else "no"),
        ("contact", card.contact),
    ]
    facts += [(f"generation: {k}", str(v)) for k, v in sorted(card.generation.items())]
    rows = "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in facts)
    desc = f"<p>{e(card.description)}</p>" if card.description else ""
    return (
        f"<div class='gc-cardview'><h3>{name}</h3>{kind}{desc}<table>{rows}</table>"
        + (f"<p>Links:</p><ul>{links}</ul>" if links else "")
        + "</div>"
    )


@lru_cache(maxsize=64)
def _traces(path: str) -> dict[str, dict[str, Any]]:
    p = traces_path(Path(path))
    out: dict[str, dict[str, Any]] = {}
    if p.exists() and not p.is_symlink():
        # split on "\n" only: U+2028 and friends inside an answer are not line ends
        for line in p.read_text(encoding="utf-8").split("\n"):
            try:
                tr = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(tr, dict) and "query_id" in tr:
                out[str(tr["query_id"])] = tr
    return out


def traces_of(entry: Entry) -> dict[str, dict[str, Any]]:
    return _traces(str(entry.path)) if entry.path is not None else {}


def per_query_frame(entry: Entry) -> pd.DataFrame:
    """Each query's scores as numbers (the column menu sorts them; a missing one is blank)."""
    traces = traces_of(entry)
    fam = REGISTRY.get(entry.result.metric_family)
    rows = []
    for q in entry.result.per_query:
        tr = traces.get(q.query_id, {})
        rows.append(
            {
                "query": q.query_id,
                "text": str(tr.get("query", ""))[:120],
                **{
                    (fam.label(k) if fam else k): None if v is None else round(float(v), DECIMALS)
                    for k, v in q.scores.items()
                },
                "failed": "yes" if q.failed else "",
                "failures": "; ".join(q.failures),
            }
        )
    return pd.DataFrame(rows).astype(object).where(lambda d: d.notna(), None) if rows else pd.DataFrame()


def query_choices(entry: Entry) -> list[tuple[str, str]]:
    """Each query by its id and the start of its text."""
    traces = traces_of(entry)
    out = []
    for q in entry.result.per_query:
        text = " ".join(str(traces.get(q.query_id, {}).get("query", "")).split())
        out.append((f"{q.query_id} — {text[:70]}" if text else q.query_id, q.query_id))
    return out


#: a trace page holds about this many characters of trace JSON, passages mostly (collapsed
#: under their claims): a 121k-character ICAT trace was one 12,000 px page
TRACE_PAGE_CHARS = 60_000


def trace_pages(trace: dict[str, Any]) -> tuple[str | None, list[tuple[int, int]]]:
    """How a long trace is paged: its largest list (claims, units, …) cut into runs of items
    of about :data:`TRACE_PAGE_CHARS`; one page when it is short."""
    lists = {k: v for k, v in trace.items() if isinstance(v, list) and v}
    if not lists or len(json.dumps(trace, ensure_ascii=False)) <= TRACE_PAGE_CHARS:
        return None, [(0, 0)]
    key = max(lists, key=lambda k: len(json.dumps(lists[k], ensure_ascii=False)))
    pages: list[tuple[int, int]] = []
    start, size = 0, 0
    for i, item in enumerate(lists[key]):
        n = len(json.dumps(item, ensure_ascii=False))
        if size and size + n > TRACE_PAGE_CHARS:
            pages.append((start, i))
            start, size = i, 0
        size += n
    pages.append((start, len(lists[key])))
    return (key, pages) if len(pages) > 1 else (None, [(0, 0)])


def detail_html(entry: Entry, query_id: str, page: int = 0) -> str:
    """One page of a query's trace, rendered by its family (escaped there)."""
    trace = traces_of(entry).get(str(query_id))
    fam = REGISTRY.get(entry.result.metric_family)
    if trace is None or fam is None:
        return "<p>no trace for this query</p>"
    key, pages = trace_pages(trace)
    if key is None:
        return fam.trace_html(trace)
    page = min(max(page, 0), len(pages) - 1)
    start, end = pages[page]
    note = (
        f"<p class='gc-page-note'>Page {page + 1} of {len(pages)}: {html.escape(key)} {start + 1}–{end} of "
        f"{len(trace[key])} (choose another page above).</p>"
    )
    # "page": which list is cut and where this page starts, so that a family numbers the
    # page's items on from the last page (claim 31, not 1 again)
    return note + fam.trace_html({**trace, key: trace[key][start:end], "page": {"list": key, "start": start}})


def page_choices(entry: Entry, query_id: str) -> list[tuple[str, str]]:
    trace = traces_of(entry).get(str(query_id))
    if trace is None:
        return []
    key, pages = trace_pages(trace)
    if key is None:
        return []
    return [(f"page {n + 1}: {key} {a + 1}–{b}", str(n)) for n, (a, b) in enumerate(pages)]


# ---------------------------------------------------------------------------------
# Text views
# ---------------------------------------------------------------------------------

PICK_A_RESULT = "*Choose a result above to see its scores, each query's scores, and what the judges saw.*"

INTRO = """# groundcover leaderboard
Is what an answer says **grounded**, and does it **cover** what matters? Scores are computed by the project
from submitted answers with a pinned judge profile. Pick a judge profile under *Search and filters*:
results are only ranked against results on the same board."""

ABOUT = f"""## About

**groundcover** scores long-form and retrieval-augmented answers with metrics from the literature,
each a *metric family*: {", ".join(f"**{f.title}** ({html.escape(f.description)})" for f in REGISTRY.values())}.

* **Scores are computed by the project**, from data-only submissions, with a pinned judge profile;
  submitters never send scores. Every result records which judge models produced it.
* **Like with like.** A *board* is one metric family × task version × task data × knowledge corpus ×
  set of scored queries × judge profile × rank-relevant settings (such as ICAT's β). Only results on
  the same board are ranked together; the *board* column names it.
* **Ranks.** {RANKS_EXPLAINED}
* **Closed-book and retrieval-augmented runs** of one model are two entries (the *setting* column).
* **Missing is missing** (—), never zero; a query the scorer could not judge is counted under *failed*.
* **Copies** counts judge replies that reproduced their prompt's worked example instead of judging
  (after a retry with a repair turn, they are failures with their raw text kept, never ratings).
* **The offline judge profile** (`{DEFAULT_PROFILE}`) runs anywhere with no model hub; its judges are
  small stand-ins (see the project README), so its numbers tell systems apart on the bundled data but
  are not comparable with real-judge profiles, and are never ranked beside them.
"""

FAQ = f"""## Frequently asked questions

**How are ranks computed?** {RANKS_EXPLAINED} Open *Why these ranks: pairwise tests* under a board
to see, for every pair of models, the mean difference on the queries both have a score for, the
p-value, and the Holm-adjusted p-value the rank was tested against.

**Why do two entries with different means share a rank, or a lower mean rank higher?** A rank
counts only the models *significantly* better on the same queries. With a dozen queries, a
difference of a few hundredths is usually within chance: the two share a rank. A mean is over the
queries an entry has a score for (*n*); the test is over the queries both entries share, so when
one entry failed on some queries, the two can point different ways. Where a lower score is better
(the column's description says so), the order is reversed.

**What are the intervals?** 95% bootstrap confidence intervals over queries. Overlapping
intervals do not decide a rank: the paired test does, as every entry answered the same queries.

**What is a judge card and its banner?** Each score is produced by judge models of a pinned
*judge profile*. The judge card reports how well the main score's judge agrees with public human
labels. A banner warns when that judge is at chance or below a simple baseline: read such a board
as a check that the pipeline runs, not as a ranking of quality.

**What do *failed* and *copies* mean?** *failed* counts queries whose ranked score a judge failed
on: they are left out of the mean (never counted as 0), and *n* says how many the mean is over. An
entry that failed on many more queries than the others is flagged, with its mean over the queries
every entry has (*shared mean*). *copies* counts judge replies that reproduced their prompt's worked
example instead of judging; they are among the failures.

**What are reference entries?** Baselines, oracles and ceiling checks, declared in their model card
(`kind`). They are shown after the models, marked (rank *ref*, their kind beside the name, a tinted
row under a rule), with the setting their card declares; they are never ranked among the models and
have no overall rank. For example `groundcover/bm25-extractive-top3` copies passages of the very
corpus the judges ground against: a ceiling check of the grounding stage, not a model.

**Can I share what I see?** The address bar holds the tab and its filters; copy it.
"""

HOW_TO_SUBMIT = """## How to submit

A submission is **data only**: your model's answers, never scores or code.

```bash
pip install groundcover            # or: bash scripts/setup.sh in a clone
benchmark evaluate --model hf --model-args pretrained=ORG/NAME --tasks webtrack-2009-2012 --no-score
#   retrieval-augmented: add --rag bm25 (the setting becomes part of the entry's name)
benchmark submit --outputs outputs/ORG__NAME --org ORG --name NAME --license apache-2.0 \\
    --parameters 1.5e9 --open-weights --contact you@example.org
benchmark validate submissions/ORG__NAME
```

Open a pull request that adds the folder under `submissions/`. The *submission* workflow validates it
(every problem is reported with file, line and field), scores it with the pinned judge profile, and
comments the ranked table; on merge the project's scores are published here.

Models served elsewhere work the same way: any model in lm-evaluation-harness's registry (`hf`, `vllm`,
`local-chat-completions` for an OpenAI-compatible server), or `lm_eval --log_samples` output of the
exported tasks (`benchmark tasks export-lm-eval`).
"""

GROUNDCOVER_CITATION = """@software{groundcover,
  title  = {groundcover: a benchmark and leaderboard for grounded, covering long-form answers},
  author = {groundcover developers},
  year   = {2026},
  url    = {https://github.com/groundcover-bench/groundcover}
}"""


def citation_text() -> str:
    parts = [
        "## Citation",
        "If you use the leaderboard, please cite groundcover and the papers of the metrics you report:",
    ]
    parts.append(f"```bibtex\n{GROUNDCOVER_CITATION}\n```")
    for fam in REGISTRY.values():
        if fam.citation:
            parts.append(f"**{fam.title}**\n\n```bibtex\n{fam.citation}\n```")
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------
# App
# ---------------------------------------------------------------------------------


def _on_change(components: list[Any], fn: Any, inputs: list[Any], outputs: Any) -> Any:
    """One listener for changes to any of ``components``; a burst of changes runs ``fn``
    once more at the end rather than once per change."""
    return gr.on(
        [c.change for c in components], fn, inputs=inputs, outputs=outputs, trigger_mode="always_last"
    )


def default_profile_of(profiles: list[str]) -> str | None:
    """The profile a tab opens on: the newest version of the offline default among the
    tab's own results (a family re-scored under a new version opens on it, one not yet
    re-scored on the version it has), else the first."""
    mine = [p for p in profiles if p.split("@")[0] == DEFAULT_PROFILE]
    version = lambda p: int(v) if (v := p.partition("@")[2]).isdigit() else -1  # noqa: E731
    return max(mine, key=version) if mine else (profiles[0] if profiles else None)


@dataclass
class FamilyTab:
    """The components of one family's tab that the app wires beyond the tab."""

    fid: str
    table: Any
    filters: list[Any]
    columns: Any


def _family_tab(lb: Leaderboard, fid: str, fam: MetricFamily, default_profile: str | None) -> FamilyTab:
    table = lb.tables.get(fid, pd.DataFrame())
    profiles = sorted(set(table["judge_profile"])) if not table.empty else lb.profiles
    default_profile = default_profile_of(profiles) if not table.empty else default_profile
    useful = useful_filters(table)
    # the tab's own tasks, and only filters that change something on it
    tasks = [ANY, *sorted(set(table["task"]))] if not table.empty else [ANY]
    cols = all_columns(fam)
    defaults = default_columns(fam)
    start_filters = Filters(profile=default_profile or ANY)
    first = table_view(lb, fid, start_filters, defaults)
    gr.Markdown(
        f"{html.escape(fam.description)} Ranked by each board's main score; reference entries "
        "(baselines, ceiling checks) are shown after the models, marked, and not ranked. See *FAQ*."
    )
    trust = gr.HTML(trust_html(lb, fid, start_filters), elem_id=f"gc-trust-{fid}")
    count = gr.Markdown(counts_text(lb, fid, start_filters), elem_id=f"gc-count-{fid}")
    shown = gr.Dataframe(
        value=styled(first, fam),
        datatype=datatypes(first, fam),
        column_widths=column_widths(first),
        interactive=False,
        wrap=True,
        pinned_columns=2,
        elem_id=f"gc-table-{fid}",
        elem_classes=["gc-board"],
    )
    gr.HTML(column_help_html(fam), elem_id=f"gc-help-{fid}")
    with gr.Row():
        download = gr.DownloadButton(
            "Download this table (CSV)",
            value=write_csv(table_view(lb, fid, start_filters, defaults, bounds=True), fid),
            size="sm",
            elem_id=f"gc-download-{fid}",
        )
    with gr.Accordion("Why these ranks: pairwise tests", open=False, elem_id=f"gc-pairs-acc-{fid}"):
        gr.Markdown(PAIRWISE_HELP)
        pairs_first = pairwise_frame(lb, fid, start_filters)
        pairs = gr.Dataframe(
            value=three_decimals(pairs_first),
            datatype=["number", "str", "number", "str", "number", "number", "number", "number", "str", "str"],
            interactive=False,
            wrap=True,
            elem_id=f"gc-pairs-{fid}",
            elem_classes=["gc-board"],
        )
    with gr.Accordion("Search and filters", open=True, elem_id=f"gc-filters-{fid}"), gr.Row():
        search = gr.Textbox(label="Search model", placeholder="e.g. llama", elem_id=f"gc-search-{fid}")
        # model-only filters are hidden where the entries are not models (decomposition methods)
        weights = gr.Dropdown(
            [ANY, "open", "closed"],
            value=ANY,
            label="Weights",
            elem_id=f"gc-weights-{fid}",
            visible=fam.ranks_models and useful["weights"],
        )
        size = gr.Dropdown(
            list(SIZES),
            value=ANY,
            label="Size",
            elem_id=f"gc-size-{fid}",
            visible=fam.ranks_models and useful["size"],
        )
        profile = gr.Dropdown(
            profiles or [ANY],
            value=default_profile or ANY,
            label="Judge profile",
            elem_id=f"gc-profile-{fid}",
            visible=useful["profile"],
        )
        task = gr.Dropdown(tasks, value=ANY, label="Task", elem_id=f"gc-task-{fid}", visible=useful["task"])
    with gr.Accordion("Columns", open=False, elem_id=f"gc-columns-acc-{fid}"):
        columns = gr.CheckboxGroup(cols, value=defaults, label="Columns", elem_id=f"gc-columns-{fid}")
    filters = [search, weights, size, profile, task]
    option = None
    if fam.view_options:
        option = gr.Radio(
            [label for label, _ in fam.view_options],
            value=fam.view_options[0][0],
            label="Figures for",
            elem_id=f"gc-option-{fid}",
        )
    values = dict(fam.view_options)
    start = values.get(fam.view_options[0][0]) if fam.view_options else None
    # interactive (Plotly) figures, entries in rank order, one colour per entry app-wide
    figs = fam.plots(select_results(lb, fid, start_filters), start)
    titles = list(figs)
    plots = []
    caption = (
        gr.HTML(figure_caption(lb, fid, start_filters), elem_id=f"gc-figcaption-{fid}") if figs else None
    )
    with gr.Row(equal_height=False):
        for n, (title, fig) in enumerate(figs.items(), start=1):
            # the title as text above the figure: Gradio's label badge covered the figure's own
            with gr.Column(min_width=420):
                gr.Markdown(f"**{html.escape(title)}**")
                plots.append(
                    gr.Plot(fig, show_label=False, elem_id=f"gc-fig-{fid}-{n}", elem_classes=["gc-figure"])
                )

    def _table(*vals: Any) -> tuple[Any, ...]:
        *filter_values, chosen = vals
        flt = Filters.of(*filter_values)
        view = table_view(lb, fid, flt, chosen)
        return (
            shown_table(view, fam),
            write_csv(table_view(lb, fid, flt, chosen, bounds=True), fid),
            trust_html(lb, fid, flt),
            counts_text(lb, fid, flt),
            three_decimals(pairwise_frame(lb, fid, flt)),
        )

    def _plots(*vals: Any) -> list[Any]:
        *filter_values, opt = vals if option is not None else (*vals, None)
        flt = Filters.of(*filter_values)
        return [
            *family_figures(lb, fid, values.get(opt) if opt else None, titles, flt),
            figure_caption(lb, fid, flt),
        ]

    # the table and the figures each have their own listener on every filter: a quick second
    # change runs each once more with the latest values (a chained update could be dropped,
    # leaving figures of an older selection beside the table)
    _on_change([*filters, columns], _table, [*filters, columns], [shown, download, trust, count, pairs])
    if plots:
        plot_inputs = [*filters, *([option] if option is not None else [])]
        _on_change(
            [*filters, *([option] if option is not None else [])], _plots, plot_inputs, [*plots, caption]
        )
    return FamilyTab(fid, shown, filters, columns)


#: the filters a share link carries, in each tab's filter order
URL_KEYS = ("q", "weights", "size", "profile", "task")

#: on a filter change: the tab's filters into the address bar (a share link), nothing sent
URL_JS = """(fid, ...vals) => {
    const u = new URL(window.location.href);
    u.searchParams.set('tab', fid);
    ['q', 'weights', 'size', 'profile', 'task'].forEach((k, i) => {
        const v = vals[i];
        if (v === undefined || v === null || v === '' || v === 'any') u.searchParams.delete(k);
        else u.searchParams.set(k, v);
    });
    window.history.replaceState(null, '', u.toString());
    return [];
}"""


def build_app(
    lb: Leaderboard | None = None, source: str | None = None, canary: Comparison | None = None
) -> gr.Blocks:
    if lb is None:
        lb, source = load()
        canary = space_releases.comparison(locate())  # the pin's candidate release, if any
    default_profile = default_profile_of(list(lb.profiles))
    # one colour per entry for the whole app, in board order
    figures.fix_colours([lb.entries[i].model_label for i in entry_order(lb)])
    tabs: list[FamilyTab] = []
    with gr.Blocks(title="groundcover leaderboard", delete_cache=(3600, 3600)) as demo:
        gr.Markdown(INTRO)
        if source:  # a path or dataset id: escaped, as everything else shown
            gr.Markdown(f"<small>Results shown: {html.escape(source)}</small>", elem_id="gc-source")
        with gr.Tabs(
            elem_id="gc-tabs", overflow_behavior="wrap"
        ) as tabset:  # every tab in sight, however many families
            for fid, fam in REGISTRY.items():
                with gr.Tab(fam.title, id=f"tab-{fid}", elem_id=f"gc-tab-{fid}"):
                    tabs.append(_family_tab(lb, fid, fam, default_profile))
            space_releases.canary_tab(canary)  # a canary's candidate release beside this one
            with gr.Tab("Model details", id="tab-model", elem_id="gc-tab-model"):
                run = gr.Dropdown(
                    run_choices(lb),
                    value=None,
                    label="Result (family: model · task · judge profile), or click a row of a board",
                    elem_id="gc-run",
                )
                hint = gr.Markdown(PICK_A_RESULT, elem_id="gc-details-hint")
                # nothing below shows until a result is chosen (empty tables read "1 2 3")
                with gr.Column(visible=False, elem_id="gc-details") as details:
                    card = gr.HTML(elem_id="gc-card")
                    summary = gr.Dataframe(
                        interactive=False,
                        wrap=True,
                        label="Scores",
                        elem_id="gc-summary",
                        elem_classes=["gc-board"],
                    )
                    queries = gr.Dataframe(
                        interactive=False,
                        wrap=True,
                        label="Per query (sort by any column from its menu; click a row for its trace)",
                        elem_id="gc-queries",
                        elem_classes=["gc-board"],
                    )
                    with gr.Row():
                        query = gr.Dropdown([], value=None, label="Query", elem_id="gc-query", scale=3)
                        trace_page = gr.Dropdown(
                            [],
                            value=None,
                            label="Trace page",
                            elem_id="gc-trace-page",
                            visible=False,
                            scale=1,
                        )
                    detail = gr.HTML(elem_id="gc-detail")

                def _open(idx: str | None) -> tuple[Any, ...]:
                    if idx is None or not str(idx).isdigit() or int(idx) >= len(lb.entries):
                        return (
                            gr.update(visible=True),
                            gr.update(visible=False),
                            "",
                            pd.DataFrame(),
                            pd.DataFrame(),
                            gr.update(choices=[], value=None),
                            "",
                        )
                    entry = lb.entries[int(idx)]
                    fam = REGISTRY.get(entry.result.metric_family)
                    table = lb.tables.get(entry.result.metric_family, pd.DataFrame())
                    row = (
                        table[(table["model"] == entry.model_label) & (table["board_id"] == entry.board_id)]
                        if not table.empty
                        else table
                    )
                    if fam and not row.empty:
                        frame = numeric_frame(row, fam)
                        summ = gr.Dataframe(
                            value=styled(frame, fam),
                            datatype=datatypes(frame, fam),
                            column_widths=column_widths(frame),
                        )
                    else:
                        summ = pd.DataFrame()
                    per_query = per_query_frame(entry)
                    q_types = [
                        "number" if c not in ("query", "text", "failed", "failures") else "str"
                        for c in per_query.columns
                    ]
                    return (
                        gr.update(visible=False),
                        gr.update(visible=True),
                        card_html(entry),
                        summ,
                        gr.Dataframe(value=three_decimals(per_query), datatype=q_types),
                        gr.update(choices=query_choices(entry), value=None),
                        "",
                    )

                def _valid(idx: str | None, qid: str | None) -> bool:
                    return (
                        idx is not None
                        and qid is not None
                        and str(idx).isdigit()
                        and int(idx) < len(lb.entries)
                    )

                def _detail(idx: str | None, qid: str | None) -> tuple[str, Any]:
                    if not _valid(idx, qid):
                        return "", gr.update(choices=[], value=None, visible=False)
                    entry = lb.entries[int(idx)]  # type: ignore[arg-type]
                    pages = page_choices(entry, str(qid))
                    return detail_html(entry, str(qid)), gr.update(
                        choices=pages, value=pages[0][1] if pages else None, visible=bool(pages)
                    )

                def _page(idx: str | None, qid: str | None, page: str | None) -> Any:
                    if not _valid(idx, qid) or page is None or not str(page).isdigit():
                        return gr.update()
                    return detail_html(lb.entries[int(idx)], str(qid), int(page))  # type: ignore[arg-type]

                def _pick_query(evt: gr.SelectData) -> Any:
                    row = evt.row_value or []
                    return gr.update(value=str(row[0])) if row else gr.update()

                run.change(_open, inputs=run, outputs=[hint, details, card, summary, queries, query, detail])
                query.change(_detail, inputs=[run, query], outputs=[detail, trace_page])
                trace_page.input(_page, inputs=[run, query, trace_page], outputs=detail)
                queries.select(_pick_query, None, query)
            with gr.Tab("FAQ", id="tab-faq", elem_id="gc-tab-faq"):
                gr.Markdown(FAQ)
            with gr.Tab("About", id="tab-about", elem_id="gc-tab-about"):
                gr.Markdown(ABOUT)
            with gr.Tab("How to submit", id="tab-submit", elem_id="gc-tab-submit"):
                gr.Markdown(HOW_TO_SUBMIT)
            with gr.Tab("Citation", id="tab-citation", elem_id="gc-tab-citation"):
                gr.Markdown(citation_text())
        if lb.skipped:  # file names come from the results tree: shown as plain text, never markup
            gr.Textbox("\n".join(lb.skipped), label="Skipped result files", interactive=False, lines=2)

        for ft in tabs:
            # a row click opens the entry's details
            def _row(evt: gr.SelectData, *state: Any, _fid: str = ft.fid) -> tuple[Any, Any]:
                idx = entry_of_row(lb, _fid, evt.row_value, *state)
                if idx is None:
                    return gr.update(), gr.update()
                return gr.Tabs(selected="tab-model"), gr.update(value=str(idx))

            ft.table.select(_row, [*ft.filters, ft.columns], [tabset, run])
            fid_box = gr.Textbox(ft.fid, visible=False)
            gr.on(
                [f.change for f in ft.filters],
                None,
                [fid_box, *ft.filters],
                None,
                js=URL_JS,
            )

        def _from_url(request: gr.Request) -> list[Any]:
            """A share link's tab and filters (unknown values are ignored)."""
            params = dict(request.query_params) if request is not None else {}
            out: list[Any] = []
            tab = params.get("tab")
            out.append(gr.Tabs(selected=f"tab-{tab}") if tab in REGISTRY else gr.update())
            for ft in tabs:
                mine = ft.fid == tab
                for key, comp in zip(URL_KEYS, ft.filters, strict=True):
                    value = params.get(key) if mine else None
                    if value is None:
                        out.append(gr.update())
                    elif key == "q":
                        out.append(gr.update(value=value[:200]))
                    else:
                        out.append(gr.update(value=value) if value in _choices(comp) else gr.update())
            return out

        demo.load(_from_url, None, [tabset, *[f for ft in tabs for f in ft.filters]])
    return demo


def _choices(component: Any) -> set[str]:
    return {str(c[1]) if isinstance(c, tuple | list) else str(c) for c in (component.choices or [])}


#: page styles Gradio's defaults lack: a rank header that does not wrap ("ra/nk"), and
#: headers of at most three lines, never a column of letters
CSS = """
.gc-board thead th:first-child, .gc-board tbody td:first-child { min-width: 3.6em; }
.gc-board thead th { min-width: 4.2em; }
.gc-board thead th, .gc-board thead th * { word-break: keep-all !important; overflow-wrap: normal !important;
  hyphens: none !important; white-space: nowrap !important; }
.gc-banner { background: #fff3cd !important; color: #3d2e00 !important; border-left: 4px solid #b38600;
  padding: .5rem .75rem; margin: .25rem 0; }
.gc-banner * { color: #3d2e00 !important; }
.gc-card { color: var(--body-text-color); font-size: .85rem; }
.gc-help summary, .gc-refnote { cursor: pointer; font-size: .9rem; }
.gc-help dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; font-size: .85rem; }
.gc-help dt { font-weight: 600; }
.gc-help dd { margin: 0; }
#gc-detail { max-height: 75vh; overflow: auto; }
.gc-answer { white-space: pre-wrap; }
.gc-figcaption { font-size: .85rem; }
.gc-board .gc-word { white-space: nowrap; }
.gc-board a[href] { color: inherit; text-decoration: underline; text-decoration-thickness: 1px;
  text-underline-offset: 2px; }
.gc-swatch { display: inline-block; width: .8em; height: .8em; border-radius: 50%; margin-right: .3em;
  vertical-align: -0.05em; border: 1px solid #ffffff; }
.gc-figcaption ul { display: flex; flex-wrap: wrap; gap: .2rem 1rem; list-style: none; padding: 0; margin: .2rem 0; }
.gc-cardview table { font-size: .85rem; }
.gc-cardview th { text-align: left; padding-right: 1rem; }
"""


#: on load: every table header's tooltip says what its column means ("ICAT-M — …", kept when
#: Gradio redraws a header, its column's name in ``data-gc-col``); a click on a model's link
#: opens its page without also opening the row's details.  ``__HELP__`` is JSON of the
#: project's own texts (:func:`header_help`), with "<" escaped.
HEADER_JS = """() => {
    const HELP = __HELP__;
    const SEP = ' \u2014 ';
    const apply = () => {
        for (const [id, cols] of Object.entries(HELP)) {
            for (const th of document.querySelectorAll('#' + id + ' thead th')) {
                const title = th.getAttribute('title') || '';
                let col = th.dataset.gcCol;
                if (!col || title !== col + SEP + cols[col]) col = title;
                const help = cols[col];
                if (!help) continue;
                th.dataset.gcCol = col;
                th.setAttribute('aria-description', help);
                if (title !== col + SEP + help) th.setAttribute('title', col + SEP + help);
            }
        }
    };
    new MutationObserver(apply).observe(document.body, {
        subtree: true, childList: true, attributes: true, attributeFilter: ['title'],
    });
    apply();
    document.addEventListener('click', e => {
        if (e.target instanceof Element && e.target.closest('.gc-board a[href]')) e.stopPropagation();
    }, true);
}"""


def page_js() -> str:
    """:data:`HEADER_JS` with the column help filled in."""
    return HEADER_JS.replace(
        "__HELP__", json.dumps(header_help(), ensure_ascii=False).replace("<", "\\u003c")
    )


def launch(demo: gr.Blocks, port: int | None = None) -> None:
    """Serve ``demo`` with the page's styles and script (Gradio takes them at launch)."""
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=port, css=CSS, js=page_js()
    )


if __name__ == "__main__":
    launch(build_app())
