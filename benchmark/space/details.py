"""Model details: one result's model card, its scores, each query's scores, and a query's
trace (rendered, escaped, by the result's family), paged when it is long."""

from __future__ import annotations

import html
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from benchmark.board.leaderboard import Entry, Leaderboard
from benchmark.board.render import fmt_ci
from benchmark.core.errors import printable
from benchmark.core.results import traces_path
from benchmark.families import REGISTRY, views
from benchmark.space.table import (
    DECIMALS,
    Filters,
    name_html,
    number,
    rows_shown,
    table_view,
    whole,
    whole_text,
)


def entry_order(lb: Leaderboard) -> list[int]:
    """Entries as the boards show them: family, board, models by rank, then references."""
    families = {fid: n for n, fid in enumerate(REGISTRY)}
    position = {
        key: n
        for t in lb.tables.values()
        if not t.empty
        for n, key in enumerate(zip(t["board_id"], t["model"], strict=True))
    }
    return sorted(
        range(len(lb.entries)),
        key=lambda i: (
            families.get(lb.entries[i].result.metric_family, len(families)),
            position.get((lb.entries[i].board_id, lb.entries[i].model_label), 10**6),
        ),
    )


def entry_key(entry: Entry) -> str:
    """An entry's key in a share link: its board and label (stable, unlike a list position)."""
    return f"{entry.board_id}:{entry.model_label}"


def entries_by_key(lb: Leaderboard) -> dict[str, Entry]:
    return {entry_key(e): e for e in lb.entries}


def run_choices(lb: Leaderboard) -> list[tuple[str, str]]:
    """One choice per result, in board order: family, name (as text), task, judge profile."""
    out = []
    for i in entry_order(lb):
        e = lb.entries[i]
        fam = REGISTRY.get(e.result.metric_family)
        ref = f" [{e.kind}]" if e.is_reference else ""
        name = printable(e.model_label)
        title = fam.title if fam else e.result.metric_family
        out.append((f"{title}: {name}{ref} · {e.result.task.id} · {e.result.profile_id}", entry_key(e)))
    return out


def entry_of_row(lb: Leaderboard, family_id: str, row: list[Any] | None, *state: Any) -> str | None:
    """The key of a clicked row's entry: the row of the recomputed view whose cells match."""
    if not row:
        return None
    *values, columns = state
    flt = Filters.of(*values)
    view = table_view(lb, family_id, flt, columns)
    df = rows_shown(lb, family_id, flt)
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
            return f"{r['board_id']}:{r['model']}"
    return None


def scores_frame(lb: Leaderboard, entry: Entry) -> pd.DataFrame:
    """The entry's board row on its side, one score per row (32 argument-quality scores read
    down the page instead of 13,000 px to the right), its rank and setting first."""
    fam = REGISTRY.get(entry.result.metric_family)
    table = lb.tables.get(entry.result.metric_family, pd.DataFrame())
    if fam is None or table.empty:
        return pd.DataFrame()
    row = table[(table["model"] == entry.model_label) & (table["board_id"] == entry.board_id)]
    if row.empty:
        return pd.DataFrame()
    r = row.iloc[0]
    rank = "ref" if entry.is_reference else whole_text(r["rank"])
    rows: list[dict[str, Any]] = [
        {"score": "rank", "value": rank, "95% CI": "", "n": None, "failed": None},
        {"score": "setting", "value": str(r["setting"]), "95% CI": "", "n": None, "failed": None},
    ]
    for key in [c.key for c in fam.columns if c.key in r.index]:
        value = r.get(key)
        rows.append(
            {
                "score": fam.label(key),
                "value": "" if pd.isna(value) else f"{float(value):.{DECIMALS}f}",
                "95% CI": fmt_ci(r, key),
                "n": whole(r.get(f"{key}_n")),
                "failed": whole(r.get(f"{key}_failed")),
            }
        )
    return pd.DataFrame(rows).astype(object).where(lambda d: d.notna(), None)


def card_html(entry: Entry) -> str:
    """The model card of an entry (every field escaped; links are the card's validated URLs)."""
    e = html.escape
    card = entry.card
    name = name_html(entry.model_label)
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
                **{(fam.label(k) if fam else k): number(v) for k, v in q.scores.items()},
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


#: characters of trace JSON a page holds (a 121k-character ICAT trace was one 12,000 px page)
TRACE_PAGE_CHARS = 60_000


def trace_pages(trace: dict[str, Any]) -> tuple[str | None, list[tuple[int, int]]]:
    """A long trace's largest list cut into pages of about :data:`TRACE_PAGE_CHARS`."""
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
        return views.trace_html(fam, trace)
    page = min(max(page, 0), len(pages) - 1)
    start, end = pages[page]
    note = (
        f"<p class='gc-page-note'>Page {page + 1} of {len(pages)}: {html.escape(key)} {start + 1}–{end} of "
        f"{len(trace[key])} (choose another page above).</p>"
    )
    # "page": where this page starts, so that a family numbers its items on (claim 31, not 1)
    return note + views.trace_html(
        fam, {**trace, key: trace[key][start:end], "page": {"list": key, "start": start}}
    )


def page_choices(entry: Entry, query_id: str) -> list[tuple[str, str]]:
    trace = traces_of(entry).get(str(query_id))
    if trace is None:
        return []
    key, pages = trace_pages(trace)
    if key is None:
        return []
    return [(f"page {n + 1}: {key} {a + 1}–{b}", str(n)) for n, (a, b) in enumerate(pages)]
