"""groundcover leaderboard: a Gradio Blocks app over scored result files — the wiring.

Run with ``benchmark space serve``, or as the Hugging Face Space (``hf_space/app.py``).  It
reads the results dataset release pinned in the Space's ``results.yaml``, or a local folder
(``$GROUNDCOVER_RESULTS``, or the checkout's when the pin cannot be read).  One tab per
registered metric family, then Summary, Compare two, Model details and the text tabs; this
module loads the boards, puts the tabs together and wires what crosses tabs (a row click
opening its details, the share link).  No code here names a family.  Every string shown
comes from submissions and is untrusted: it is escaped wherever it becomes HTML."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import gradio as gr
from starlette.middleware import Middleware

from benchmark.board import results_dataset
from benchmark.board.leaderboard import Leaderboard, build_leaderboard
from benchmark.board.releases import Comparison
from benchmark.core import figures, paths
from benchmark.families import REGISTRY
from benchmark.space import releases as space_releases
from benchmark.space import serving
from benchmark.space.board_tab import FamilyTab, default_profile_of, family_tab
from benchmark.space.compare import compare_tab
from benchmark.space.details import entries_by_key, entry_of_row, entry_order
from benchmark.space.details_tab import DetailsTab, Wanted, details_tab
from benchmark.space.page import CSS, OPENED_JS, URL_JS, URL_KEYS, page_js, tab_js
from benchmark.space.summary import summary_tab
from benchmark.space.text import ABOUT, FAQ, HOW_TO_SUBMIT, INTRO, citation_text

#: the Space's folder (``hf_space/`` in a checkout; the Space's root when deployed): the pin
SPACE_DIR = Path(os.environ.get("GROUNDCOVER_SPACE_DIR", paths.REPO_ROOT / "hf_space"))


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


#: the tabs after the families' and Model details: (key in a share link, title, its text)
TEXT_TABS = (
    ("faq", "FAQ", lambda: FAQ),
    ("about", "About", lambda: ABOUT),
    ("submit", "How to submit", lambda: HOW_TO_SUBMIT),
    ("citation", "Citation", citation_text),
)


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
    selectable: dict[str, Any] = {}  # share-link key -> its tab
    with gr.Blocks(title="groundcover leaderboard", delete_cache=(3600, 3600)) as demo:
        gr.Markdown(INTRO)
        if source:  # where the results shown come from (a path or a dataset id): escaped
            gr.Markdown(f"<small>{html.escape(f'Results shown: {source}')}</small>", elem_id="gc-source")
        # every tab in sight, however many families
        with gr.Tabs(elem_id="gc-tabs", overflow_behavior="wrap") as tabset:
            for fid, fam in REGISTRY.items():
                with gr.Tab(fam.title, id=f"tab-{fid}", elem_id=f"gc-tab-{fid}") as selectable[fid]:
                    tabs.append(family_tab(lb, fid, fam, default_profile, landing=not tabs))
            space_releases.canary_tab(canary)  # a canary's candidate release beside this one
            with gr.Tab("Summary", id="tab-summary", elem_id="gc-tab-summary") as selectable["summary"]:
                summary_tab(lb)
            with gr.Tab("Compare two", id="tab-compare", elem_id="gc-tab-compare") as selectable["compare"]:
                compare_tab(lb)
            with gr.Tab("Model details", id="tab-model", elem_id="gc-tab-model") as selectable["model"]:
                details = details_tab(lb)
            for key, title, text in TEXT_TABS:
                with gr.Tab(title, id=f"tab-{key}", elem_id=f"gc-tab-{key}") as selectable[key]:
                    gr.Markdown(text())
        if lb.skipped:  # file names come from the results tree: shown as plain text, never markup
            gr.Textbox("\n".join(lb.skipped), label="Skipped result files", interactive=False, lines=2)
        wire_share_link(demo, lb, tabset, selectable, tabs, details)
        for ft in tabs:  # a row click opens the entry's details

            def _row(evt: gr.SelectData, *state: Any, _fid: str = ft.fid) -> tuple[Any, Any]:
                key = entry_of_row(lb, _fid, evt.row_value, *state)
                if key is None:
                    return gr.update(), gr.update()
                return gr.Tabs(selected="tab-model"), gr.update(value=key)

            ft.table.select(_row, [*ft.filters, ft.columns], [tabset, details.run])
    return demo


def wire_share_link(
    demo: gr.Blocks,
    lb: Leaderboard,
    tabset: Any,
    selectable: dict[str, Any],
    tabs: list[FamilyTab],
    details: DetailsTab,
) -> None:
    """The address bar follows what is shown (:data:`benchmark.space.page.SHARE`), and a link
    opens on what it holds; values the page does not offer are ignored."""
    for key, tab in selectable.items():
        tab.select(None, None, None, js=tab_js(key))
    for ft in tabs:
        fid_box = gr.Textbox(ft.fid, visible=False)
        gr.on([f.change for f in ft.filters], None, [fid_box, *ft.filters], None, js=URL_JS)
    results = entries_by_key(lb)

    def _from_url(opened: str) -> list[Any]:
        params = {k: v[0] for k, v in parse_qs(str(opened or "")).items()}
        tab = params.get("tab")
        out: list[Any] = [gr.Tabs(selected=f"tab-{tab}") if tab in selectable else gr.update()]
        for ft in tabs:
            for key, comp in zip(URL_KEYS, ft.filters, strict=True):
                value = params.get(key) if ft.fid == tab else None
                if value is None:
                    out.append(gr.update())
                elif key == "q":
                    out.append(gr.update(value=value[:200]))
                else:
                    out.append(gr.update(value=value) if value in _choices(comp) else gr.update())
        result = params.get("result") if tab == "model" else None
        if result in results:
            trace = params.get("trace", "")
            page = str(int(trace) - 1) if trace.isdigit() and int(trace) > 0 else None  # counted from 1
            out += [gr.update(value=result), Wanted(result, params.get("query"), page)]
        else:
            out += [gr.update(), Wanted()]
        return out

    outputs = [tabset, *[f for ft in tabs for f in ft.filters], details.run, details.wanted]
    demo.load(_from_url, gr.Textbox(visible=False), outputs, js=OPENED_JS)


def _choices(component: Any) -> set[str]:
    return {str(c[1]) if isinstance(c, tuple | list) else str(c) for c in (component.choices or [])}


def launch(demo: gr.Blocks, port: int | None = None) -> None:
    """Serve ``demo`` with the page's styles, script and theme, compressed (:mod:`.serving`)."""
    serving.precompress_in_background()
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=port,
        css=CSS,
        js=page_js(),
        head=serving.head(),
        theme=serving.theme(),
        app_kwargs={"middleware": [Middleware(serving.CompressedPage)]},
    )


if __name__ == "__main__":
    launch(build_app())
