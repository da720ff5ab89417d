"""Citation support judges: the profile's entailment judge with the cited passages as premise
(full or none: no partial level), or the judge LLM (``prompts/citation-support-v1.yaml``:
full / partial / none, parsed strictly); batched, an unusable reply a failure, never "none".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmark.families.attribution.formulas import LEVELS
from benchmark.generation.rag import render_passages
from benchmark.judging.support import FAILED, EntailmentJudge
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

PROMPT = "citation-support@1"


@dataclass
class Verdict:
    """One judgement of cited passages against a sentence."""

    level: str | None  # full / partial / none; None: the judgement failed
    support: float | None = None
    error: str | None = None
    raw: list[str] = field(default_factory=list)


#: (the cited passages' texts, the sentence)
Request = tuple[Sequence[str], str]


class SupportJudge(Protocol):
    partial_level: bool

    @property
    def identity(self) -> dict[str, Any]: ...

    def judge(self, requests: Sequence[Request]) -> list[Verdict]: ...


class EntailmentSupport(EntailmentJudge):
    """The cited passages, joined, as one premise: ``full`` or ``none``."""

    def judge(self, requests: Sequence[Request]) -> list[Verdict]:
        found = self.supports([(["\n\n".join(passages)], sentence) for passages, sentence in requests])
        return [
            Verdict(None, error=FAILED)
            if s.score is None
            else Verdict("full" if s.supported else "none", s.score)
            for s in found
        ]


def parse_level(text: str) -> str:
    """``full`` / ``partial`` / ``none`` from a one-word reply; ``ValueError`` otherwise."""
    word = text.strip().strip(".\"'*").lower()
    if word not in LEVELS:
        raise ValueError(f"reply with one word: full, partial or none (not {text.strip()[:40]!r})")
    return word


class LLMSupport:
    partial_level = True

    def __init__(self, llm: LLM, max_retries: int = 2) -> None:
        self.llm = llm
        self.max_retries = max_retries
        self.prompt = load_prompt(PROMPT)

    @property
    def identity(self) -> dict[str, Any]:
        return {"judge": "llm", "llm": self.llm.identity, "prompt": PROMPT}

    def judge(self, requests: Sequence[Request]) -> list[Verdict]:
        if not requests:
            return []
        messages = [self.prompt.render(passages=render_passages(p), sentence=s) for p, s in requests]
        outcomes = run_structured(
            self.llm,
            messages,
            parse_level,
            max_retries=self.max_retries,
            max_new_tokens=self.prompt.meta.get("max_new_tokens"),
        )
        return [
            Verdict(o.value) if o.ok else Verdict(None, error=o.error or "no reply", raw=list(o.raw))
            for o in outcomes
        ]
