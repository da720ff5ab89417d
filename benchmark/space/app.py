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

import html
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from benchmark.board import results_dataset
from benchmark.board.leaderboard import Entry, Leaderboard, build_leaderboard
from benchmark.board.render import RANKS_EXPLAINED, entry_cells, failure_lines, fmt_ci
from benchmark.board.trust import trusts
from benchmark.core import exports, figures, paths
from benchmark.core.results import traces_path
from benchmark.core.stats import MISSING
from benchmark.families import REGISTRY, MetricFamily
from benchmark.models.profiles import DEFAULT_PROFILE

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
TAIL_COLUMNS = ("queries", "n", "failed", "copies", "shared mean", "task", "judge profile", "board")
DEFAULT_TAIL = (SIZE, "n", "failed", "copies")
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
    """What fits a laptop screen: the headline score with its interval, the setting, the
    other scores shown by default (no intervals), size and failed queries."""
    head = headline(family)
    shown = {head.label, f"{head.label} CI", "setting", *DEFAULT_TAIL}
    shown |= {c.label for c in family.columns if c.default_shown}
    return [c for c in all_columns(family) if c in shown]


def numeric_frame(df: pd.DataFrame, family: MetricFamily) -> pd.DataFrame:
    """One row per result: a short model name (the revision and setting in their own
    columns), numeric scores with their intervals in their own columns."""
    if df.empty:
        return pd.DataFrame()
    rows = []
    for _, r in df.iterrows():
        row: dict[str, Any] = entry_cells(r)
        row["model"] = r["model_id"]
        row["revision"] = r["revision"]
        del row["size"]  # as text ("8B"); a number here, so that it sorts as one
        params = pd.to_numeric(r["parameters"], errors="coerce")
        row[SIZE] = round(float(params) / 1e9, 3) if pd.notna(params) and params > 0 else None
        for key, label in score_columns(family):
            if label.endswith(" CI"):
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
    return pd.DataFrame(rows)[column_order(family)]


def table_view(
    lb: Leaderboard,
    family_id: str,
    search: str,
    weights: str,
    size: str,
    profile: str,
    task: str,
    columns: list[str] | None,
) -> pd.DataFrame:
    """The rows that pass the filters, in the leaderboard's order (board, rank, then the
    ranked score, best first), with the chosen columns.

    Missing numbers stay ``None`` (a blank cell that sorts last when descending);
    missing text is "—".  Sorting by any other column is the table's own column menu.
    """
    fam = REGISTRY[family_id]
    view = numeric_frame(
        filter_rows(lb.tables.get(family_id, pd.DataFrame()), search, weights, size, profile, task), fam
    )
    if view.empty:
        return pd.DataFrame({"model": ["no results match"]})
    shown = [c for c in view.columns if c in FIXED_COLUMNS or c in (columns or [])]
    out = view[shown].reset_index(drop=True).astype(object)
    numbers = [c for c in out.columns if is_number(c, fam)]
    text = [c for c in out.columns if c not in numbers]
    out[numbers] = out[numbers].where(out[numbers].notna(), None)
    out[text] = out[text].where(out[text].notna(), MISSING)
    return out


def is_number(column: str, family: MetricFamily) -> bool:
    return column in NUMBER_COLUMNS or column in {c.label for c in family.columns}


def datatypes(view: pd.DataFrame, family: MetricFamily) -> list[str]:
    """Each column's Dataframe datatype: numbers sort as numbers in the column menu."""
    return ["number" if is_number(c, family) else "str" for c in view.columns]


def styled(view: pd.DataFrame, family: MetricFamily) -> Any:
    """``view`` with every score shown to the same number of decimals ("0.500", not "0.5");
    the cells keep their numbers, so the column menu still sorts them as numbers."""
    scores = [c for c in view.columns if c in {col.label for col in family.columns}]
    sizes = [c for c in view.columns if c == SIZE]  # 0.135, 8, 70: as few digits as they need
    return view.style.format(precision=DECIMALS, na_rep="", subset=scores).format(
        "{:g}", na_rep="", subset=sizes
    )


def shown_table(view: pd.DataFrame, family: MetricFamily) -> Any:
    """The Dataframe update for ``view``: its values and each column's datatype."""
    return gr.Dataframe(value=styled(view, family), datatype=datatypes(view, family))


def write_csv(view: pd.DataFrame, family_id: str) -> str:
    """The shown table as a CSV file for the download button (a fresh file per view)."""
    folder = Path(tempfile.mkdtemp(prefix="groundcover-csv-"))
    path = folder / f"groundcover-{family_id}.csv"
    exports.write_csv(view, path)
    return str(path)


