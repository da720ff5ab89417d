"""CPU seconds per judged answer, per Web Track family and in total, with and without the
run's shared embedding store; prints a table and the machine's load.

The quickstart's answers (the published submissions of SmolLM2 closed-book and with BM25
RAG) are scored by the five Web Track families in one process per mode, as ``benchmark
score`` does: one judge stack, the families one after the other.  Each mode starts cold —
a fresh ``$GROUNDCOVER_HOME`` (so the indexes are built again: counted under ``prepare``,
once per mode) and an empty model-call cache — and the two modes differ only in
``JudgeStack.load(share_embeddings=...)``:

* ``before`` — no shared store: each family's texts go to the model-call cache (SQLite
  lookups and decodes for what another family embedded already), as before the store;
* ``after`` — every query-side vector is computed or read once per run and handed from
  memory to every family (:class:`benchmark.models.embeddings.EmbeddingStore`).

A mode runs in a child process of its own (``--mode``), so that the models it loads and
the CPU it spends are its own; its CPU seconds (user + sys, from ``time.process_time`` around
each family) are what the table reports — on a shared, loaded machine wall seconds say more
about the neighbours than about the code, so both are printed with the load average.

Usage::

    python benchmarks/answer_cpu.py                      # both modes, ICAT-M and the four others
    python benchmarks/answer_cpu.py --icat-variants m,s,a # ICAT's LLM variants too (slow on CPU)
    python benchmarks/answer_cpu.py --profile offline-smollm2-minilm-int8-sim
    python benchmarks/answer_cpu.py --modes before --where  # where the CPU goes (cProfile)

``--where`` runs each mode under :mod:`cProfile` on a CPU clock (``time.process_time``: every
thread's CPU, torch's intra-op threads included) and prints the CPU by kind of work — the
bound a per-answer target meets.  Profiling slows Python-heavy code more than native calls,
so the split is read as shares, and the unprofiled mode's seconds are the ones to quote.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = ("HuggingFaceTB__SmolLM2-135M-Instruct", "HuggingFaceTB__SmolLM2-135M-Instruct__rag-bm25-k5")
FAMILIES = ("icat", "subq", "nuggets", "attribution", "exam")


def run_mode(share: bool, profile_name: str, icat_variants: str, max_answers: int | None) -> dict:
    """Score the quickstart's answers cold in this process; CPU and wall seconds per family."""
    from benchmark.api.answers import submission_jobs
    from benchmark.board.submissions import validate_submission
    from benchmark.core.results import read_result
    from benchmark.families import REGISTRY
    from benchmark.judging.stack import JudgeStack
    from benchmark.models.profiles import load_profile
    from benchmark.scoring import run
    from benchmark.scoring.options import RunOptions

    t_cpu, t_wall = time.process_time(), time.perf_counter()
    jobs = [
        run.Job(job.task, dict(list(job.answers.items())[:max_answers]), job.model, job.evidence)
        for name in SUBMISSIONS
        for job in submission_jobs(validate_submission(REPO / "submissions" / name))
    ]
    judges = JudgeStack.load(load_profile(profile_name), progress=False, share_embeddings=share)
    rows: dict[str, dict[str, float]] = {"load": _since(t_cpu, t_wall)}
    answers: dict[str, int] = {}
    out = Path(os.environ["GROUNDCOVER_HOME"]) / "results"
    for fid in FAMILIES:
        family = REGISTRY[fid]
        settings = (
            family.settings_model(variants=tuple(icat_variants.split(",")))
            if fid == "icat"
            else family.settings_model()
        )
        t_cpu, t_wall = time.process_time(), time.perf_counter()
        done = run.score_jobs(
            [run.Job(j.task, j.answers, j.model, j.evidence, [(family, settings)]) for j in jobs],
            judges,
            results_root=out,
            options=RunOptions(progress=False),
        )
        rows[fid] = _since(t_cpu, t_wall)
        answers[fid] = sum(len(r.per_query) for r, _ in done)
    scores = {
        f"{r.model.setting}/{r.metric_family}": {
            k: round(v, 6) for k, v in r.scores.items() if isinstance(v, float)
        }
        for p in sorted(out.rglob("*.json"))
        for r in [read_result(p)]
    }
    store = judges.embeddings
    return {
        "rows": rows,
        "answers": answers,
        "scores": scores,
        "store": None
        if store is None
        else {"vectors": len(store), "hits": store.hits, "misses": store.misses},
        "cache": judges.cache.stats.as_dict()["by_namespace"],
    }


#: kinds of work, matched in order against "file:function" of each profiled function
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "torch forward (MiniLM)",
        (
            "torch/nn/",
            "torch._c._nn",
            "torch.nn.functional",
            "built-in method torch.",
            "scaled_dot_product",
            "'torch._c",
        ),
    ),
    ("tokenisation", ("tokenization_utils", "tokenizer")),
    (
        "model and library loading",
        (
            "importlib",
            "safetensors",
            "from_pretrained",
            "gguf",
            "marshal",
            "load_dynamic",
        ),
    ),
    ("sentence splitting (pysbd)", ("pysbd",)),
    ("Lucene: JVM and index build", ("jnius", "lucene.py", "subprocess.py", "selectors.py")),
    ("faiss", ("faiss",)),
    (
        "model-call cache (SQLite, JSON, hashing)",
        ("sqlite3", "cache.py", "json/", "hashlib", "canonical_json", "base64"),
    ),
    ("numpy", ("numpy",)),
    ("pydantic / results / traces", ("pydantic", "results.py", "trace")),
)


