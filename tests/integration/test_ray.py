"""Sharded scoring on a local Ray instance (2 workers on this 2-CPU machine).

``benchmark score --ray`` must write the files a single process writes: the same scores,
per-query values and traces, from cold caches of their own — and the same again when a
worker is killed with ``kill -9`` in the middle of a batch (Ray restarts it and runs the
batch again), and when a single process takes its queries in batches of another size.
ICAT-M on the offline profile: real MiniLM embeddings, a real Lucene and faiss index, no
LLM (so the run is short).

What is compared exactly, and why it can be (:func:`same_traces`): every field of every
trace, bit for bit — texts, ids, ranks, booleans and counts; ``retrieval_score`` (reciprocal
rank fusion: a function of ranks); ``support`` (the cosine of two query-side embeddings,
which :func:`benchmark.models.embeddings.encode_invariant` makes a function of the text
alone: no padding, one torch thread — one process runs torch on every core, a Ray worker
on one, and the shards see different batch-mates and cache orders); ``scores`` (means of
booleans).  No trace field needs a tolerance on one machine.  Before that change the
``support`` values moved in the 7th digit between batchings (63 of 120 differed between
``--query-batch 1`` and ``4``, by up to 1.8e-7) and thread counts, which is how this test
failed on one machine and passed on another.

Not compared: run times and cache hit/miss counts (the workers split the cache hits
differently), and nothing across devices: a GPU, or another CPU's vector instructions,
rounds the embeddings differently (last bits of a float32 cosine, ~1e-7), so every run here
is pinned to the CPU (``CUDA_VISIBLE_DEVICES`` empty: the driver would otherwise embed on
a GPU and the workers, holding none, on the CPU).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.results import read_result

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
ANSWERS = {
    "175": "The most common symptom of a heart attack is chest pain or pressure. Pain can spread to the arms, "
    "jaw or back. Women often have other symptoms such as nausea and shortness of breath.",
    "182": "Nicotine patches and gum help people quit smoking. Counselling doubles the chance of success. "
    "Smoking light cigarettes is completely safe.",
    "196": "A sore throat is usually caused by a virus. Gargling with salt water eases the pain. "
    "Strep throat needs antibiotics.",
    "117": "Asbestos fibres cause mesothelioma and lung cancer. Old buildings often contain asbestos insulation. "
    "Asbestos is harmless once it is inhaled.",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ray")
    with open(root / "answers.jsonl", "w") as f:
        for q, a in ANSWERS.items():
            f.write(json.dumps({"query_id": q, "answer": a, "model": "test/ray", "revision": "r1"}) + "\n")
    return root


def command(root: Path, results: str, *extra: str, query_batch: int = 1) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchmark",
        "score",
        "--outputs",
        str(root / "answers.jsonl"),
        "--tasks",
        "webtrack-2009-2012",
        "--metrics",
        "icat",
        "--variants",
        "m",
        "--results-dir",
        str(root / results),
        "--query-batch",
        str(query_batch),
        "--no-progress",
        *extra,
    ]


def start(root: Path, results: str, *extra: str, query_batch: int = 1) -> subprocess.Popen[str]:
    env = dict(
        os.environ,
        GROUNDCOVER_CACHE=str(root / f"{results}.sqlite"),
        RAY_AUTH_MODE="disabled",
        CUDA_VISIBLE_DEVICES="",  # CPU for driver and workers alike: devices round differently
    )
    return subprocess.Popen(
        command(root, results, *extra, query_batch=query_batch),
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-4000:]
    return out


def result_file(root: Path, results: str) -> Path:
    folder = root / results / "test__ray" / "r1" / "closed-book" / "offline-smollm2-minilm-sim-v6"
    return folder / "webtrack-2009-2012.icat.json"


def same_numbers(a: Path, b: Path) -> None:
    """Scores, per-query values and traces equal, exactly (run times and cache counts may differ)."""
    ra, rb = read_result(a), read_result(b)
    assert [q.model_dump() for q in ra.per_query] == [q.model_dump() for q in rb.per_query]
    assert {k: v.model_dump() for k, v in ra.scores.items()} == {
        k: v.model_dump() for k, v in rb.scores.items()
    }
    assert ra.curves == rb.curves and ra.failures == rb.failures and ra.counts == rb.counts
    same_traces(
        a.with_name("webtrack-2009-2012.icat.traces.jsonl"),
        b.with_name("webtrack-2009-2012.icat.traces.jsonl"),
    )


def same_traces(a: Path, b: Path) -> None:
    """Every trace line identical, byte for byte (every field is invariant: module docstring);
    a difference is reported by the path of its first differing field, with both values."""
    ta, tb = a.read_text().splitlines(), b.read_text().splitlines()
    assert len(ta) == len(tb) == len(ANSWERS)
    for la, lb in zip(ta, tb, strict=True):
        if la != lb:
            where, x, y = first_difference(json.loads(la), json.loads(lb))
            pytest.fail(f"traces differ at {where}: {x!r} != {y!r}")


def first_difference(x: Any, y: Any, path: str = "") -> tuple[str, Any, Any]:
    if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
        for k in x:
            if x[k] != y[k]:
                return first_difference(x[k], y[k], f"{path}.{k}")
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            if u != v:
                return first_difference(u, v, f"{path}[{i}]")
    return path or "(the line)", x, y


@pytest.fixture(scope="module")
def single(root: Path) -> Path:
    finish(start(root, "single"))
    return result_file(root, "single")


def test_two_ray_workers_write_what_one_process_writes(root: Path, single: Path) -> None:
    out = finish(start(root, "ray", "--ray", "--ray-workers", "2"))
    assert "ray: 2 workers" in out
    same_numbers(single, result_file(root, "ray"))
    result = read_result(result_file(root, "ray"))
    assert result.run.cache["misses"] > 0  # the workers' model calls are counted in the result
    assert read_result(single).per_query[0].scores["icat_m"] is not None


def test_query_batches_of_another_size_write_the_same_numbers(root: Path, single: Path) -> None:
    """All four queries in one batch: their claims and windows are embedded together instead
    of per query (what a shard's batch-mates and cache order change) — the same traces."""
    finish(start(root, "single-batch4", query_batch=4))
    same_numbers(single, result_file(root, "single-batch4"))


def busy_worker() -> int | None:
    """A Ray worker process in the middle of scoring a batch (Ray names it by the call)."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if title.startswith(b"ray::ScoringWorker.score"):
                return int(pid)
    return None


def test_a_killed_worker_is_restarted_and_its_batch_scored_again(root: Path, single: Path) -> None:
    proc = start(root, "ray-kill", "--ray", "--ray-workers", "2")
    deadline = time.time() + 600
    victim = None
    while victim is None and time.time() < deadline and proc.poll() is None:
        victim = busy_worker()
        time.sleep(0.05)
    assert victim is not None, "no Ray worker was seen scoring"
    os.kill(victim, signal.SIGKILL)
    finish(proc)
    same_numbers(single, result_file(root, "ray-kill"))


def test_a_killed_driver_resumes_from_its_checkpoint(root: Path, single: Path) -> None:
    traces = result_file(root, "ray-resume").with_name("webtrack-2009-2012.icat.traces.jsonl")
    proc = start(root, "ray-resume", "--ray", "--ray-workers", "2")
    deadline = time.time() + 600
    while time.time() < deadline and not (traces.exists() and traces.read_text().count("\n") >= 1):
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not result_file(root, "ray-resume").exists()
    kept = traces.read_text().count("\n")
    assert 1 <= kept < len(ANSWERS)
    out = finish(start(root, "ray-resume", "--ray", "--ray-workers", "2"))
    assert f"{len(ANSWERS) - kept} queries to score ({kept} already done" in out
    same_numbers(single, result_file(root, "ray-resume"))


JVM_AFTER_RAY = """
import ctypes, os, signal
from benchmark.models.profiles import load_profile
from benchmark.retrieval.bm25 import BM25Retriever
from benchmark.retrieval.chunking import Passage
from benchmark.scoring.ray_shards import RayOptions, RayPool

class DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("base", ctypes.c_void_p), ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]

