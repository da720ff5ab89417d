"""The Space's ranked tables: a family's board filtered, its columns chosen and formatted, and
the CSV a visitor downloads of what is shown.  Scores stay numbers (a column's menu sorts them
as numbers; a missing one is blank, never 0); every cell drawn as HTML is built from escaped
text (:func:`name_html`)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Leaderboard
from benchmark.board.render import entry_cells, failure_lines, fmt_ci, is_reference, withheld_lines
from benchmark.board.trust import card_kind, trusts
from benchmark.core.errors import printable
from benchmark.core.stats import MISSING
from benchmark.families import REGISTRY, MetricFamily

ANY = "any"
SIZES = {ANY: None, "≤ 1B": 1e9, "≤ 10B": 1e10, "≤ 100B": 1e11}
FIXED_COLUMNS = ("rank", "model")
SIZE = "params (B)"
#: what says who a model entry is; decomposition methods have no setting, size or weights
MODEL_ONLY = ("setting", SIZE, "open weights")
#: the counts a reader must see beside the headline score (text.COLUMN_HELP says what they are)
COUNT_COLUMNS = ("n", "failed", "copies")
#: after the other scores: who the entry is, then on which board
TAIL_COLUMNS = ("queries", "shared mean", "task", "judge profile", "board")
DETAIL_COLUMNS = ("revision", SIZE, "open weights", *TAIL_COLUMNS)
DEFAULT_TAIL = ("n", "failed", "copies", SIZE)
#: what a downloaded table always says of each row, whatever columns are shown: which board
IDENTITY = ("task", "judge profile", "board id")

INTEGER_COLUMNS = {"rank", "queries", "n", "failed", "copies"}
NUMBER_COLUMNS = {"rank", SIZE, "queries", "n", "failed", "copies", "shared mean"}
DECIMALS = 3


def number(value: Any) -> float | None:
    """A score as the tables hold it: :data:`DECIMALS` decimals; ``None`` where missing."""
    return None if pd.isna(value) else round(float(value), DECIMALS)


def whole(value: Any) -> int | None:
    """A count or rank; ``None`` where missing (a reference entry has no rank)."""
    return None if pd.isna(value) else int(value)


def whole_text(value: Any) -> str:
    return "" if pd.isna(value) else str(int(value))


@dataclass(frozen=True)
class Filters:
    """A tab's filters, in the order Gradio hands them to callbacks (:meth:`of`)."""

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
    if search and search.strip():  # the board's names, and the names the figures and legends use
        names = [df[c].fillna("").astype(str) for c in ("model", "name", "setting_short") if c in df]
        found = pd.Series(False, index=df.index)
        for column in names:
            found |= column.str.contains(search.strip(), case=False, regex=False)
        keep &= found
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


def rows_shown(lb: Leaderboard, family_id: str, flt: Filters) -> pd.DataFrame:
    return filter_rows(lb.tables.get(family_id, pd.DataFrame()), flt)


def score_columns(family: MetricFamily) -> list[tuple[str, str]]:
    """(key, label) and (key, label + ' CI') of every score, the headline's first."""
    out = []
    for col in (headline(family), *(c for c in family.columns if c is not headline(family))):
        out += [(col.key, col.label), (col.key, f"{col.label} CI")]
    return out


def headline(family: MetricFamily) -> Any:
    """The score a board is read by: the family's first column shown by default."""
    return next((c for c in family.columns if c.default_shown), family.columns[0])


def column_order(family: MetricFamily) -> list[str]:
    """Every column, left to right: who, how good (the headline score, its interval and
    counts: in view at 1366 px without scrolling sideways), in which setting, the other scores,
    then the details."""
    scores = [label for _, label in score_columns(family)]
    cols = [*FIXED_COLUMNS, *scores[:2], *COUNT_COLUMNS, "setting", *scores[2:], *DETAIL_COLUMNS]
    return cols if family.ranks_models else [c for c in cols if c not in MODEL_ONLY]


def all_columns(family: MetricFamily) -> list[str]:
    return [c for c in column_order(family) if c not in FIXED_COLUMNS]