def where(stats_file: Path, top: int = 12) -> dict[str, dict[str, float]]:
    """CPU seconds by kind of work (own time of each function, so nothing counts twice), and
    the ``top`` functions by own time."""
    import pstats

    st = pstats.Stats(str(stats_file))
    kinds: dict[str, float] = {}
    funcs: dict[str, float] = {}
    for (filename, line, func), (_cc, _nc, tottime, _ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
        key = f"{filename}:{func}".lower()
        kind = next((k for k, pats in KINDS if any(p in key for p in pats)), "other Python")
        kinds[kind] = kinds.get(kind, 0.0) + tottime
        short = "/".join(Path(filename).parts[-2:]) if filename != "~" else ""
        funcs[f"{short}:{line} {func}" if short else func] = tottime
    return {
        "kinds": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
        "functions": dict(sorted(funcs.items(), key=lambda kv: -kv[1])[:top]),
    }


def _since(cpu: float, wall: float) -> dict[str, float]:
    return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


def child(mode: str, args: argparse.Namespace) -> dict:
    """One mode in a fresh process with a fresh home and an empty model-call cache."""
    with tempfile.TemporaryDirectory() as name:
        env = {
            **os.environ,
            "GROUNDCOVER_HOME": str(Path(name) / "home"),
            "GROUNDCOVER_CACHE": str(Path(name) / "calls.sqlite"),
            "PYTHONPATH": str(REPO),
        }
        argv = [sys.executable, __file__, "--mode", mode, "--profile", args.profile]
        argv += ["--icat-variants", args.icat_variants, "--json", str(Path(name) / "out.json")]
        if args.max_answers:
            argv += ["--max-answers", str(args.max_answers)]
        if args.where:
            argv += ["--prof", str(Path(name) / "cpu.prof")]
        subprocess.run(argv, env=env, check=True)
        out = json.loads((Path(name) / "out.json").read_text())
        if args.where:
            out["where"] = where(Path(name) / "cpu.prof")
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="offline-smollm2-minilm-sim")
    ap.add_argument("--icat-variants", default="m")
    ap.add_argument("--max-answers", type=int, help="the first N answers of each submission")
    ap.add_argument("--mode", choices=["before", "after"], help=argparse.SUPPRESS)
    ap.add_argument("--modes", default="before,after")
    ap.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--prof", type=Path, help=argparse.SUPPRESS)
    ap.add_argument(
        "--where", action="store_true", help="cProfile each mode on a CPU clock: CPU by kind of work"
    )
    args = ap.parse_args()
    if args.mode:
        profiler = cProfile.Profile(time.process_time) if args.prof else None
        if profiler is not None:
            profiler.enable()
        r = run_mode(args.mode == "after", args.profile, args.icat_variants, args.max_answers)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(args.prof))
        args.json.write_text(json.dumps(r))
        return
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = {m: child(m, args) for m in args.modes.split(",")}
    modes = list(results)
    print(f"\nprofile {args.profile}, ICAT variants {args.icat_variants}, cold cache, fresh home\n")
    print("| family | answers | " + " | ".join(f"{m} CPU s/answer | {m} wall s" for m in modes) + " |")
    print("|---|---|" + "---|---|" * len(modes))
    for fid in ("load", *FAMILIES):
        n = results[modes[0]]["answers"].get(fid, 0)
        cells = []
        for m in modes:
            row = results[m]["rows"][fid]
            cells.append(f"{row['cpu'] / n:.3f}" if n else f"{row['cpu']:.1f} (whole)")
            cells.append(f"{row['wall']:.1f}")
        print(f"| {fid} | {n or ''} | " + " | ".join(cells) + " |")
    n_total = sum(results[modes[0]]["answers"].values())
    cells = []
    for m in modes:
        cpu = sum(v["cpu"] for k, v in results[m]["rows"].items() if k != "load")
        wall = sum(v["wall"] for k, v in results[m]["rows"].items() if k != "load")
        cells += [f"{cpu / n_total:.3f}", f"{wall:.1f}"]
    print(f"| **five families** | {n_total} | " + " | ".join(cells) + " |")
    if len(modes) == 2:
        a, b = (sum(v["cpu"] for k, v in results[m]["rows"].items() if k != "load") for m in modes)
        print(f"\n{modes[1]} / {modes[0]} CPU: {b / a:.2f}")
        same = results[modes[0]]["scores"] == results[modes[1]]["scores"]
        print(f"every score equal in both modes: {same}")
    for m in modes:
        print(f"{m}: store {results[m]['store']}, embed calls {results[m]['cache'].get('embed')}")
    for m in modes:
        if "where" in results[m]:
            kinds, funcs = results[m]["where"]["kinds"], results[m]["where"]["functions"]
            total = sum(kinds.values())
            print(f"\n{m}: where the CPU goes (cProfile, {total:.1f} CPU s profiled, own time)\n")
            print("| kind of work | CPU s | share |\n|---|---|---|")
            for kind, sec in kinds.items():
                print(f"| {kind} | {sec:.1f} | {sec / total:.0%} |")
            print("\n| function (own time) | CPU s |\n|---|---|")
            for func, sec in funcs.items():
                print(f"| `{func}` | {sec:.1f} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
