"""`benchmark decompose-compare` end to end with the real offline models: SmolLM2 prompted
with retrieved examples (MiniLM), spaCy's parser, LLM and similarity judges, and subclaims
grounded in the starter corpus; then the methods ranked on one leaderboard board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.board.leaderboard import build_leaderboard
from benchmark.cli.main import main
from benchmark.core.results import read_result
from benchmark.models.cache import default_cache

pytestmark = pytest.mark.slow

TEXTS = [
    {
        "id": "175",
        "text": "Chest pain is the most common heart attack symptom. Women often have other symptoms too.",
    },
    {"id": "182", "text": "Nicotine patches and gum ease withdrawal symptoms when people quit smoking."},
]
METHODS = ("sentences", "dependency", "russellian")


def test_methods_compared_recorded_and_ranked(
    tmp_path: Path, fresh_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = tmp_path / "heart-and-smoking.jsonl"
    texts.write_text("\n".join(json.dumps(t) for t in TEXTS), encoding="utf-8")
    args = [
        "decompose-compare",
        "--methods",
        ",".join(METHODS),
        "--texts",
        str(texts),
        "--task",
        "webtrack-2009-2012",
        "--static-examples",
        "2",
        "--retrieved-examples",
        "1",
        "--no-progress",
    ]
    assert main([*args, "--results-dir", str(tmp_path / "results")]) == 0
    out = capsys.readouterr().out
    assert "claim decomposition methods" in out and "examples: the same sentences" in out
    files = sorted((tmp_path / "results").rglob("*.decompscore.json"))
    assert (
        len(files) == 3
        and (tmp_path / "results" / "webtrack-2009-2012.heart-and-smoking.decompscore.methods.png").is_file()
    )
    results = {read_result(f).model.id: read_result(f) for f in files}
    assert set(results) == {f"decomposer/{m}" for m in METHODS}
    for r in results.values():
        assert r.task.id == "webtrack-2009-2012.heart-and-smoking" and r.task.corpus  # grounded in the corpus
        assert r.scores["decompscore"].n + sum(q.failed for q in r.per_query) == 2
        assert "s_fact_all" in r.scores or any(q.failed for q in r.per_query)
    russellian = results["decomposer/russellian"]
    assert russellian.settings["retrieved_examples"] == 1
    assert russellian.model.revision == "v1-s2-r1"
    # the sentence baseline's subclaims are the sentences themselves
    assert results["decomposer/sentences"].scores["subclaims_per_unit"].value == 1.0
    # one board, three methods ranked by paired tests over the passages
    board = build_leaderboard(tmp_path / "results").tables["decompscore"]
    assert len(board) == 3 and board["board"].nunique() == 1 and board["rank"].min() == 1
    # again, into a new folder: every model call is a cache hit
    calls = default_cache().stats.misses
    assert main([*args, "--results-dir", str(tmp_path / "again")]) == 0
    assert default_cache().stats.misses == calls
    again = [read_result(f) for f in (tmp_path / "again").rglob("*.decompscore.json")]
    assert {r.model.id: r.scores for r in again} == {k: v.scores for k, v in results.items()}
