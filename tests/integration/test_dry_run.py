"""``benchmark score --dry-run`` counts what the real run then asks, and computes nothing.

Offline profile, real models and indexes for the real run; five families on two RAG
answers of the published submission (so attribution applies).  Three runs share one
cache: a dry run on a cold cache, the real run, and a dry run after it.

* cold: nothing is written, the cache stays empty, and every stage the plan calls
  *exact* asks exactly what the real run then asked (distinct requests per stage and
  model kind);
* warm: the dry run replays the real run from the cache: every stage exact, everything
  cached, the same counts as the real run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from benchmark.core.results import read_result

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
SUBMISSION = REPO / "submissions/HuggingFaceTB__SmolLM2-135M-Instruct__rag-bm25-k5/webtrack-2009-2012.jsonl"
QUERIES = ("26", "117")  # both with grounded claims in the RAG answers: the alignment LLM is asked
FAMILIES = "icat,exam,subq,nuggets,attribution"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("dry")
    rows = [json.loads(line) for line in SUBMISSION.read_text().splitlines()]
    (root / "answers.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows if r["query_id"] in QUERIES)
    )
    env = {
        **os.environ,
        "GROUNDCOVER_HOME": str(root / "home"),
        "GROUNDCOVER_CACHE": str(root / "cache.sqlite"),
    }
    base = [
        sys.executable, "-m", "benchmark", "score", "--outputs", str(root / "answers.jsonl"),
        "--tasks", "webtrack-2009-2012", "--metrics", FAMILIES, "--variants", "m,s",
        "--results-dir", str(root / "results"), "--no-progress",
    ]  # fmt: skip

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*base, *extra], env=env, cwd=REPO, capture_output=True, text=True, timeout=1200
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    cold = run("--dry-run", str(root / "cold.json"))
    out: dict[str, object] = {
        "cold": json.loads((root / "cold.json").read_text()),
        "cold_stdout": cold.stdout,
        "cold_stderr": cold.stderr,
        "results_after_dry": sorted((root / "results").rglob("*")) if (root / "results").exists() else [],
        "cache_after_dry": (root / "cache.sqlite").exists() and _entries(root / "cache.sqlite"),
    }
    out["real_stderr"] = run().stderr
    results = [
        read_result(p) for p in (root / "results").rglob("*.json") if not p.name.endswith(".traces.jsonl")
    ]
    # the model-call counts of the whole process are recorded in each result; the last written has them all
    out["real"] = max((r.run.cache for r in results), key=lambda c: c.get("hits", 0) + c.get("misses", 0))
    # where the run left its checkpoints: nothing left to score (the plan keys items as the run did)
    run("--dry-run", str(root / "done.json"))
    out["done"] = json.loads((root / "done.json").read_text())
    # the same answers scored again elsewhere: nothing checkpointed there, everything cached
    run("--dry-run", str(root / "warm.json"), "--results-dir", str(root / "elsewhere"))
    out["warm"] = json.loads((root / "warm.json").read_text())
    return out


def _entries(path: Path) -> int:
    import sqlite3

    with sqlite3.connect(path) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def by_key(plan: dict) -> dict[str, dict[str, int | bool]]:
    """The plan's rows summed per stage/namespace (as the run records them), exact if all are."""
    out: dict[str, dict[str, int | bool]] = defaultdict(lambda: {"requests": 0, "cached": 0, "exact": True})
    for row in plan["stages"]:
        if not row["namespace"]:  # a stage the plan did not reach
            continue
        entry = out[f"{row['stage']}/{row['namespace']}"]
        entry["requests"] += row["requests"]
        entry["cached"] += row["cached"]
        entry["exact"] = bool(entry["exact"]) and row["exact"] and not row["pending"]
    return dict(out)


def real_counts(real: dict) -> dict[str, int]:
    """The run's requests per stage/namespace; calls made inside another model's call (the
    similarity judge's embeddings, under "<stage>:in-entail") are that model's work, not requests."""
    return {
        k: v["hits"] + v["misses"]
        for k, v in real["by_stage"].items()
        if v["hits"] + v["misses"] and ":in-" not in k
    }


