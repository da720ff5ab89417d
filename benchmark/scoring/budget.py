"""What scoring one submission may cost: the dry run's counts against a budget, so
``benchmark validate --budget`` refuses a submission before CI spends anything on it
(validation bounds each row; the budget bounds the whole).

The defaults, and the published submissions' counts they sit far above: docs/hosted-board.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from benchmark.core.errors import usage_error
from benchmark.models.llm import NAMESPACE as LLM_NAMESPACE
from benchmark.retrieval.cached import CANDIDATES
from benchmark.retrieval.cached import NAMESPACE as RETRIEVE
from benchmark.scoring.dry_run import DryRun


@dataclass(frozen=True)
class Budget:
    """The most one submission's scoring may ask, by kind of request."""

    entailment_pairs: int = 2_000_000
    llm_calls: int = 2_000
    prompt_tokens: int = 5_000_000
    retrieval_queries: int = 50_000
    embeddings: int = 200_000


DEFAULT_BUDGET = Budget()
LABELS = {
    "entailment_pairs": "entailment pairs",
    "llm_calls": "LLM calls",
    "prompt_tokens": "LLM prompt tokens",
    "retrieval_queries": "retrieval queries",
    "embeddings": "embeddings",
}


def parse_budget(text: str, flag: str = "--budget") -> Budget:
    """``entailment_pairs=3000000,llm_calls=500`` over the defaults; empty: the defaults."""
    changes: dict[str, int] = {}
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, _, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if name not in LABELS:
            raise usage_error(f"unknown budget {name!r}; known: {', '.join(LABELS)}", flag)
        try:
            number = int(float(value.replace("_", "")))
        except ValueError:
            number = -1
        if number < 0:
            raise usage_error(f"{name} needs a count, e.g. {name}=1000000", flag)
        changes[name] = number
    return dataclasses.replace(DEFAULT_BUDGET, **changes)


def plan_totals(plan: DryRun) -> dict[str, int]:
    """What a plan asks, in the budget's terms."""
    llm_rows = [r for r in plan.rows if r.namespace == LLM_NAMESPACE]
    return {
        "entailment_pairs": plan.total("entail")[0],
        "llm_calls": plan.total(LLM_NAMESPACE)[0],
        "prompt_tokens": sum(r.prompt_tokens for r in llm_rows),
        "retrieval_queries": plan.total(RETRIEVE)[0] + plan.total(CANDIDATES)[0],
        "embeddings": plan.total("embed")[0],
    }


def over_budget(totals: dict[str, int], budget: Budget) -> list[str]:
    """One sentence per kind the plan asks more of than the budget allows (none: within it)."""
    return [
        f"plans {totals[name]:,} {label}; the budget is {getattr(budget, name):,}"
        for name, label in LABELS.items()
        if totals[name] > getattr(budget, name)
    ]
