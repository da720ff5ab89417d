"""groundcover leaderboard: a Gradio Blocks app over scored result files.

Run locally with ``benchmark space serve`` (or ``python hf_space/app.py``).  It reads
result JSON and traces from ``$GROUNDCOVER_RESULTS`` (default: ``data/results`` next to
this file when published, else the repository's ``leaderboard/results/``) and model cards from
``$GROUNDCOVER_SUBMISSIONS``.

Every string shown comes from submissions and is untrusted: tables are plain-text
``Dataframe`` cells, and the drill-down HTML is built only from ``html.escape``-d text.
"""

from __future__ import annotations

import html
import json
import os
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

import gradio as gr
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from benchmark.profiles import DEFAULT_PROFILE
from benchmark.results import traces_path
from leaderboard.build import FAMILIES, Entry, Leaderboard, build_leaderboard
from leaderboard.snapshot import MISSING, display_frame

HERE = Path(__file__).resolve().parent
ANY = "any"
SIZES = {ANY: None, "≤ 1B": 1e9, "≤ 10B": 1e10, "≤ 100B": 1e11}
FIXED_COLUMNS = ("rank", "model")
ARG_SUMMARY = {"quality_mean", "groundedness", "context_relevance"}


def _data_dir(env: str, published: Path, repo: Path) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    return published if published.exists() else repo


def load() -> Leaderboard:
    results = _data_dir(
        "GROUNDCOVER_RESULTS", HERE / "data" / "results", HERE.parent / "leaderboard" / "results"
    )
    submissions = _data_dir(
        "GROUNDCOVER_SUBMISSIONS", HERE / "data" / "submissions", HERE.parent / "submissions"
    )
    return build_leaderboard(results, submissions)


# ---------------------------------------------------------------------------------
# Filtering (pure: DataFrame in, DataFrame out)
# ---------------------------------------------------------------------------------


def filter_rows(
    df: pd.DataFrame, search: str, weights: str, size: str, profile: str, task: str
) -> pd.DataFrame:
    if df.empty:
        return df
    keep = pd.Series(True, index=df.index)
    if search and search.strip():
        keep &= df["model"].str.contains(search.strip(), case=False, regex=False)
    if weights == "open":
        keep &= df["open_weights"].eq(True)
    elif weights == "closed":
        keep &= df["open_weights"].eq(False)
    limit = SIZES.get(size)
    if limit is not None:
        keep &= df["parameters"].notna() & (df["parameters"].astype(float) <= limit)
    if profile and profile != ANY:
        keep &= df["judge_profile"].eq(profile)
    if task and task != ANY:
        keep &= df["task"].eq(task)
    return df[keep]


def family_view(
    lb: Leaderboard,
    family: str,
    search: str,
    weights: str,
    size: str,
    profile: str,
    task: str,
    columns: list[str],
    sort_by: str,
    descending: bool,
) -> pd.DataFrame:
    fam = FAMILIES[family]
    raw = filter_rows(lb.tables.get(family, pd.DataFrame()), search, weights, size, profile, task)
    view = display_frame(raw, fam)
    if view.empty:
        return pd.DataFrame({"model": ["no results match"]})
    if sort_by and sort_by in view.columns:
        key = view[sort_by].map(_sort_key)
        present = key.notna()
        ordered = (
            view[present].assign(_k=key[present]).sort_values("_k", ascending=not descending, kind="stable")
        )
        view = pd.concat([ordered.drop(columns="_k"), view[~present]])
    shown = [c for c in view.columns if c in FIXED_COLUMNS or c in (columns or [])]
    return view[shown].reset_index(drop=True)


def _sort_key(value: Any) -> float | str | None:
    """A number for scores ("0.41 [0.3, 0.5]" -> 0.41) and sizes ("8B"), else the text;
    ``None`` for missing values, which are kept last in either order."""
    if value is None or value == MISSING:
        return None
    text = str(value).split(" ", 1)[0]
    try:
        return float(text.rstrip("BMK")) * {"B": 1e9, "M": 1e6, "K": 1e3}.get(text[-1:], 1)
    except ValueError:
        return str(value).lower()


def column_choices(lb: Leaderboard, family: str) -> list[str]:
    df = display_frame(lb.tables.get(family, pd.DataFrame()), FAMILIES[family])
    return [c for c in df.columns if c not in FIXED_COLUMNS] if not df.empty else []


# ---------------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------------


