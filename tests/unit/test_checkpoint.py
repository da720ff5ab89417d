"""Checkpoints survive torn writes and resume cleanly."""

from __future__ import annotations

import json
from pathlib import Path

from benchmark.core.checkpoint import JsonlCheckpoint


def test_torn_last_line_is_dropped_and_file_truncated(tmp_path: Path) -> None:
    ck = JsonlCheckpoint(tmp_path / "t.jsonl", id_field="query_id")
    ck.append({"query_id": "1", "x": 1})
    ck.append({"query_id": "2", "x": 2})
    with open(ck.path, "a", encoding="utf-8") as f:
        f.write('{"query_id": "3", "x"')  # killed mid-write
    done = ck.load()
    assert sorted(done) == ["1", "2"]
    ck.append({"query_id": "3", "x": 3})
    assert sorted(ck.load()) == ["1", "2", "3"]
    assert ck.path.read_text().count("\n") == 3


def test_rewrite_orders_items(tmp_path: Path) -> None:
    ck = JsonlCheckpoint(tmp_path / "t.jsonl", id_field="query_id")
    for q in ("2", "1"):
        ck.append({"query_id": q})
    ck.rewrite([{"query_id": "1"}, {"query_id": "2"}])
    assert [line for line in ck.path.read_text().splitlines()] == ['{"query_id": "1"}', '{"query_id": "2"}']


def test_traces_are_read_back_whole_when_an_answer_holds_a_line_separator(tmp_path: Path) -> None:
    """Traces are written with ensure_ascii=False: U+2028 inside an answer is not a line end."""
    from benchmark.core.results import read_traces, traces_path

    result = tmp_path / "t.exam.json"
    rows = [{"query_id": "1", "answer": "one\u2028two"}, {"query_id": "2", "answer": "three"}]
    traces_path(result).write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    assert read_traces(result) == rows