def test_a_dry_run_computes_and_writes_nothing(runs: dict) -> None:
    assert runs["results_after_dry"] == []
    assert not runs["cache_after_dry"]
    assert "nothing was computed" in runs["cold_stdout"]
    # no weights load (transformers announces each load), no index is built or opened
    assert "Loading weights" not in runs["cold_stderr"] and "loading pypi:" not in runs["cold_stderr"]
    for opened in ("BM25 index", "faiss index"):
        assert opened not in runs["cold_stderr"] and opened in runs["real_stderr"]


def test_exact_stages_of_a_cold_dry_run_count_what_the_run_asks(runs: dict) -> None:
    plan, real = by_key(runs["cold"]), real_counts(runs["real"])
    exact = {k: v for k, v in plan.items() if v["exact"]}
    # the first stage of every family needs no earlier model output: exact in a cold plan
    assert {"answers/entail", "assignment/entail", "coverage-answer/embed"} <= set(exact)
    assert {k: v["requests"] for k, v in exact.items()} == {k: real[k] for k in exact}
    # nothing was in the cache: what counts as cached was asked earlier in the plan (the
    # sub-questions embedded for the answer, again for the retrieved chunks); the run finds at
    # least that many, more where a request equals one of a stage the plan could only estimate
    hits = {k: v["hits"] for k, v in runs["real"]["by_stage"].items()}
    assert all(v["cached"] <= hits[k] for k, v in exact.items())
    assert plan["coverage-retrieval/embed"]["cached"] > 0
    # the judge's own tokenizer (SmolLM2's, from its GGUF file) counted the prompts; none is loaded
    llm = [r for r in runs["cold"]["stages"] if r["namespace"] == "llm.generate"]
    assert llm and all(
        r["tokens_counted"] and r["prompt_tokens"] > 10 * (r["requests"] - r["cached"]) for r in llm
    )


def test_a_dry_run_after_the_run_replays_it_exactly(runs: dict) -> None:
    plan, real = by_key(runs["warm"]), real_counts(runs["real"])
    assert all(v["exact"] for v in plan.values()), [k for k, v in plan.items() if not v["exact"]]
    assert {k: v["requests"] for k, v in plan.items()} == real
    assert all(v["cached"] == v["requests"] for v in plan.values())
    assert "LLM calls" in {row["kind"] for row in runs["warm"]["stages"]}


def test_every_stage_a_run_enters_is_declared_by_its_family(runs: dict) -> None:
    from benchmark.families import REGISTRY

    declared = {s for f in FAMILIES.split(",") for s in REGISTRY[f].stages}
    entered = {k.rsplit("/", 1)[0] for k in real_counts(runs["real"])}
    assert entered <= declared, entered - declared
    # and a cold plan names the stages it could not reach (alignment waits on entailment here)
    assert any(row["kind"] == "not reached" for row in runs["cold"]["stages"]) or all(
        row["exact"] for row in runs["cold"]["stages"]
    )


def test_evaluate_dry_run_counts_answers_to_generate_and_plans_those_that_exist(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in SUBMISSION.read_text().splitlines()]
    folder = tmp_path / "outputs" / f"{SUBMISSION.parent.name}"
    folder.mkdir(parents=True)
    (folder / SUBMISSION.name).write_text(
        "".join(json.dumps(r) + "\n" for r in rows if r["query_id"] in QUERIES)
    )
    env = {**os.environ, "GROUNDCOVER_HOME": str(tmp_path / "home")}
    command = [
        sys.executable, "-m", "benchmark", "evaluate", "--model", "groundcover-offline",
        "--tasks", "webtrack-2009-2012", "--rag", "none,bm25", "--metrics", "nuggets",
        "--output-dir", str(tmp_path / "outputs"), "--results-dir", str(tmp_path / "results"),
        "--no-progress", "--dry-run", str(tmp_path / "plan.json"),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = " ".join(done.stdout.split())
    assert "closed-book: 12 answers to generate" in out
    assert "10 answers to generate" in out and "(2 already in" in out
    assert "scoring of the 22 answers not generated yet is not in the plan" in out
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert {q["to_score"] for q in plan["queries"]} == {2}
    assert sorted(p.name for p in (tmp_path / "outputs").rglob("*.jsonl")) == [
        SUBMISSION.name
    ]  # nothing generated
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.json"))


def test_a_dry_run_skips_what_the_run_checkpointed(runs: dict) -> None:
    queries = runs["done"]["queries"]
    assert queries and all(q["to_score"] == 0 and q["checkpointed"] == len(QUERIES) for q in queries)
    assert runs["done"]["stages"] == []