def segv_handler_library():
    libc = ctypes.CDLL(None)
    buf = ctypes.create_string_buffer(512)
    assert libc.sigaction(signal.SIGSEGV, None, buf) == 0
    address = ctypes.c_void_p.from_buffer(buf).value
    if address in (None, 0, 1):
        return "default" if not address else "ignored"
    info = DlInfo()
    libc.dladdr(ctypes.c_void_p(address), ctypes.byref(info))
    return os.path.basename((info.fname or b"?").decode())

passages = [Passage("a#0", "a", "Tides follow the Moon.", 0), Passage("b#0", "b", "Bees dance to point at flowers.", 0)]
retriever = BM25Retriever(passages)  # the JVM starts in this process
before = segv_handler_library()
pool = RayPool(load_profile(), RayOptions(workers=1))
pool._start()
started = segv_handler_library()
pool.close()
print(before, started, segv_handler_library(), retriever.search(["moon tides"], 1)[0][0].doc_id, flush=True)
"""


def test_a_ray_pool_leaves_the_jvms_fault_handler_in_place(tmp_path: Path) -> None:
    """Ray's driver replaces the process's SIGSEGV handler at ``ray.init`` and resets it to the
    default at ``ray.shutdown``; a JVM in the same process (Lucene search) takes faults on
    purpose and died of the next one, exit 139 with no message, tests after a Ray run.  The
    pool keeps the handler the process had (benchmark/core/signals.py)."""
    env = {**os.environ, "GROUNDCOVER_HOME": str(tmp_path / "home"), "RAY_AUTH_MODE": "disabled"}
    proc = subprocess.run(
        [sys.executable, "-c", JVM_AFTER_RAY],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-4:] == ["libjvm.so", "libjvm.so", "libjvm.so", "a"], proc.stdout