def _empty_figure(message: str) -> Any:
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.text(0.5, 0.5, message, ha="center", va="center")
    ax.set_axis_off()
    return fig


def beta_plot(entries: list[Entry], variant: str = "s") -> Any:
    curves = [(e.model_label, e.result.curves.get(f"icat_{variant}_beta")) for e in entries]
    curves = [(m, c) for m, c in curves if c]
    if not curves:
        return _empty_figure("no ICAT β sweep for this selection")
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for model, curve in curves:
        betas = [float(b) for b in curve]
        ax.plot(betas, [np.nan if v is None else v for v in curve.values()], marker="o", label=model)
    ax.set_xscale("log")
    ax.set_xlabel("β  (<1 favours factuality, >1 coverage)")
    ax.set_ylabel(f"ICAT-{variant.upper()}_β")
    ax.set_title("ICAT_β sweep")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def scatter_plot(entries: list[Entry], variant: str = "s") -> Any:
    pts = []
    for e in entries:
        f, c = e.result.scores.get("s_fact"), e.result.scores.get(f"s_coverage_{variant}")
        if f and c and f.value is not None and c.value is not None:
            pts.append((e.model_label, f.value, c.value))
    if not pts:
        return _empty_figure("no factuality/coverage scores for this selection")
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for model, f, c in pts:
        ax.scatter([f], [c])
        ax.annotate(model, (f, c), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("S_fact (share of claims grounded)")
    ax.set_ylabel(f"S_coverage-{variant.upper()} (share of aspects covered)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Factuality vs coverage")
    fig.tight_layout()
    return fig


def radar_plot(entries: list[Entry]) -> Any:
    entries = [e for e in entries if e.result.metric_family == "arguments"]
    dims = sorted({k for e in entries for k in e.result.scores if k not in ARG_SUMMARY})
    if not entries or len(dims) < 3:
        return _empty_figure("no argument-quality results yet")
    angles = np.linspace(0, 2 * np.pi, len(dims), endpoint=False).tolist()
    fig, ax = plt.subplots(figsize=(6, 6), subplot_kw={"polar": True})
    for e in entries:
        vals = [e.result.scores[d].value if d in e.result.scores else None for d in dims]
        vals = [np.nan if v is None else v for v in vals]
        ax.plot(angles + angles[:1], vals + vals[:1], label=e.model_label)
    ax.set_xticks(angles)
    ax.set_xticklabels(dims, fontsize=7)
    ax.set_title("Argument quality dimensions")
    ax.legend(fontsize=7, loc="upper right", bbox_to_anchor=(1.3, 1.1))
    fig.tight_layout()
    return fig


def select_entries(
    lb: Leaderboard, family: str, search: str, weights: str, size: str, profile: str, task: str
) -> list[Entry]:
    df = filter_rows(lb.tables.get(family, pd.DataFrame()), search, weights, size, profile, task)
    keep = set(zip(df.get("model", []), df.get("board", []), strict=False))
    return [e for e in lb.entries if (e.model_label, e.board) in keep]


# ---------------------------------------------------------------------------------
# Per-model drill-down
# ---------------------------------------------------------------------------------


def run_choices(lb: Leaderboard) -> list[tuple[str, str]]:
    return [
        (f"{e.model_label} · {e.result.task.id} · {e.result.profile_id} · {e.result.metric_family}", str(i))
        for i, e in enumerate(lb.entries)
    ]


@lru_cache(maxsize=64)
def _traces(path: str) -> dict[str, dict[str, Any]]:
    p = traces_path(Path(path))
    out: dict[str, dict[str, Any]] = {}
    if p.exists() and not p.is_symlink():
        for line in p.read_text(encoding="utf-8").splitlines():
            try:
                tr = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(tr, dict) and "query_id" in tr:
                out[str(tr["query_id"])] = tr
    return out


def per_query_frame(entry: Entry) -> pd.DataFrame:
    traces = _traces(str(entry.path))
    rows = []
    for q in entry.result.per_query:
        tr = traces.get(q.query_id, {})
        rows.append(
            {
                "query": q.query_id,
                "text": str(tr.get("query", ""))[:120],
                **{k: MISSING if v is None else f"{v:.3f}" for k, v in q.scores.items()},
                **{k: str(v) for k, v in q.counts.items()},
                "failures": "; ".join(q.failures) or "",
            }
        )
    return pd.DataFrame(rows)


def claims_html(entry: Entry, query_id: str) -> str:
    """Claims, their evidence passages and covered aspects, every string escaped."""
    e = html.escape
    tr = _traces(str(entry.path)).get(str(query_id))
    if tr is None:
        return "<p>no trace for this query</p>"
    aspects = {str(a["aspect_id"]): a["text"] for a in tr.get("aspects", [])}
    gen_aspects = {str(a["aspect_id"]): a["text"] for a in tr.get("generated_aspects", [])}
    parts = [
        f"<h3>Query {e(str(query_id))}: {e(str(tr.get('query', '')))}</h3>",
        f"<details><summary>Answer</summary><p class='gc-answer'>{e(str(tr.get('answer', '')))}</p></details>",
    ]
    if tr.get("failures"):
        parts.append("<p><b>Failures:</b> " + e("; ".join(map(str, tr["failures"]))) + "</p>")
    parts.append("<ol class='gc-claims'>")
    for c in tr.get("claims", []):
        verdict = (
            "failed to judge" if c.get("failed") else ("grounded" if c.get("grounded") else "not grounded")
        )
        covered = []
        for v, table in (("m", aspects), ("s", aspects), ("a", gen_aspects)):
            ids = c.get(f"aspects_{v}") or []
            if ids:
                covered.append(
                    f"ICAT-{v.upper()}: "
                    + ", ".join(f"{e(str(i))} ({e(str(table.get(str(i), '?')))})" for i in ids)
                )
        parts.append(
            f"<li class='gc-claim'><b>{e(str(c.get('text', '')))}</b> — <i>{e(verdict)}</i>"
            + (f"<br>covers: {'; '.join(covered)}" if covered else "<br>covers: none")
            + "<ul>"
        )
        for p in c.get("passages", []):
            mark = "✔ " if p.get("supported") else ""
            support = p.get("support")
            parts.append(
                f"<li class='gc-passage'>{mark}{e(str(p.get('passage_id', '')))} (rank {e(str(p.get('rank', '')))}, "
                f"support {e('—' if support is None else f'{float(support):.2f}')}): {e(str(p.get('text', '')))}</li>"
            )
        parts.append("</ul></li>")
    parts.append("</ol>")
    return "".join(parts)


# ---------------------------------------------------------------------------------
# App
# ---------------------------------------------------------------------------------

INTRO = """# groundcover leaderboard
Is what an answer says **grounded**, and does it **cover** what matters? Scores are computed by the
project from submitted outputs with a pinned judge profile. Only results with the same task version and
judge profile are ranked together; models whose 95% confidence intervals overlap share a rank; a missing
result is shown as — and never counted as zero."""


def _on_change(components: list[Any], fn: Any, inputs: list[Any], outputs: Any) -> Any:
    """One listener for changes to any of ``components``; a burst of changes runs ``fn``
    once more at the end rather than once per change."""
    return gr.on(
        [c.change for c in components], fn, inputs=inputs, outputs=outputs, trigger_mode="always_last"
    )


def build_app(lb: Leaderboard | None = None) -> gr.Blocks:
    lb = lb or load()
    # one judge profile at a time: ranks from different profiles are never shown together
    profiles = lb.profiles
    default_profile = next(
        (p for p in profiles if p.split("@")[0] == DEFAULT_PROFILE), profiles[0] if profiles else None
    )
    tasks = [ANY, *lb.tasks]
    with gr.Blocks(title="groundcover leaderboard") as demo:
        gr.Markdown(INTRO)
        with gr.Row():
            search = gr.Textbox(label="Search model", placeholder="e.g. llama", elem_id="gc-search")
            weights = gr.Dropdown([ANY, "open", "closed"], value=ANY, label="Weights", elem_id="gc-weights")
            size = gr.Dropdown(list(SIZES), value=ANY, label="Size", elem_id="gc-size")
            profile = gr.Dropdown(
                profiles, value=default_profile, label="Judge profile", elem_id="gc-profile"
            )
            task = gr.Dropdown(tasks, value=ANY, label="Task", elem_id="gc-task")
        filters = [search, weights, size, profile, task]
        tables: list[Any] = []
        controls: dict[str, list[Any]] = {}  # each tab's own (columns, sort_by, descending)
        plots: list[Any] = []
        variant = None
        for fid, fam in FAMILIES.items():
            with gr.Tab(fam.title, id=f"tab-{fid}", elem_id=f"gc-tab-{fid}"):
                cols = column_choices(lb, fid)
                with gr.Row():
                    columns = gr.CheckboxGroup(cols, value=cols, label="Columns", elem_id=f"gc-columns-{fid}")
                with gr.Row():
                    sort_by = gr.Dropdown(
                        ["rank", "model", *cols], value="rank", label="Sort by", elem_id=f"gc-sort-{fid}"
                    )
                    descending = gr.Checkbox(value=False, label="Descending", elem_id=f"gc-desc-{fid}")
                table = gr.Dataframe(
                    value=family_view(lb, fid, "", ANY, ANY, default_profile, ANY, cols, "rank", False),
                    interactive=False,
                    wrap=True,
                    elem_id=f"gc-table-{fid}",
                )
                own = [columns, sort_by, descending]
                tables.append(table)
                controls[fid] = own

                def _update(*vals: Any, _fid: str = fid) -> pd.DataFrame:
                    return family_view(lb, _fid, *vals)

                # a tab's own controls re-draw only that tab's table
                _on_change(own, _update, [*filters, *own], table)
                shown = select_entries(lb, fid, "", ANY, ANY, default_profile, ANY)
                if fid == "icat":
                    with gr.Row():
                        variant = gr.Radio(["m", "s", "a"], value="s", label="ICAT variant for plots")
                    with gr.Row():
                        plots.append(gr.Plot(beta_plot(shown), label="ICAT_β sweep"))
                        plots.append(gr.Plot(scatter_plot(shown), label="factuality vs coverage"))
                if fid == "arguments":
                    plots.append(gr.Plot(radar_plot(shown), label="radar"))

        def _tables(*vals: Any) -> list[pd.DataFrame]:
            flt, rest = vals[: len(filters)], iter(vals[len(filters) :])
            return [family_view(lb, fid, *flt, *islice(rest, len(own))) for fid, own in controls.items()]

        def _plots(*vals: Any) -> list[Any]:
            *flt, v = vals
            chosen = select_entries(lb, "icat", *flt)
            return [
                beta_plot(chosen, v),
                scatter_plot(chosen, v),
                radar_plot(select_entries(lb, "arguments", *flt)),
            ]

        # One event per filter change: every table first (cheap), then the plots (slower to
        # render), so a table never waits behind a figure and quick successive changes coalesce.
        assert variant is not None and len(plots) == 3, "the ICAT and arguments tabs carry the plots"
        plot_inputs = [*filters, variant]
        tab_inputs = [c for own in controls.values() for c in own]
        _on_change(filters, _tables, [*filters, *tab_inputs], tables).then(_plots, plot_inputs, plots)
        _on_change([variant], _plots, plot_inputs, plots)
        with gr.Tab("Model details", id="tab-model", elem_id="gc-tab-model"):
            choices = run_choices(lb)
            run = gr.Dropdown(
                choices, value=None, label="Result (model · task · judge profile)", elem_id="gc-run"
            )
            summary = gr.Dataframe(interactive=False, elem_id="gc-summary")
            queries = gr.Dataframe(interactive=False, wrap=True, elem_id="gc-queries")
            query = gr.Dropdown([], value=None, label="Query", elem_id="gc-query")
            detail = gr.HTML(elem_id="gc-detail")

            def _open(idx: str | None) -> tuple[Any, Any, Any, str]:
                if idx is None or not str(idx).isdigit() or int(idx) >= len(lb.entries):
                    return pd.DataFrame(), pd.DataFrame(), gr.update(choices=[], value=None), ""
                entry = lb.entries[int(idx)]
                fam = FAMILIES.get(entry.result.metric_family)
                table = lb.tables.get(entry.result.metric_family, pd.DataFrame())
                row = (
                    table[(table["model"] == entry.model_label) & (table["board"] == entry.board)]
                    if not table.empty
                    else table
                )
                summ = display_frame(row, fam) if fam is not None and not row.empty else pd.DataFrame()
                qids = [q.query_id for q in entry.result.per_query]
                return summ, per_query_frame(entry), gr.update(choices=qids, value=None), ""

            def _detail(idx: str | None, qid: str | None) -> str:
                if idx is None or qid is None or not str(idx).isdigit():
                    return ""
                return claims_html(lb.entries[int(idx)], qid)

            run.change(_open, inputs=run, outputs=[summary, queries, query, detail])
            query.change(_detail, inputs=[run, query], outputs=detail)
        if lb.skipped:
            gr.Markdown("Skipped result files: " + html.escape("; ".join(lb.skipped)))
    return demo


if __name__ == "__main__":
    build_app().launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
