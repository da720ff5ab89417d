"""Everything shown is escaped for its output format: HTML, Markdown, the terminal."""

from __future__ import annotations

import html
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from benchmark.board.render import md_cell
from benchmark.families.icat.views import trace_html
from tests.unit.test_submissions import HOSTILE_MARKUP


class _Tags(HTMLParser):
    """The elements and attribute names a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.add(tag)
        self.attributes.update(name for name, _ in attrs)


@pytest.mark.parametrize("payload", HOSTILE_MARKUP)
def test_drill_down_html_is_escaped_text(payload: str) -> None:
    trace = {
        "query_id": payload,
        "query": payload,
        "answer": payload,
        "failures": [payload],
        "aspects": [{"aspect_id": "1", "text": payload}],
        "claims": [
            {
                "text": payload,
                "grounded": True,
                "aspects_m": ["1"],
                "passages": [{"passage_id": payload, "text": payload, "support": 0.9, "supported": True}],
            }
        ],
    }
    out = trace_html(trace)
    assert html.escape(payload) in out
    tags = _Tags()
    tags.feed(out)
    assert tags.found <= {"h3", "details", "summary", "p", "b", "i", "ol", "ul", "li", "br"}, tags.found
    # "open": the answer shown unfolded; "start": the claims' first number (an int we compute)
    assert tags.attributes <= {"class", "open", "start"}, tags.attributes


@pytest.mark.parametrize("payload", HOSTILE_MARKUP)
def test_markdown_cells_cannot_link_or_tag(payload: str) -> None:
    cell = md_cell(payload)
    assert cell.startswith("`") and cell.endswith("`")  # a code span: no link, no tag is interpreted
    assert "|" not in cell.replace("\\\\|", "")


def test_terminal_prints_markup_literally() -> None:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(
        Text("[bold]x[/bold] [link=javascript:alert(1)]y[/link] 2[/]")
    )
    assert buf.getvalue().strip() == "[bold]x[/bold] [link=javascript:alert(1)]y[/link] 2[/]"


def test_space_reads_traces_with_unicode_line_separators(tmp_path: Path) -> None:
    """JSONL lines end at "\\n" only: an answer holding U+2028 / U+2029 / U+0085 still has its trace."""
    from benchmark.board.leaderboard import Entry
    from benchmark.core.results import traces_path, write_result
    from benchmark.space import details as app
    from tests.helpers.results_fixture import MODELS, PROFILE, QUERIES, make_result, trace

    result = make_result("a/b", MODELS["acme/strong"], PROFILE)
    path = write_result(result, tmp_path / "r.icat.json")
    rows = [trace("a/b", q, v) for q, v in zip(QUERIES, MODELS["acme/strong"], strict=True)]
    rows[0]["answer"] = "one\u2028two\u2029three\u0085four"
    traces_path(path).write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    html_out = app.detail_html(Entry(path=path, result=result, card=None), QUERIES[0])
    assert "one\u2028two" in html_out and "no trace" not in html_out
