"""Atomic claims ``AC(y)``: parsing the extractor's output, and the sentence extractor.

The LLM extractor's output (one ``- `` line per claim, or ``NONE``) is parsed strictly: no
claim lines is a failure, never "zero claims".  Short and surplus claims are dropped and
counted; repeats count once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from benchmark.core.text import same_words_key, sentences
from benchmark.judging.decomposition import parse_subclaims as parse_claims
from benchmark.models.prompts import load_prompt

__all__ = ["Claim", "ClaimList", "claim_messages", "parse_claims", "select_claims", "sentence_claims"]


@dataclass(frozen=True)
class Claim:
    claim_id: str
    text: str


@dataclass
class ClaimList:
    """The claims kept, and how many candidates each filter removed."""

    claims: list[Claim] = field(default_factory=list)
    candidates: int = 0
    repeated: int = 0
    too_short: int = 0
    truncated: int = 0

    def counts(self) -> dict[str, int]:
        return {
            "claim_candidates": self.candidates,
            "claims_repeated": self.repeated,
            "claims_too_short": self.too_short,
            "claims_truncated": self.truncated,
        }


def select_claims(
    candidates: Iterable[str], *, min_words: int = 1, max_claims: int | None = None
) -> ClaimList:
    """Number the candidates ``c1 … cN`` after the recorded filters (see module docstring)."""
    out = ClaimList()
    kept: list[str] = []
    seen: set[str] = set()
    for text in candidates:
        out.candidates += 1
        key = same_words_key(text)
        if key in seen:
            out.repeated += 1
        elif len(text.split()) < min_words:
            out.too_short += 1
        else:
            seen.add(key)
            kept.append(text)
    if max_claims is not None and len(kept) > max_claims:
        out.truncated = len(kept) - max_claims
        kept = kept[:max_claims]
    out.claims = [Claim(claim_id=f"c{i}", text=t) for i, t in enumerate(kept, start=1)]
    return out


def sentence_claims(answer: str) -> list[str]:
    """The answer's sentences as claim candidates (the ``sentences`` extractor); never fails."""
    return sentences(answer)


def claim_messages(query: str, answer: str, prompt_ref: str = "claims@1") -> list[dict[str, str]]:
    return load_prompt(prompt_ref).render(query=query, answer=answer)
