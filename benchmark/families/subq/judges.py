"""Coverage judges: does a text (an answer, or its retrieved chunks) address a sub-question?
The profile's embedder (cosine of the closest sentence window: topical address, not
correctness) or the judge LLM (``prompts/subq-coverage-v1.yaml``), batched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from benchmark.judging.similarity import closest_windows
from benchmark.models.entailment import sentence_windows
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

PROMPT = "subq-coverage@1"


@dataclass
class Mark:
    covered: bool | None
    support: float | None = None
    evidence: str | None = None
    error: str | None = None
    raw: list[str] = field(default_factory=list)


Item = tuple[Sequence[str], Sequence[str]]  # (the text's parts, the sub-questions)


class CoverageJudge(Protocol):
    @property
    def identity(self) -> dict[str, Any]: ...

    def judge(self, items: Sequence[Item]) -> list[list[Mark]]: ...


class SimilarityCoverage:
    def __init__(self, embedder: Any, threshold: float) -> None:
        self.embedder = embedder
        self.threshold = threshold

    @property
    def identity(self) -> dict[str, Any]:
        return {"judge": "similarity", "embedder": self.embedder.identity, "threshold": self.threshold}

    def judge(self, items: Sequence[Item]) -> list[list[Mark]]:
        asked = [([w for part in parts for w in sentence_windows(part)], qs) for parts, qs in items]
        return [
            [Mark(s >= self.threshold, round(s, 4), w if s >= self.threshold else None) for s, w in best]
            for best in closest_windows(self.embedder, asked)
        ]


def parse_covered(text: str, n: int) -> set[int]:
    """``Answered: 1, 3`` -> {0, 2}; ``Answered: none`` -> set(); ``ValueError`` otherwise."""
    m = re.search(r"answered\s*:\s*(.*)", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError('reply "Answered: " followed by the numbers of the answered questions, or "none"')
    body = m.group(1).strip().strip(".")
    if body.lower() in ("none", "no", "-", ""):
        return set()
    parts = [p for p in re.split(r"[,\s]+", body) if p]
    if not all(p.isdigit() for p in parts):
        raise ValueError("list only question numbers, separated by commas")
    nums = {int(p) for p in parts}
    bad = sorted(x for x in nums if not 1 <= x <= n)
    if bad:
        raise ValueError(f"there is no question {bad[0]}: the questions are numbered 1 to {n}")
    return {x - 1 for x in nums}


class LLMCoverage:
    def __init__(self, llm: LLM, max_retries: int = 2, max_words: int = 1200) -> None:
        self.llm = llm
        self.max_retries = max_retries
        self.max_words = max_words

    @property
    def identity(self) -> dict[str, Any]:
        prompt = load_prompt(PROMPT)
        return {
            "judge": "llm",
            "llm": getattr(self.llm, "identity", "?"),
            "prompt": f"{prompt.id}:{prompt.sha256[:12]}",
        }

    def judge(self, items: Sequence[Item]) -> list[list[Mark]]:
        prompt = load_prompt(PROMPT)
        todo = [i for i, (_, qs) in enumerate(items) if qs]
        messages = []
        for i in todo:
            parts, questions = items[i]
            words = " ".join(parts).split()
            messages.append(
                prompt.render(
                    text=" ".join(words[: self.max_words]) or "(empty)",
                    questions="\n".join(f"{k}. {q}" for k, q in enumerate(questions, start=1)),
                )
            )
        outs = run_structured(
            self.llm,
            messages,
            [partial(parse_covered, n=len(items[i][1])) for i in todo],
            max_retries=self.max_retries,
            max_new_tokens=int(prompt.meta.get("max_new_tokens", 32)),
        )
        result: list[list[Mark]] = [[] for _ in items]
        for i, out in zip(todo, outs, strict=True):
            n = len(items[i][1])
            if out.ok:
                result[i] = [Mark(k in out.value, raw=out.raw) for k in range(n)]  # type: ignore[operator]
            else:
                result[i] = [Mark(None, error=f"coverage: {out.error}", raw=out.raw) for _ in range(n)]
        return result
