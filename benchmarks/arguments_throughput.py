"""Argument-quality judges on this machine: Listwise (15 dimensions in one call) vs pointwise (one call each).

The judges rate the same human arguments (the reference arguments of ``arguana-debates``)
with the offline profile's LLM and the model-call cache disabled (cold); the model is
loaded before the clock starts.  Per judge it prints judge calls per second, calls and
tokens per argument (prompt tokens under the model's tokenizer, repairs included), seconds
per argument, and how many dimensions came back usable — the cost side of ConQRet's case
for Listwise.

    .venv/bin/python benchmarks/arguments_throughput.py [--arguments 4] [--judges listwise,pointwise]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.arguments.formulas import DIMENSIONS
from benchmark.families.base import ScoringInputs
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import DEFAULT_PROFILE, load_profile
from benchmark.tasks import load_task


class Counting:
    """The LLM, counting calls and prompt / reply tokens."""

    def __init__(self, llm: Any) -> None:
        self.llm, self.calls, self.prompt_tokens, self.reply_tokens = llm, 0, 0, 0

    def generate(self, requests: Sequence[Any], **kw: Any) -> list[str]:
        replies = self.llm.generate(requests, **kw)
        self.calls += len(requests)
        for messages, reply in zip(requests, replies, strict=True):
            self.prompt_tokens += sum(self.llm.count_tokens(m["content"]) for m in messages)
            self.reply_tokens += self.llm.count_tokens(reply)
        return replies


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--arguments", type=int, default=4)
    parser.add_argument("--judges", default="listwise,pointwise")
    parser.add_argument("--judge-profile", default=DEFAULT_PROFILE)
    args = parser.parse_args()
    task = load_task("arguana-debates")
    refs = task.table("reference_arguments").head(args.arguments)
    items = [(r.query_id, "", r.text) for r in refs.itertuples()]
    stack = JudgeStack.load(load_profile(args.judge_profile), ModelCallCache(enabled=False), progress=False)
    stack.llm.generate([[{"role": "user", "content": "Hello"}]], max_new_tokens=1)  # load before timing
    fam = REGISTRY["arguments"]
    rows = []
    for judge in args.judges.split(","):
        settings = fam.settings_model(quality_judge=judge, context_judges="none", joint_judges="none")
        counting = Counting(stack.llm)
        prepared = family_base.prepare(
            fam, task, dataclasses.replace(stack, llm=counting), ScoringInputs(), settings
        )
        t0 = time.perf_counter()
        traces = family_base.score_batch(fam, prepared, items)
        secs = time.perf_counter() - t0
        usable = sum(t.scores.get(d) is not None for t in traces for d in DIMENSIONS)
        n = len(items)
        rows.append(
            [
                judge,
                n,
                f"{counting.calls / secs:.2f}",
                f"{counting.calls / n:.1f}",
                f"{counting.prompt_tokens / n:.0f}",
                f"{counting.reply_tokens / n:.0f}",
                f"{secs / n:.1f}",
                f"{usable}/{n * len(DIMENSIONS)}",
            ]
        )
    print(
        tabulate(
            rows,
            headers=[
                "judge",
                "arguments",
                "calls/s",
                "calls/arg",
                "prompt tok/arg",
                "reply tok/arg",
                "s/arg",
                "dimensions usable",
            ],
        )
    )


if __name__ == "__main__":
    main()