def select_results(lb: Leaderboard, family_id: str, *filters: str) -> list[Any]:
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), *filters)
    keep = set(zip(df.get("model", []), df.get("board_id", []), strict=False))
    return [
        e.result
        for e in lb.entries
        if (e.model_label, e.board_id) in keep and e.result.metric_family == family_id
    ]


def trust_html(lb: Leaderboard, family_id: str, *filters: str) -> str:
    """The judge card's lines for the boards shown, a banner first where a main-score judge is
    at chance or below a baseline (:mod:`benchmark.board.trust`); escaped text only."""
    df = filter_rows(lb.tables.get(family_id, pd.DataFrame()), *filters)
    if df.empty:
        return ""
    parts = []
    for t in trusts(REGISTRY[family_id], df):
        if t.banner:
            parts.append(f"<div class='gc-banner' role='alert'>{html.escape(t.banner)}</div>")
        parts += [
            f"<div class='gc-card'>Judge card ({html.escape(t.profile)}, {html.escape(t.score)}): {html.escape(x)}</div>"
            for x in t.lines
        ]
    for board_id in sorted(df["board_id"].unique()):
        parts += [
            f"<div class='gc-banner' role='alert'>{html.escape(line)}</div>"
            for line in failure_lines(REGISTRY[family_id], df[df["board_id"] == board_id])
        ]
    return "".join(parts)


def family_figures(lb: Leaderboard, family_id: str, option: str | None, *filters: str) -> list[Any]:
    figures.pyplot().close("all")
    return list(REGISTRY[family_id].figures(select_results(lb, family_id, *filters), option).values())


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
                    (fam.label(k) if fam else k): MISSING if v is None else f"{v:.3f}"
                    for k, v in q.scores.items()
                },
                "failed": "yes" if q.failed else "",
                "failures": "; ".join(q.failures),
            }
        )
    return pd.DataFrame(rows)


def detail_html(entry: Entry, query_id: str) -> str:
    trace = traces_of(entry).get(str(query_id))
    fam = REGISTRY.get(entry.result.metric_family)
    if trace is None or fam is None:
        return "<p>no trace for this query</p>"
    return fam.trace_html(trace)


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


def _family_tab(lb: Leaderboard, fid: str, fam: MetricFamily, default_profile: str | None) -> None:
    table = lb.tables.get(fid, pd.DataFrame())
    profiles = sorted(set(table["judge_profile"])) if not table.empty else lb.profiles
    default_profile = default_profile_of(profiles) if not table.empty else default_profile
    tasks = [ANY, *lb.tasks]
    cols = all_columns(fam)
    defaults = default_columns(fam)
    first = table_view(lb, fid, "", ANY, ANY, default_profile or ANY, ANY, defaults)
    gr.Markdown(
        f"{html.escape(fam.description)} Ranked by each board's main score; see *About* for how ranks work."
    )
    trust = gr.HTML(trust_html(lb, fid, "", ANY, ANY, default_profile or ANY, ANY), elem_id=f"gc-trust-{fid}")
    table = gr.Dataframe(
        value=styled(first, fam),
        datatype=datatypes(first, fam),
        interactive=False,
        wrap=True,
        pinned_columns=2,
        elem_id=f"gc-table-{fid}",
        elem_classes=["gc-board"],
    )
    download = gr.DownloadButton(
        "Download this table (CSV)", value=write_csv(first, fid), size="sm", elem_id=f"gc-download-{fid}"
    )
    with gr.Accordion("Search and filters", open=True, elem_id=f"gc-filters-{fid}"), gr.Row():
        search = gr.Textbox(label="Search model", placeholder="e.g. llama", elem_id=f"gc-search-{fid}")
        # model-only filters are hidden where the entries are not models (decomposition methods)
        weights = gr.Dropdown(
            [ANY, "open", "closed"],
            value=ANY,
            label="Weights",
            elem_id=f"gc-weights-{fid}",
            visible=fam.ranks_models,
        )
        size = gr.Dropdown(
            list(SIZES), value=ANY, label="Size", elem_id=f"gc-size-{fid}", visible=fam.ranks_models
        )
        profile = gr.Dropdown(
            profiles or [ANY],
            value=default_profile or ANY,
            label="Judge profile",
            elem_id=f"gc-profile-{fid}",
        )
        task = gr.Dropdown(tasks, value=ANY, label="Task", elem_id=f"gc-task-{fid}")
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
    figures = fam.figures(select_results(lb, fid, "", ANY, ANY, default_profile or ANY, ANY), start)
    plots = []
    with gr.Row(equal_height=False):
        for title, fig in figures.items():
            # the title as text above the figure: Gradio's label badge covered the figure's own
            with gr.Column(min_width=420):
                gr.Markdown(f"**{html.escape(title)}**")
                plots.append(gr.Plot(fig, show_label=False, elem_classes=["gc-figure"]))

    def _table(*vals: Any) -> tuple[Any, str, str]:
        view = table_view(lb, fid, *vals)
        return shown_table(view, fam), write_csv(view, fid), trust_html(lb, fid, *vals[:-1])

    def _plots(*vals: Any) -> list[Any]:
        *flt, opt = vals if option is not None else (*vals, None)
        return family_figures(lb, fid, values.get(opt) if opt else None, *flt)

    # one event per change: the table (cheap) first, then the figures (slower to render)
    event = _on_change(
        [*filters, columns],
        _table,
        [*filters, columns],
        [table, download, trust],
    )
    if plots:
        plot_inputs = [*filters, *([option] if option is not None else [])]
        event.then(_plots, plot_inputs, plots)
        if option is not None:
            _on_change([option], _plots, plot_inputs, plots)


