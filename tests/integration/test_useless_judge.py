"""A judge that is up but useless is never ranked, and ``--retry-failed`` recovers the exact numbers.

ICAT-S behind a real OpenAI-compatible server on 127.0.0.1 (a scripted alignment judge). The
server answers HTTP 200 to every request, but while it is "useless" its replies are prose
with no usable JSON, as a refusing or misconfigured judge answers. Queries with no grounded
claim score 0 without a call; the queries that need the judge fail. The run must exit 3, the
result be incomplete and on no board (the mean of the zeros left would otherwise be ranked),
a plain re-run change nothing (the judge's cached replies are the same), and ``--retry-failed``
against the healthy judge give exactly the numbers of a run whose judge was healthy throughout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.board.leaderboard import build_leaderboard
from benchmark.cli.main import main
from benchmark.core import paths
from benchmark.core.results import read_result
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, http_judge_profile

pytestmark = pytest.mark.slow
TASK = "webtrack-2009-2012"
MODE = {"useless": False}


def alignment_judge(messages: list[dict[str, str]]) -> str:
    """Healthy: every listed aspect is addressed by statement 1 (valid JSON lines). Useless:
    a polite refusal in prose, HTTP 200 all the same."""
    if MODE["useless"]:
        return "I'm sorry, but I can't help with deciding which aspects these statements cover."
    turn = messages[-1]["content"]
    aspects = turn.split("Aspects:\n", 1)[1].split("\n\nStatements:", 1)[0]
    numbers = re.findall(r"^(\d+)\.", aspects, flags=re.M)
    return "\n".join(json.dumps({"aspect": int(n), "claims": [1]}) for n in numbers[:2]) or "NONE"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(create_app(ScriptedModel("scripted-aligner", alignment_judge))) as srv:  # type: ignore[arg-type]
        yield srv


def answers(folder: Path) -> Path:
    """Six of the published closed-book SmolLM2 answers: some ground a claim, some none."""
    published = paths.REPO_ROOT / "submissions" / "HuggingFaceTB__SmolLM2-135M-Instruct" / f"{TASK}.jsonl"
    path = folder / "outputs.jsonl"
    path.write_text("".join(published.read_text(encoding="utf-8").splitlines(keepends=True)[:6]))
    return path


def score(outputs: Path, profile: Path, results: Path, *extra: str) -> int:
    return main(
        [
            "score", "--outputs", str(outputs), "--tasks", TASK, "--metrics", "icat", "--variants", "s",
            "--judge-profile", str(profile), "--results-dir", str(results), "--no-progress", *extra,
        ]
    )  # fmt: skip


def test_a_judge_that_answers_prose_is_incomplete_unranked_and_retry_failed_recovers_the_numbers(
    server: ServerThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = http_judge_profile(tmp_path, server, "http-aligner", "scripted-aligner", max_new_tokens=64)
    outputs = answers(tmp_path)

    # the judge healthy throughout: the reference numbers
    MODE["useless"] = False
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-reference"))
    assert score(outputs, profile, tmp_path / "reference") == 0
    (reference_file,) = (tmp_path / "reference").rglob(f"{TASK}.icat.json")
    reference = read_result(reference_file)
    assert reference.primary == "icat_s" and not reference.incomplete
    needing = [pq for pq in reference.per_query if pq.counts.get("grounded", 0) > 0]
    assert 0 < len(needing) < len(reference.per_query)  # some queries need the judge, some do not

    # the same run with a judge that answers prose: incomplete, exit 3, on no board
    MODE["useless"] = True
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home-useless"))
    capsys.readouterr()
    assert score(outputs, profile, tmp_path / "useless") == 3
    err = capsys.readouterr().err
    assert "incomplete" in err and "could not be used" in err
    (useless_file,) = (tmp_path / "useless").rglob(f"{TASK}.icat.json")
    useless = read_result(useless_file)
    ranked = useless.scores["icat_s"]
    assert useless.incomplete and ranked.incomplete and ranked.failed >= 1 and ranked.unreachable == 0
    board = build_leaderboard(tmp_path / "useless")
    assert board.entries == [] and any("incomplete" in s for s in board.skipped)

    # the judge mended: a plain re-run serves the cached prose again and stays incomplete
    MODE["useless"] = False
    before = control(server, "stats")["requests"]
    assert score(outputs, profile, tmp_path / "useless") == 3
    assert control(server, "stats")["requests"] == before
    assert read_result(useless_file).incomplete

    # --retry-failed asks the judge again for exactly the failed queries: the reference numbers
    assert score(outputs, profile, tmp_path / "useless", "--retry-failed") == 0
    assert control(server, "stats")["requests"] > before
    resumed = read_result(useless_file)
    assert not resumed.incomplete
    assert resumed.scores == reference.scores
    assert [pq.model_dump() for pq in resumed.per_query] == [pq.model_dump() for pq in reference.per_query]
    assert build_leaderboard(tmp_path / "useless").entries
