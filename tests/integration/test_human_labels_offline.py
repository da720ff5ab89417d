"""``--human-labels`` end to end: a published submission scored offline with a labels file.

The SmolLM2 closed-book submission is scored by ``benchmark score`` on the nugget family with
the pinned offline profile (MiniLM entailment assigner, no LLM), with a synthetic labels
file that calls three nuggets per topic supported or not at random.  The result records
each strict score's corrected figure with as many labels as the file gives for its units,
and ``benchmark leaderboard`` prints it in its own column beside the judge's, with the
random-sample caveat.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.core.results import read_result, read_traces
from benchmark.models.profiles import load_profile

pytestmark = pytest.mark.slow
pytest.importorskip("ppi_py")  # the `ppi` extra (scripts/setup.sh installs it)
REPO = Path(__file__).resolve().parents[2]
SUBMISSION = REPO / "submissions" / "HuggingFaceTB__SmolLM2-135M-Instruct"


def published_result() -> Path:
    """The published result of the profile version in force (earlier versions' stay, as history)."""
    version = load_profile().version
    (path,) = (REPO / "leaderboard" / "results" / SUBMISSION.name).glob(
        f"*/closed-book/offline-smollm2-minilm-sim-v{version}/webtrack-2009-2012.nuggets.json"
    )
    return path


def test_a_published_submission_scored_with_human_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    published_file = published_result()
    rng = random.Random(1)
    rows, vital = [], 0
    for trace in read_traces(published_file):
        for nugget in trace["nuggets"][:3]:
            rows.append(
                {"query_id": trace["query_id"], "unit_id": nugget["nugget_id"], "label": rng.randint(0, 1)}
            )
            vital += nugget["importance"] == "vital"
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    results = tmp_path / "results"
    args = ["score", "--submission", str(SUBMISSION), "--metrics", "nuggets", "--results-dir", str(results),
            "--no-progress", "--human-labels", str(labels)]  # fmt: skip
    assert main(args) == 0
    (path,) = results.rglob("*.nuggets.json")
    result = read_result(path)
    published = read_result(published_file)
    for key, n in (("all_strict", len(rows)), ("vital_strict", vital)):
        assert result.scores[key].value == published.scores[key].value  # the judge's figure as published
        h = result.scores[key].human_corrected
        assert h is not None and h.n_labels == n and h.unit == "nugget"
        assert 0.0 <= h.ci_low <= h.value <= h.ci_high <= 1.0
    capsys.readouterr()
    assert main(["leaderboard", "--results-dir", str(results), "--out", str(tmp_path / "board")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "all (strict) (human-corrected)" in out and f"n={len(rows)}" in out
    assert "random sample" in out