def default_columns(family: MetricFamily) -> list[str]:
    """What fits a laptop screen: the headline with its interval, the counts, the setting and
    up to two other scores shown by default; the column chooser holds the rest."""
    head = headline(family)
    others = [c.label for c in family.columns if c.default_shown and c is not head]
    shown = {head.label, f"{head.label} CI", "setting", *DEFAULT_TAIL, *others[:2]}
    return [c for c in all_columns(family) if c in shown]


def numeric_frame(df: pd.DataFrame, family: MetricFamily, bounds: bool = False) -> pd.DataFrame:
    """One row per result, scores as numbers, each interval as text (with ``bounds``: as its
    two bounds, for downloads).  Per row, ``attrs`` hold ``kind`` (model, or a reference
    entry's kind), ``link``, ``label`` (the whole name) and ``setting_short``."""
    order = column_order(family)
    if bounds:
        order = [x for c in order for x in ((f"{c} low", f"{c} high") if c.endswith(" CI") else (c,))]
        order += [c for c in IDENTITY if c not in order]
    rows = []
    attrs: dict[str, list[Any]] = {"kind": [], "link": [], "label": [], "setting_short": []}
    for _, r in df.iterrows():
        row: dict[str, Any] = entry_cells(r)
        row["model"] = printable(str(r["model_id"]))
        row["revision"] = r["revision"]
        del row["size"]  # as text ("8B"); a number here, so that it sorts as one
        params = pd.to_numeric(r["parameters"], errors="coerce")
        row[SIZE] = round(float(params) / 1e9, 3) if pd.notna(params) and params > 0 else None
        for key, label in score_columns(family):
            if label.endswith(" CI") and bounds:
                for end in ("low", "high"):
                    row[f"{label} {end}"] = number(r.get(f"{key}_ci_{end}"))
            elif label.endswith(" CI"):
                row[label] = fmt_ci(r, key) if key in r else ""
            else:
                row[label] = number(r.get(key))
        row.update({k: int(r[k]) for k in ("queries", "n", "failed", "copies")})
        row.update(
            {
                "shared mean": number(r.get("shared_mean")),
                "task": f"{r['task']}@{r['task_version']}",
                "judge profile": r["judge_profile"],
                "board": r["board"],
                "board id": r["board_id"],
            }
        )
        rows.append(row)
        attrs["kind"].append(str(r.get("kind", "model")) if is_reference(r) else "model")
        attrs["link"].append(r.get("link") if isinstance(r.get("link"), str) else None)
        attrs["label"].append(printable(str(r["model"])))
        short = r.get("setting_short")
        attrs["setting_short"].append(short if isinstance(short, str) else None)
    out = pd.DataFrame(rows, columns=list(dict.fromkeys([*order, "board id"])))[order]
    out.attrs.update(attrs)
    return out


def table_view(
    lb: Leaderboard, family_id: str, flt: Filters, columns: list[str] | None, bounds: bool = False
) -> pd.DataFrame:
    """The rows that pass the filters, in the leaderboard's order, with the chosen columns.
    A missing number stays ``None`` (a blank cell that sorts last), missing text is "—"; with
    no row, the columns alone (never a made-up row)."""
    fam = REGISTRY[family_id]
    view = numeric_frame(rows_shown(lb, family_id, flt), fam, bounds=bounds)
    chosen = set(columns or []) | (set(IDENTITY) if bounds else set())
    chosen |= {f"{c} {end}" for c in chosen if c.endswith(" CI") for end in ("low", "high")}
    shown = [c for c in view.columns if c in FIXED_COLUMNS or c in chosen]
    out = view[shown].reset_index(drop=True).astype(object)
    numbers = [c for c in out.columns if is_number(c, fam)]
    text = [c for c in out.columns if c not in numbers]
    out[numbers] = out[numbers].where(out[numbers].notna(), None)
    out[text] = out[text].where(out[text].notna(), MISSING)
    for col in INTEGER_COLUMNS & set(out.columns):  # a reference's empty rank made them floats
        out[col] = pd.Series([whole(v) for v in out[col]], index=out.index, dtype=object)
    out.attrs.update({k: list(v) for k, v in view.attrs.items()})
    return out


