"""`benchmark judge-check` end to end with the offline judges: replacing every retrieved
passage by one of another document must take the extractive answers' S_fact from 1 down."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.core.results import read_result

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_irrelevant_evidence_lowers_s_fact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "judge-check",
        "--outputs",
        str(REPO / "submissions" / "groundcover__bm25-extractive-top3" / "webtrack-2009-2012.jsonl"),
        "--tasks",
        "webtrack-2009-2012",
        "--variants",
        "m",
        "--irrelevant",
        "0,100",
        "--contradictions",
        "none",
        "--limit",
        "2",
        "--results-dir",
        str(tmp_path),
        "--no-progress",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "judge check: % of retrieved passages replaced by irrelevant ones" in out
    assert (tmp_path / "judge-check-irrelevant.png").is_file()
    s_fact = {
        level: read_result(next((tmp_path / f"irrelevant-{level}").rglob("*.icat.json")))
        .scores["s_fact"]
        .value
        for level in ("0", "100")
    }
    assert s_fact["0"] == 1.0 and s_fact["100"] < 0.5, s_fact
