"""A pairwise LLM judge (prompt ``pairwise-answer``): each pair asked in both orders, since LLM
judges favour a position; the system scores the mean of the two verdicts (1, ½, 0), so a judge
that follows position scores ½.  An unusable reply fails the query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

PROMPT = "pairwise-answer@1"


def parse_better(text: str) -> int:
    """``Better: 1`` -> 1, ``Better: 2`` -> 2, ``Better: tie`` -> 0."""
    m = re.search(r"better\s*:\s*(1|2|tie)\b", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError('reply "Better: 1", "Better: 2" or "Better: tie"')
    return 0 if m.group(1).lower() == "tie" else int(m.group(1))


@dataclass
class PairVerdict:
    system_first: int | None  # the reply when the system's answer was shown first
    system_second: int | None  # ... and when it was shown second
    errors: list[str] = field(default_factory=list)
    raw: list[list[str]] = field(default_factory=list)  # every reply, per order

    @property
    def system_score(self) -> float | None:
        if self.system_first is None or self.system_second is None:
            return None
        votes = [{1: 1.0, 2: 0.0, 0: 0.5}[self.system_first], {1: 0.0, 2: 1.0, 0: 0.5}[self.system_second]]
        return sum(votes) / 2

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "system_score": self.system_score}


def judge_pairs(
    llm: LLM, items: Sequence[tuple[str, str, str]], *, seed: int = 0, max_retries: int = 2
) -> list[PairVerdict]:
    """``(query, baseline answer, system answer)`` items, every call in one batch."""
    prompt = load_prompt(PROMPT)
    messages = []
    for query, base, mine in items:
        messages.append(prompt.render(query=query, first=mine, second=base))
        messages.append(prompt.render(query=query, first=base, second=mine))
    outs = run_structured(
        llm, messages, parse_better, max_retries=max_retries, seed=seed,
        max_new_tokens=int(prompt.meta.get("max_new_tokens", 8)),
    )  # fmt: skip
    return [
        PairVerdict(
            first.value if first.ok else None,
            second.value if second.ok else None,
            [o.error for o in (first, second) if not o.ok and o.error],
            [first.raw, second.raw],
        )
        for first, second in zip(outs[::2], outs[1::2], strict=True)
    ]