def is_number(column: str, family: MetricFamily) -> bool:
    labels = {c.label for c in family.columns}
    return (
        column in NUMBER_COLUMNS
        or column in labels
        or (column.endswith((" CI low", " CI high")) and column.rsplit(" CI ", 1)[0] in labels)
    )


def datatypes(view: pd.DataFrame, family: MetricFamily) -> list[str]:
    """Each column's Dataframe datatype (numbers sort as numbers; names are escaped HTML)."""
    return [
        "number" if is_number(c, family) else ("html" if c in HTML_COLUMNS else "str") for c in view.columns
    ]


#: columns drawn as HTML (built from escaped text only): the model's link, the setting's words
HTML_COLUMNS = ("model", "setting")


def words_cell(value: Any) -> str:
    """Text that wraps only between its words, never at a hyphen inside one (escaped)."""
    return " ".join(f"<span class='gc-word'>{html.escape(w)}</span>" for w in str(value).split())


def setting_cell(value: Any, short: str | None = None) -> str:
    """A setting as the figures write it, its whole wording in a tooltip; a setting with no
    short form in its own words."""
    if not short:
        return words_cell(value)
    return (
        f"<span class='gc-setting' title='{html.escape(str(value), quote=True)}'>{html.escape(short)}</span>"
    )


def name_html(name: Any, title: Any = None, *, link: str | None = None) -> str:
    """A name from a submission as the Space shows one: invisible controls shown as escapes
    (:func:`benchmark.core.errors.printable`), isolated from the text around it, cut with an
    ellipsis where its column ends, whole in a tooltip; escaped, as is its link."""
    text = printable(str(name))
    tip = html.escape(printable(str(title if title is not None else name)), quote=True)
    if link and link.startswith(("https://", "http://")):
        return (
            f"<a class='gc-name' href='{html.escape(link, quote=True)}' target='_blank' "
            f"rel='nofollow noopener' title='{tip}'>{html.escape(text)}</a>"
        )
    return f"<span class='gc-name' title='{tip}'>{html.escape(text)}</span>"


def name_lines(name: str, label: Any = None) -> str:
    """A figure-style name in a narrow column: the model above its setting, each cut on its own
    (what tells two entries apart is never the part cut off)."""
    return "<br>".join(
        name_html(part, label if label is not None else name) for part in str(name).split(" · ")
    )


def model_cell(name: Any, link: str | None, kind: str | None = None, label: Any = None) -> str:
    """A model's name as the board shows it: its link, a reference entry's kind beside it."""
    return name_html(name, label, link=link) + (f" [{html.escape(kind)}]" if kind and kind != "model" else "")


#: a reference row: italic on a faint tint (light and dark mode), the first under a rule
REFERENCE_STYLE = "font-style: italic; background-color: rgba(127, 127, 127, 0.16)"
REFERENCE_RULE = "; border-top: 3px double currentColor"


def styled(view: pd.DataFrame, family: MetricFamily) -> Any:
    """``view`` with scores to the same decimals (the cells keep their numbers, so a column
    sorts as numbers); a reference entry's rank reads "ref"."""
    scores = [c for c in view.columns if c in {col.label for col in family.columns}]
    sizes = [c for c in view.columns if c == SIZE]  # 0.135, 8, 70: as few digits as they need
    kinds = [k or "model" for k in _per_row(view, "kind")]
    counts = [c for c in view.columns if c in INTEGER_COLUMNS]
    out = (
        view.style.format(precision=DECIMALS, na_rep="", subset=scores)
        .format("{:g}", na_rep="", subset=sizes)
        .format(whole_text, subset=counts)
    )
    links = _per_row(view, "link")
    labels = _per_row(view, "label")
    shorts = _per_row(view, "setting_short")
    for i in range(len(view)):  # every name escaped, a link where the entry has a page
        row = view.index[[i]]
        if "model" in view.columns:
            out = out.format(
                lambda v, u=links[i], k=kinds[i], t=labels[i]: model_cell(v, u, k, t),
                subset=pd.IndexSlice[row, ["model"]],
            )
        if "setting" in view.columns:
            out = out.format(
                lambda v, s=shorts[i]: setting_cell(v, s), subset=pd.IndexSlice[row, ["setting"]]
            )
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


