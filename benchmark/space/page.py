"""What the page carries besides its components: the styles Gradio's defaults lack and the
scripts that run in the visitor's browser (header tooltips, the share link)."""

from __future__ import annotations

import json

from benchmark.space.text import header_help

#: what a share link carries: each family tab's filters (in filter order), and Model details'
#: ("trace" is the trace page, counted from 1: Gradio keeps "page" for itself)
URL_KEYS = ("q", "weights", "size", "profile", "task")
DETAIL_KEYS = ("result", "query", "trace")

#: the share link, kept in the address bar as the page changes (nothing is sent): the open tab
#: and its own state.  It starts from the link opened, so that a tab keeps its filters until
#: they change; a change arriving after its tab was left updates that tab, not the open one.
SHARE = """(window.gcShare = window.gcShare || (() => {
    const FILTERS = __FILTERS__, DETAILS = __DETAILS__;
    const opened = new URL(window.location.href).searchParams;
    const state = {tab: opened.get('tab'), filters: {}, details: {}};
    const keep = (keys, into) => keys.forEach(k => { if (opened.get(k) !== null) into[k] = opened.get(k); });
    if (state.tab === 'model') keep(DETAILS, state.details);
    else if (state.tab) keep(FILTERS, state.filters[state.tab] = {});
    const shown = tab => {  // the tab's panel is on screen (not only its last event)
        const panel = document.getElementById('gc-tab-' + tab);
        return !!panel && panel.offsetParent !== null;
    };
    const write = () => {
        const u = new URL(window.location.href);
        ['tab', ...FILTERS, ...DETAILS].forEach(k => u.searchParams.delete(k));
        if (state.tab) u.searchParams.set('tab', state.tab);
        const own = state.tab === 'model' ? state.details : (state.filters[state.tab] || {});
        for (const [k, v] of Object.entries(own)) {
            if (v !== undefined && v !== null && v !== '' && v !== 'any') u.searchParams.set(k, v);
        }
        window.history.replaceState(null, '', u.toString());
    };
    return {
        opened: opened.toString(),
        tab(tab) { state.tab = tab; write(); },
        filters(tab, vals) {
            state.filters[tab] = Object.fromEntries(FILTERS.map((k, i) => [k, vals[i]]));
            if (shown(tab)) state.tab = tab;  // a late change of a tab left behind keeps its place
            write();
        },
        details([result, query, page]) {
            const trace = page === null || page === undefined || page === '' ? null : String(Number(page) + 1);
            state.details = Object.fromEntries(DETAILS.map((k, i) => [k, [result, query, trace][i]]));
            if (state.details.result && shown('model')) state.tab = 'model';
            write();
        },
    };
})())""".replace("__FILTERS__", json.dumps(URL_KEYS)).replace("__DETAILS__", json.dumps(DETAIL_KEYS))

#: on a filter change, on a change of what Model details shows, and on load (the link opened)
URL_JS = f"(fid, ...vals) => {{ {SHARE}.filters(fid, vals); return []; }}"
DETAILS_URL_JS = f"(...vals) => {{ {SHARE}.details(vals); return []; }}"
OPENED_JS = f"() => [{SHARE}.opened]"


def tab_js(tab: str) -> str:
    """On a tab's selection: the tab (and its own filters or details) into the share link."""
    return f"() => {{ {SHARE}.tab({json.dumps(tab)}); return []; }}"


#: page styles Gradio's defaults lack (headers that never wrap into a column of letters)
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
/* a long trace scrolls inside its box (Gradio's block would let it run over the page) */
.gc-trace { max-height: 75vh; overflow: auto !important; }
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
/* a name from a submission: on one line, cut with an ellipsis where its column ends (its whole
   text in the tooltip), isolated so that its own direction cannot turn the text around it */
.gc-name { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; vertical-align: bottom; unicode-bidi: isolate; }
.gc-setting { white-space: nowrap; }
.gc-figcaption li { max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  unicode-bidi: isolate; }
.gc-power { font-size: .9rem; margin: .1rem 0; }
/* figures in dark mode: Gradio does not theme Plotly, so its paper, text and grid are turned
   dark here (over the inline styles Plotly writes; the entries' colours read on both) */
.dark .gc-figure .main-svg { background: transparent !important; }
.dark .gc-figure .main-svg .bg { fill: transparent !important; }
.dark .gc-figure .main-svg > g:not(.hoverlayer) text { fill: #e6edf3 !important; }
.dark .gc-figure .gridlayer path, .dark .gc-figure .zerolinelayer path, .dark .gc-figure path.xlines-above,
.dark .gc-figure path.ylines-above, .dark .gc-figure .angularaxis path, .dark .gc-figure .radialaxis path
  { stroke: #3d444d !important; }
/* the landing figure's sketch until Plotly has drawn the figure, which then takes its place */
.gc-figcol:has(.gc-figure .main-svg) .gc-sketch { display: none; }
.gc-figcol:has(.gc-sketch) .gc-figure:not(:has(.main-svg)) { position: absolute; visibility: hidden; }
.dark .gc-sketch .bg { fill: transparent; }
.dark .gc-sketch text { fill: #e6edf3; }
"""


#: on load: every table header's tooltip says what its column means (kept when Gradio redraws
#: a header); a click on a model's link opens its page, not also the row's details.
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
    """:data:`HEADER_JS` with the project's column help (:func:`header_help`), "<" escaped."""
    return HEADER_JS.replace(
        "__HELP__", json.dumps(header_help(), ensure_ascii=False).replace("<", "\\u003c")
    )
