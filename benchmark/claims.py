"""Atomic claim extraction ``AC(y)``.

An LLM rewrites an answer as self-contained single-fact sentences (prompt
``claims@1``).  The output format is one claim per line starting with ``- `` — a
format small models produce reliably, and one that can be parsed *strictly*: output
with no claim lines and no explicit ``NONE`` is a parse failure, which the judge
retries with a repair instruction and finally records as a failure.  It is never
read as "zero claims", because that would score the answer as if it said nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchmark.prompts import load_prompt

_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(?P<text>.+?)\s*$")
MIN_WORDS = 3
MAX_CLAIMS = 64


@dataclass(frozen=True)
class Claim:
    claim_id: str
    text: str


def parse_claims(text: str) -> list[str]:
    """Claims from the model's reply; raises ``ValueError`` when nothing usable is there.

    Bulleted or numbered lines are claims; a bare ``NONE`` means the answer states no
    facts.  Duplicates are dropped (keeping order) and fragments shorter than
    ``MIN_WORDS`` words are ignored, since they cannot be verified on their own.
    """
    stripped = text.strip()
    if re.fullmatch(r"[\W_]*none[\W_]*", stripped, flags=re.IGNORECASE):
        return []
    claims: list[str] = []
    seen: set[str] = set()
    for line in stripped.splitlines():
        m = _BULLET.match(line)
        if not m:
            continue
        claim = m.group("text").strip().strip('"').strip()
        if len(claim.split()) < MIN_WORDS:
            continue
        key = claim.lower()
        if key not in seen:
            seen.add(key)
            claims.append(claim)
    if not claims:
        raise ValueError("no claims found: write each fact on its own line starting with '- ', or NONE")
    return claims[:MAX_CLAIMS]


def claim_messages(query: str, answer: str, prompt_ref: str = "claims@1") -> list[dict[str, str]]:
    return load_prompt(prompt_ref).render(query=query, answer=answer)


def number_claims(texts: list[str]) -> list[Claim]:
    return [Claim(claim_id=f"c{i}", text=t) for i, t in enumerate(texts, start=1)]