def _per_row(view: pd.DataFrame, key: str) -> list[Any]:
    """One of the view's per-row ``attrs`` (:func:`numeric_frame`), ``None`` where it has none."""
    values = list(view.attrs.get(key, []))
    return values + [None] * (len(view) - len(values))


def board_table(elem_id: str | None = None, wrap: bool = True, **kwargs: Any) -> Any:
    """A read-only table in the boards' look (``gc-board``)."""
    return gr.Dataframe(interactive=False, wrap=wrap, elem_id=elem_id, elem_classes=["gc-board"], **kwargs)


def table_props(view: pd.DataFrame, family: MetricFamily) -> dict[str, Any]:
    """A board's table for ``view``: its values, each column's datatype and width."""
    return {
        "value": styled(view, family),
        "datatype": datatypes(view, family),
        "column_widths": column_widths(view),
    }


def shown_table(view: pd.DataFrame, family: MetricFamily) -> Any:
    return gr.Dataframe(**table_props(view, family))


#: pixels a column takes at most (long text wraps inside it): at 1366 px the headline, its
#: interval and counts are in view, and the setting is read whole
WIDTHS = {
    "rank": 64,
    "model": 330,
    "n": 56,
    "failed": 72,
    "copies": 74,
    "setting": 262,
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


def column_widths(view: pd.DataFrame, widths: dict[str, int] | None = None) -> list[str]:
    """Each column's width: ``widths`` (default :data:`WIDTHS`), else as wide as its header."""
    widths = WIDTHS if widths is None else widths
    out = []
    for c in view.columns:
        header = round(CHAR_PX * len(str(c))) + 28  # its padding and menu button
        if c in widths:
            out.append(f"{max(widths[c], header)}px")
        elif str(c).endswith(" CI"):
            out.append(f"{max(150, header)}px")
        else:
            out.append(f"{max(84, header)}px")
    return out


def trust_html(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """The judge card's lines for the boards shown, a banner where a main-score judge is at
    chance or below a baseline (:mod:`benchmark.board.trust`); escaped text only."""
    df = rows_shown(lb, family_id, flt)
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
        board = df[df["board_id"] == board_id]
        parts += [
            f"<div class='gc-banner' role='alert'>{html.escape(line)}</div>"
            for line in failure_lines(REGISTRY[family_id], board)
        ]
        parts += [
            f"<div class='gc-card gc-withheld'>{html.escape(line)}</div>" for line in withheld_lines(board)
        ]
    return "".join(parts)


COUNT_LIKE = INTEGER_COLUMNS | {"rank A", "rank B", "shared queries"}
P_COLUMNS = {"p", "Holm p"}


def three_decimals(frame: pd.DataFrame) -> Any:
    """``frame`` with scores to three decimals, counts whole, missing numbers blank (the cells
    keep their numbers, so a column sorts as numbers)."""
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
        .format(whole_text, subset=counts)
        .format(lambda v: "" if pd.isna(v) else ("< 0.001" if v < 0.001 else f"{v:.3f}"), subset=ps)
    )


def counts_text(lb: Leaderboard, family_id: str, flt: Filters) -> str:
    """How many results are shown, on how many boards, and when the newest was scored."""
    table = lb.tables.get(family_id, pd.DataFrame())
    df = filter_rows(table, flt)
    mine = [e for e in lb.entries if e.result.metric_family == family_id]
    newest = max((e.result.run.finished for e in mine), default="")
    boards = df["board_id"].nunique() if not df.empty else 0
    refs = int(df["reference"].astype(bool).sum()) if not df.empty else 0
    parts = [f"Showing {len(df)} of {len(table)} results on {boards} board{'s' if boards != 1 else ''}"]
    if df.empty and not table.empty:
        parts = [f"No result matches the search and filters (0 of {len(table)} shown)"]
    if refs:
        parts.append(f"{refs} of them reference entr{'ies' if refs != 1 else 'y'} (not ranked)")
    if newest:
        parts.append(f"last updated {str(newest)[:10]}")
    return " · ".join(parts)


def useful_filters(table: pd.DataFrame) -> dict[str, bool]:
    """Which filters change something on this tab (both weights known, a size limit that
    splits the rows, more than one profile or task)."""
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
