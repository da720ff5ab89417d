"""RAG prompts, citations, settings, and the RAG fields of outputs rows and submissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.answers.citations import parse_citations, record
from benchmark.answers.outputs import read_outputs
from benchmark.core.errors import InputError
from benchmark.core.results import ModelInfo, RAGSetting
from benchmark.generation.rag import RAGContext, parse_settings, rag_prompt
from benchmark.retrieval import Hit

SETTING = RAGSetting(retriever="bm25", k=3, prompt="rag-answer@1", corpus="starter")


def test_citations_valid_invalid_and_formats() -> None:
    answer = "Aspirin helps [2]. Rest too [1][2]. See [1, 3] and [7]; also [2; 9]. Not a citation: [a] [ 0 ]."
    assert parse_citations(answer, 3) == ([2, 1, 3], [7, 9, 0])
    rec = record(answer, ["d1#0", "d2#0", "d3#1"])
    assert rec.cited == ["d2#0", "d1#0", "d3#1"] and rec.invalid_citations == [7, 9, 0]
    assert parse_citations("no citations at all", 5) == ([], [])


def test_prompt_numbers_passages_in_one_user_turn() -> None:
    text = rag_prompt("Answer well.", "what is {x}?", ["first  passage\nwith lines", "second {braces}"])
    assert text.startswith("Answer well.\n\n")
    assert "[1] first passage with lines\n\n[2] second {braces}" in text  # braces are text, not fields
    assert text.rstrip().endswith("Question: what is {x}?")


def test_settings_parse_and_reject() -> None:
    none, bm25 = parse_settings("none, bm25", 4)
    assert none is None and bm25 is not None and bm25.slug == "rag-bm25-k4" and bm25.label == "RAG bm25 k=4"
    for bad, k in (("sparse", 5), ("", 5), ("bm25", 0), ("bm25", 51)):
        with pytest.raises(InputError):
            parse_settings(bad, k)


def test_setting_is_part_of_the_model_identity() -> None:
    closed = ModelInfo(id="org/m", revision="main")
    rag = ModelInfo(id="org/m", revision="main", rag=SETTING)
    assert closed.label == "org/m" and rag.label == "org/m (RAG bm25 k=3)"
    assert closed.setting == "closed-book" and rag.setting == "rag-bm25-k3"


def test_context_prompts_and_ids() -> None:
    hits = [Hit("d1#0", "d1", "alpha text", 3.0, 1), Hit("d2#0", "d2", "beta text", 2.0, 2)]
    ctx = RAGContext(SETTING, {"q1": hits})
    assert ctx.passage_ids("q1") == ["d1#0", "d2#0"]
    assert "[2] beta text" in ctx.prompt("Answer.", "q1", "what?")


def test_outputs_rows_from_rag_runs_round_trip(tmp_path: Path) -> None:
    row = {
        "query_id": "1",
        "answer": "It is blue [1] [4].",
        "model": "org/m",
        "rag": SETTING.model_dump(mode="json"),
        "retrieval": record("It is blue [1] [4].", ["a#0", "b#0", "c#0"]).model_dump(),
    }
    path = tmp_path / "o.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (got,) = read_outputs(path)
    assert got.rag == SETTING and got.retrieval is not None and got.retrieval.invalid_citations == [4]


def test_lm_eval_samples_of_a_rag_export_keep_the_setting(tmp_path: Path) -> None:
    sample = {
        "doc": {
            "query_id": "1",
            "text": "q",
            "prompt": "p",
            "rag": SETTING.model_dump(mode="json"),
            "passages": ["x#0", "y#0"],
        },
        "resps": [["Answer [2]."]],
        "filtered_resps": ["Answer [2]."],
        "arguments": {"gen_args_0": {"arg_0": "p", "arg_1": {"max_gen_toks": 9}}},
    }
    path = tmp_path / "org__m" / "samples_groundcover_t__rag-bm25-k3_2026.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(sample) + "\n")
    (row,) = read_outputs(path)
    assert row.rag == SETTING and row.retrieval is not None and row.retrieval.cited == ["y#0"]
