"""Two entries of one board on the same queries: each query's ranked score for both and the
difference, their paired test above (so the per-query view and the rank agree), both traces."""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board.leaderboard import Entry, Leaderboard
from benchmark.board.pairs import board_pairs
from benchmark.core.errors import printable
from benchmark.core.power import fmt_detectable
from benchmark.families import REGISTRY
from benchmark.space.details import detail_html, entry_key, traces_of
from benchmark.space.table import board_table, number, three_decimals

COLUMNS = ["query", "text", "A", "B", "A − B"]


def boards(lb: Leaderboard) -> list[tuple[str, str]]:
    """(label, board id) of every board with two entries or more, in family order."""
    out = []
    for fid, fam in REGISTRY.items():
        table = lb.tables.get(fid, pd.DataFrame())
        for board_id, rows in table.groupby("board_id", sort=False) if not table.empty else []:
            r = rows.iloc[0]
            if len(rows) >= 2:
                out.append(
                    (f"{fam.title} · {r['task']} · {r['judge_profile']} · {len(rows)} entries", board_id)
                )
    return out


def board_entries(lb: Leaderboard, board_id: str) -> list[tuple[str, str]]:
    """(name, key) of the board's entries in its order (ranked models, then references)."""
    for table in lb.tables.values():
        if table.empty or board_id not in set(table["board_id"]):
            continue
        rows = table[table["board_id"] == board_id]
        return [
            (
                printable(str(r["model"])) + (f" [{r['kind']}]" if r["reference"] else ""),
                f"{board_id}:{r['model']}",
            )
            for _, r in rows.iterrows()
        ]
    return []


def compare_frame(a: Entry, b: Entry) -> pd.DataFrame:
    """Each query either has: A's and B's ranked score and A − B, A's largest lead first (a
    query only one has a score for last, its difference blank)."""
    key = a.result.primary
    sa = {q.query_id: q.scores.get(key) for q in a.result.per_query}
    sb = {q.query_id: q.scores.get(key) for q in b.result.per_query}
    traces = traces_of(a)
    rows = []
    for qid in sorted(set(sa) | set(sb)):
        va, vb = sa.get(qid), sb.get(qid)
        diff = None if va is None or vb is None else number(float(va) - float(vb))
        text = " ".join(str(traces.get(qid, {}).get("query", "")).split())[:90]
        rows.append({"query": qid, "text": text, "A": number(va), "B": number(vb), "A − B": diff})
    frame = pd.DataFrame(rows, columns=COLUMNS)
    order = frame["A − B"].astype(float).sort_values(ascending=False, na_position="last").index
    return frame.loc[order].reset_index(drop=True).astype(object).where(lambda d: d.notna(), None)


def pair_line(lb: Leaderboard, a: Entry, b: Entry) -> str:
    """The pair's paired test in words (plain text: names are in the pickers above)."""
    fam = REGISTRY.get(a.result.metric_family)
    score = fam.label(a.result.primary) if fam else a.result.primary
    cmp = lb.comparisons.get(a.board_id)
    if a.is_reference or b.is_reference:
        return f"{score}: a reference entry is not ranked; its per-query scores are shown for comparison."
    if cmp is None or a.model_label not in cmp.models or b.model_label not in cmp.models:
        return f"{score}: no paired test on this board."
    [pair] = board_pairs(cmp, [a.model_label, b.model_label])
    verdict = "A significantly better" if pair.a_better else "not told apart at α = 0.05 (Holm)"
    return (
        f"{score}: mean A − B = {pair.mean_diff:+.3f} on {pair.n_shared} shared queries; paired permutation "
        f"p = {pair.p:.3f}, Holm p = {pair.holm_p:.3f}: {verdict}. This pair's test detects a difference of "
        f"{fmt_detectable(pair.detectable)} or more with 80% power"
        + (" — the difference is below it." if pair.below_detectable else ".")
    )


def compare_tab(lb: Leaderboard) -> None:
    """The tab's components and listeners (call inside its ``gr.Tab``)."""
    by_key = {entry_key(e): e for e in lb.entries}
    choices = boards(lb)
    start = choices[0][1] if choices else None
    entries = board_entries(lb, start) if start else []
    gr.Markdown(
        "Two entries of one board on the same queries: each query's ranked score for both and the "
        "difference, sorted; click a query to read both traces side by side."
    )
    board = gr.Dropdown(choices, value=start, label="Board", elem_id="gc-compare-board")
    with gr.Row():
        pick_a = gr.Dropdown(
            entries, value=entries[0][1] if entries else None, label="A", elem_id="gc-compare-a"
        )
        pick_b = gr.Dropdown(
            entries, value=entries[1][1] if len(entries) > 1 else None, label="B", elem_id="gc-compare-b"
        )
    a0, b0 = (by_key.get(entries[0][1]), by_key.get(entries[1][1])) if len(entries) > 1 else (None, None)
    line = gr.Markdown(pair_line(lb, a0, b0) if a0 and b0 else "", elem_id="gc-compare-test")
    table = board_table(
        "gc-compare",
        wrap=False,
        value=three_decimals(compare_frame(a0, b0)) if a0 and b0 else pd.DataFrame(columns=COLUMNS),
        datatype=["str", "str", "number", "number", "number"],
        column_widths=["90px", "420px", "90px", "90px", "90px"],
    )
    with gr.Row(equal_height=False):
        trace_a = gr.HTML(elem_id="gc-compare-trace-a", elem_classes=["gc-trace"])
        trace_b = gr.HTML(elem_id="gc-compare-trace-b", elem_classes=["gc-trace"])

    def _board(board_id: str | None) -> tuple[Any, Any]:
        found = board_entries(lb, str(board_id)) if board_id else []
        return (
            gr.update(choices=found, value=found[0][1] if found else None),
            gr.update(choices=found, value=found[1][1] if len(found) > 1 else None),
        )

    def _compare(ka: str | None, kb: str | None) -> tuple[Any, Any, str, str]:
        a, b = by_key.get(str(ka)), by_key.get(str(kb))
        if a is None or b is None or a is b:
            return "Choose two entries of the board.", three_decimals(pd.DataFrame(columns=COLUMNS)), "", ""
        return pair_line(lb, a, b), three_decimals(compare_frame(a, b)), "", ""

    def _traces(ka: str | None, kb: str | None, evt: gr.SelectData) -> tuple[str, str]:
        a, b = by_key.get(str(ka)), by_key.get(str(kb))
        qid = str((evt.row_value or [""])[0])
        if a is None or b is None or not qid:
            return "", ""
        return (
            f"<p class='gc-compare-side'><b>A</b></p>{detail_html(a, qid)}",
            f"<p class='gc-compare-side'><b>B</b></p>{detail_html(b, qid)}",
        )

    board.change(_board, board, [pick_a, pick_b])
    gr.on([pick_a.change, pick_b.change], _compare, [pick_a, pick_b], [line, table, trace_a, trace_b])
    table.select(_traces, [pick_a, pick_b], [trace_a, trace_b])
