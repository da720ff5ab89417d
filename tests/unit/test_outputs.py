"""Outputs files: our JSONL and lm-eval sample logs; errors name file, line, field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.answers.outputs import read_outputs
from benchmark.core.errors import InputError


def write(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_reads_groundcover_rows(tmp_path: Path) -> None:
    rows = read_outputs(write(tmp_path / "o.jsonl", [{"query_id": "1", "answer": "A", "model": "org/m"}]))
    assert rows[0].model == "org/m" and rows[0].revision == "main"


def test_errors_name_line_and_field(tmp_path: Path) -> None:
    path = write(
        tmp_path / "o.jsonl",
        [
            {"query_id": "1", "answer": "A", "model": "m"},
            {"query_id": "2", "model": "m"},
            "{not json",
            {"query_id": "1", "answer": "B", "model": "m"},
            {"query_id": "3", "answer": "C", "model": "m", "score": 1.0},
        ],
    )
    with pytest.raises(InputError) as exc:
        read_outputs(path)
    msg = str(exc.value)
    assert "o.jsonl, line 2, field 'answer'" in msg
    assert "o.jsonl, line 3: invalid JSON" in msg
    assert "line 4, field 'query_id': duplicate query_id '1'" in msg
    assert "line 5, field 'score'" in msg


def test_reads_lm_eval_samples(tmp_path: Path) -> None:
    d = tmp_path / "org__model"
    d.mkdir()
    sample = {
        "doc_id": 0,
        "doc": {"query_id": "7", "text": "q"},
        "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": {"max_gen_toks": 9, "until": []}}},
        "resps": [["raw"]],
        "filtered_resps": ["the answer"],
    }
    rows = read_outputs(write(d / "samples_groundcover_x_2026.jsonl", [sample]))
    assert rows[0].query_id == "7" and rows[0].answer == "the answer" and rows[0].model == "org/model"
    assert rows[0].generation["max_gen_toks"] == 9 and rows[0].backend == "lm-eval"
    bad = dict(sample, doc={"text": "q"})
    with pytest.raises(InputError, match=r"doc\.query_id"):
        read_outputs(write(d / "samples_bad.jsonl", [bad]))