def build_app(lb: Leaderboard | None = None, source: str | None = None) -> gr.Blocks:
    if lb is None:
        lb, source = load()
    default_profile = default_profile_of(list(lb.profiles))
    with gr.Blocks(title="groundcover leaderboard") as demo:
        gr.Markdown(INTRO)
        if source:  # a path or dataset id: escaped, as everything else shown
            gr.Markdown(f"<small>Results shown: {html.escape(source)}</small>", elem_id="gc-source")
        with gr.Tabs():
            for fid, fam in REGISTRY.items():
                with gr.Tab(fam.title, id=f"tab-{fid}", elem_id=f"gc-tab-{fid}"):
                    _family_tab(lb, fid, fam, default_profile)
            with gr.Tab("Model details", id="tab-model", elem_id="gc-tab-model"):
                run = gr.Dropdown(
                    run_choices(lb),
                    value=None,
                    label="Result (model · task · judge profile · family)",
                    elem_id="gc-run",
                )
                hint = gr.Markdown(PICK_A_RESULT, elem_id="gc-details-hint")
                # nothing below shows until a result is chosen (empty tables read "1 2 3")
                with gr.Column(visible=False, elem_id="gc-details") as details:
                    summary = gr.Dataframe(interactive=False, label="Scores", elem_id="gc-summary")
                    queries = gr.Dataframe(
                        interactive=False, wrap=True, label="Per query", elem_id="gc-queries"
                    )
                    query = gr.Dropdown([], value=None, label="Query", elem_id="gc-query")
                    detail = gr.HTML(elem_id="gc-detail")

                def _open(idx: str | None) -> tuple[Any, ...]:
                    if idx is None or not str(idx).isdigit() or int(idx) >= len(lb.entries):
                        return (
                            gr.update(visible=True),
                            gr.update(visible=False),
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
                    summ = styled(numeric_frame(row, fam), fam) if fam and not row.empty else pd.DataFrame()
                    qids = [q.query_id for q in entry.result.per_query]
                    return (
                        gr.update(visible=False),
                        gr.update(visible=True),
                        summ,
                        per_query_frame(entry),
                        gr.update(choices=qids, value=None),
                        "",
                    )

                def _detail(idx: str | None, qid: str | None) -> str:
                    if idx is None or qid is None or not str(idx).isdigit() or int(idx) >= len(lb.entries):
                        return ""
                    return detail_html(lb.entries[int(idx)], qid)

                run.change(_open, inputs=run, outputs=[hint, details, summary, queries, query, detail])
                query.change(_detail, inputs=[run, query], outputs=detail)
            with gr.Tab("About", id="tab-about", elem_id="gc-tab-about"):
                gr.Markdown(ABOUT)
            with gr.Tab("How to submit", id="tab-submit", elem_id="gc-tab-submit"):
                gr.Markdown(HOW_TO_SUBMIT)
            with gr.Tab("Citation", id="tab-citation", elem_id="gc-tab-citation"):
                gr.Markdown(citation_text())
        if lb.skipped:  # file names come from the results tree: shown as plain text, never markup
            gr.Textbox("\n".join(lb.skipped), label="Skipped result files", interactive=False, lines=2)
    return demo


#: page styles Gradio's defaults lack: a rank header that does not wrap ("ra/nk"), and
#: headers of at most three lines, never a column of letters
CSS = """
.gc-board thead th:first-child, .gc-board tbody td:first-child { min-width: 3.6em; }
.gc-board thead th { min-width: 5.5em; }
.gc-board thead th * { word-break: normal !important; overflow-wrap: normal !important; }
.gc-banner { background: #fff3cd; border-left: 4px solid #e0a800; padding: .5rem .75rem; margin: .25rem 0; }
.gc-card { color: #555; font-size: .85rem; }
"""


def launch(demo: gr.Blocks, port: int | None = None) -> None:
    """Serve ``demo`` with the page's styles (Gradio takes them at launch)."""
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=port, css=CSS)


if __name__ == "__main__":
    launch(build_app())
