"""What the page carries besides its components: the styles Gradio's defaults lack and the
scripts that run in the visitor's browser (header tooltips, the share link)."""

from __future__ import annotations

import json

from benchmark.space.text import header_help

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
