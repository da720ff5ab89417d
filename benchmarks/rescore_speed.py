"""Cold against warm scoring in one process, and where a cold run's time goes; prints tables.

One process loads the offline profile's judge stack once, scores the answers with an
empty model-call cache (cold), then scores them again into another results folder with
the cache now full (warm: every model call a hit).  Start-up (imports, the stack) is
outside both; each row is the runner's own ``total`` for the answers (``prepare`` opens
the indexes, built beforehand by a warm-up outside the timing).  The second table splits
the cold run: seconds inside model calls per pipeline stage and kind of call (searches
included: they are cached like model calls; counted once where one model calls another), and
everything else — parsing, checkpoints, aggregation.

Usage::

    python benchmarks/rescore_speed.py                    # ICAT-M/S/A, 3 answers
    python benchmarks/rescore_speed.py --variants m --answers 12
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=3)
    ap.add_argument("--variants", default="m,s,a")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        os.environ["GROUNDCOVER_HOME"] = str(tmp / "home")
        os.environ["GROUNDCOVER_CACHE"] = str(tmp / "calls.sqlite")
        from icat_throughput import _write_reference_answers

        from benchmark.core.results import ModelInfo
        from benchmark.families import REGISTRY
        from benchmark.judging.stack import JudgeStack
        from benchmark.models.cache import ModelCallCache
        from benchmark.models.profiles import load_profile
        from benchmark.scoring import run
        from benchmark.scoring.runner import RunOptions
        from benchmark.tasks import load_task

        task = load_task("webtrack-2009-2012")
        answers_file = tmp / "answers.jsonl"
        _write_reference_answers(answers_file, args.answers)
        import json

        answers = {r["query_id"]: r["answer"] for r in map(json.loads, answers_file.read_text().splitlines())}
        family = REGISTRY["icat"]
        settings = family.settings_model(variants=tuple(args.variants.split(",")))
        model = ModelInfo(id="reference-answers", revision="none")
        profile = load_profile("offline-smollm2-minilm-sim")
        options = RunOptions(progress=False)

        def score(judges: JudgeStack, folder: str) -> dict[str, float]:
            [(result, _)] = run.score_jobs(
                [run.Job(task, answers, model, None, [(family, settings)])],
                judges,
                results_root=tmp / folder,
                options=options,
            )
            return result.run.durations_s

        # the indexes, built outside the timing, with a cache of their own
        score(JudgeStack.load(profile, ModelCallCache(tmp / "warm-up.sqlite"), progress=False), "warm-up")
        judges = JudgeStack.load(profile, progress=False)
        cold = score(judges, "cold")
        split = {k: v[2] for k, v in judges.cache.stats.by_stage.items() if v[2] > 0}
        warm = score(judges, "warm")
    n = len(answers)
    print(f"ICAT ({args.variants}), offline profile, {n} answers, one process, {os.cpu_count()} CPUs")
    print(f"{'run':<6} {'total s':>8} {'s/answer':>9}")
    for label, d in (("cold", cold), ("warm", warm)):
        print(f"{label:<6} {d['total']:>8.2f} {d['total'] / n:>9.3f}")
    print(f"warm is {cold['total'] / warm['total']:.0f}x faster than cold\n")
    inside = sum(split.values())
    print(f"{'where the cold run went (stage · calls)':<44} {'seconds':>8} {'share':>7}")
    for key, sec in sorted(split.items(), key=lambda kv: -kv[1]):
        stage, namespace = key.rsplit("/", 1)
        print(f"{stage + ' · ' + namespace:<44} {sec:>8.2f} {sec / cold['total']:>7.1%}")
    rest = cold["total"] - inside
    print(f"{'outside model calls':<44} {rest:>8.2f} {rest / cold['total']:>7.1%}")
    print(f"{'  of which prepare (indexes)':<44} {cold['prepare']:>8.2f}")
    print(f"{'  of which aggregate':<44} {cold['aggregate']:>8.2f}")


if __name__ == "__main__":
    main()
