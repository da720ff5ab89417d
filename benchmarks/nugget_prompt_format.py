"""Does the offline judge still follow the nugget-assignment format without v1's worked example?

Why: ``nugget-assign@1`` carries a worked example turn, which made one judged answer cost
592 prompt tokens against nuggetizer's 505 (docs/measurements.md, peer table).  Dropping it
is only worth it if the small offline judge (SmolLM2-135M-Instruct, the offline profile's
LLM, run locally) still writes parseable ``<number>: <label>`` lines — small models copy a
format from an example more reliably than from a description.  This script sends each
prompt version's real requests (:meth:`LLMAssigner.requests`, the parser and the repair
turns of :func:`run_structured`) for the quickstart's nugget workload — the published
SmolLM2 closed-book and BM25 RAG answers on ``webtrack-2009-2012``, 24 answers — with the
model-call cache off, and prints per version:

* prompt tokens per answer (SmolLM2's tokenizer, chat template applied: the dry run's count);
* the share of requests whose first reply parsed, the share parsed after repairs, failures;
* labels' agreement with the first version's (exact label, and supported-at-all), over the
  nuggets both versions labelled.

Run from the repository root:
``PYTHONPATH=$PWD .venv/bin/python benchmarks/nugget_prompt_format.py [--prompts nugget-assign@1,nugget-assign@2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from peer_cost import workload  # noqa: E402


def measure(prompt: str, items: list[tuple[str, str, list[str]]], max_answers: int) -> dict[str, Any]:
    """One prompt version's requests, replies and labels on ``items``, on a fresh local judge."""
    from benchmark.families.nuggets.judges import LLMAssigner
    from benchmark.models.backends import load_llm
    from benchmark.models.cache import ModelCallCache
    from benchmark.models.profiles import load_profile
    from benchmark.models.structured import run_structured
    from benchmark.scoring.dry_run import TokenCounter

    llm = load_llm(load_profile().llm, cache=ModelCallCache(enabled=False))
    assigner = LLMAssigner(llm, prompt=prompt)
    items = items[:max_answers]
    requests, parsers, owners = assigner.requests(items)
    count = TokenCounter(llm)
    t0 = time.perf_counter()
    outcomes = run_structured(
        llm,
        requests,
        parsers,
        max_retries=assigner.max_retries,
        max_new_tokens=assigner.prompt.meta.get("max_new_tokens"),
    )
    seconds = time.perf_counter() - t0
    labels: list[list[str | None]] = [[] for _ in items]
    for (i, size), o in zip(owners, outcomes, strict=True):
        labels[i] += list(o.value) if o.ok and o.value else [None] * size
    return {
        "prompt": prompt,
        "answers": len(items),
        "requests": len(requests),
        "prompt_tokens_per_answer": sum(count(r) for r in requests) / len(items),
        "first_try": sum(o.ok and o.attempts == 1 for o in outcomes),
        "parsed": sum(o.ok for o in outcomes),
        "failed": sum(not o.ok for o in outcomes),
        "calls": sum(o.attempts for o in outcomes),
        "seconds": round(seconds, 1),
        "labels": labels,
        "errors": [o.error for o in outcomes if not o.ok],
        "first_replies": [o.raw[0] if o.raw else None for o in outcomes[:3]],
    }


def agreement(a: list[list[str | None]], b: list[list[str | None]]) -> tuple[int, float, float]:
    """Over nuggets both labelled: how many, the share with the same label, and the share on
    which they agree whether the nugget is supported at all (support or partial_support)."""
    # over the answers both measured (a version may have been run on a shorter sample)
    pairs = [(x, y) for xs, ys in zip(a, b, strict=False) for x, y in zip(xs, ys, strict=True) if x and y]
    if not pairs:
        return 0, float("nan"), float("nan")
    same = sum(x == y for x, y in pairs) / len(pairs)
    some = sum((x != "not_support") == (y != "not_support") for x, y in pairs) / len(pairs)
    return len(pairs), same, some


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", default="nugget-assign@1,nugget-assign@2")
    parser.add_argument("--max-answers", type=int, default=24)
    parser.add_argument(
        "--out-dir",
        type=Path,
        help="write each version's measurement here (<prompt>.json) as soon as it is done; "
        "with --table, read them from here instead of measuring (so versions can run apart)",
    )
    parser.add_argument("--table", action="store_true", help="print the table of the versions in --out-dir")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (1: no spinning on a busy machine)"
    )
    args = parser.parse_args()

    prompts = args.prompts.split(",")
    if args.table:
        rows = [json.loads((args.out_dir / f"{p}.json").read_text()) for p in prompts]
    else:
        import torch

        torch.set_num_threads(args.threads)
        # a fixed sample: the closed-book and the RAG answer of each topic in turn, so that
        # --max-answers 20 holds both runs' answers on 10 topics
        work = [w for w in workload() if w["nuggets"]]
        runs = sorted({w["id"].split("/")[0] for w in work})
        per_run = [[w for w in work if w["id"].startswith(f"{r}/")] for r in runs]
        work = [w for group in zip(*per_run, strict=False) for w in group]
        items = [(w["query"], w["answer"], [n["text"] for n in w["nuggets"]]) for w in work]
        rows = []
        for p in prompts:
            load = os.getloadavg()[0]
            rows.append({**measure(p, items, args.max_answers), "load_before": load})
            if args.out_dir:
                args.out_dir.mkdir(parents=True, exist_ok=True)
                (args.out_dir / f"{p}.json").write_text(json.dumps(rows[-1], indent=2) + "\n")
            print(f"{p}: done in {rows[-1]['seconds']} s", flush=True)
    print_table(rows)
    return 0


def print_table(rows: list[dict[str, Any]]) -> None:
    base = rows[0]
    loads = ", ".join(f"{r['load_before']:.1f}" for r in rows)
    print(
        f"answers: {base['answers']}; requests per version: {base['requests']}; load average before: {loads}"
    )
    head = "| prompt | prompt tokens / answer | first reply parsed | parsed after repairs | failed | calls | seconds "
    head += f"| same label as {base['prompt']} | same supported-or-not |"
    print(head)
    print("|" + "---|" * 9)
    for r in rows:
        n, same, some = agreement(base["labels"], r["labels"])
        share = r["requests"] or 1
        print(
            f"| {r['prompt']} | {r['prompt_tokens_per_answer']:.1f} | {r['first_try']}/{r['requests']} "
            f"({r['first_try'] / share:.0%}) | {r['parsed']}/{r['requests']} ({r['parsed'] / share:.0%}) "
            f"| {r['failed']} | {r['calls']} | {r['seconds']} | {same:.1%} of {n} | {some:.1%} |"
        )
    for r in rows:
        print(f"\n{r['prompt']}: first replies: {r['first_replies']}; errors: {r['errors'][:3]}")


if __name__ == "__main__":
    raise SystemExit(main())
