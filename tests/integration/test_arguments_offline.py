"""RAArg and the argument judges end to end on the offline default: real BM25 over the
ArguAna points, the real SmolLM2 reranking, writing and judging one argument.

Quality is not the point (a 135M model); the plumbing is: the outputs record the RAArg
setting and the evidence ids, the ranking table is written, the result is scored from
that evidence, and every judge either returned usable ratings or recorded why not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmark.answers.outputs import read_outputs
from benchmark.cli.main import main
from benchmark.families.arguments.formulas import DIMENSIONS
from benchmark.families.arguments.trace import ArgumentTrace

pytestmark = pytest.mark.slow


def test_raarg_with_the_offline_model_then_the_listwise_judge(tmp_path: Path) -> None:
    args = ["evaluate", "--model", "groundcover-offline", "--tasks", "arguana-debates", "--limit", "1"]
    args += ["--rag", "bm25", "--rag-k", "3", "--rerank", "stance", "--rerank-depth", "6"]
    args += ["--gen-kwargs", "max_gen_toks=48", "--context-judges", "none", "--joint-judges", "none"]
    args += [
        "--output-dir",
        str(tmp_path / "out"),
        "--results-dir",
        str(tmp_path / "results"),
        "--no-progress",
    ]
    assert main(args) == 0

    (outputs,) = (tmp_path / "out").rglob("arguana-debates.jsonl")
    (row,) = read_outputs(outputs)
    assert row.rag is not None and row.rag.rerank == "stance" and row.rag.depth == 6
    assert row.rag.prompt == "raarg-argument@1" and outputs.parent.name.endswith("rag-bm25-stance-rerank6-k3")
    assert row.retrieval is not None and len(row.retrieval.passages) == 3
    assert all(p.startswith("test-") and "#" not in p for p in row.retrieval.passages)  # whole documents
    ranking = pd.read_csv(outputs.with_name("arguana-debates.ranking.csv"))
    assert set(ranking["ranker"]) == {"bm25", "bm25 + stance rerank"}

    (result,) = (tmp_path / "results").rglob("arguana-debates.arguments.json")
    (line,) = result.with_name("arguana-debates.arguments.traces.jsonl").read_text().splitlines()
    trace = ArgumentTrace.model_validate_json(line)
    assert trace.evidence_source == "given" and [d.doc_id for d in trace.evidence] == row.retrieval.passages
    record = trace.judges["listwise"]
    assert record.raw, "the raw replies are kept"
    rated = {d for d in DIMENSIONS if trace.scores.get(d) is not None}
    unrated = set(DIMENSIONS) - rated
    # every dimension is either rated or named in a recorded failure, never silently dropped
    assert all(any(d in f for f in record.failures) for d in unrated)
    scores = json.loads(result.read_text())["scores"]
    assert set(scores) >= {d for d in rated}
