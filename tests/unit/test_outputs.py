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
    assert "line 4, field 'query_id': duplicate query id '1'" in msg
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


def test_one_entry_point_reads_a_file_records_and_a_trec_rag_run_alike(tmp_path: Path) -> None:
    """``read_answers`` is what the CLI, the API and ``evaluate`` call: a file and the same
    rows held in memory give the same answer set, checked against the task the same way,
    and a TREC RAG run gives one set per run id with its sentences and citations kept."""
    from benchmark.answers import read_answers
    from benchmark.tasks import load_task
    from tests.helpers.toy import toy_task

    task = load_task(toy_task(tmp_path))
    rows = [
        {"query_id": "1", "answer": "A", "model": "org/m"},
        {"query_id": "2", "answer": "B", "model": "org/m"},
    ]
    (from_file,) = read_answers(write(tmp_path / "o.jsonl", rows), task)
    (from_records,) = read_answers(rows, task)
    assert from_file.answers == from_records.answers == {"1": "A", "2": "B"}
    assert from_file.model == from_records.model and from_file.evidence is None and from_file.run is None
    with pytest.raises(InputError, match=r"o\.jsonl, line 1, field 'query_id': query id 'x' is not in task"):
        read_answers(write(tmp_path / "o.jsonl", [{"query_id": "x", "answer": "A", "model": "m"}]), task)
    with pytest.raises(InputError, match=r"answers, line 1, field 'query_id': query id 'x' is not in task"):
        read_answers([{"query_id": "x", "answer": "A", "model": "m"}], task)
    topic = task.query_texts()["1"]
    run = {
        "run_id": "r1",
        "topic_id": "1",
        "topic": topic,
        "references": ["d1", "d2"],
        "response_length": 4,
        "answer": [{"text": "Tornadoes form in storms.", "citations": [1]}],
    }
    (found,) = read_answers(write(tmp_path / "run.jsonl", [run]), task, trec_rag_run=True)
    assert found.model.id == "r1" and found.run is not None and found.run.run_id == "r1"
    assert found.evidence == {"1": ["d1", "d2"]} and found.sentences["1"][0].citations == (1,)
    with pytest.raises(InputError, match="give its path"):
        read_answers(rows, task, trec_rag_run=True)
