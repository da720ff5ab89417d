"""Atomic claim extraction ``AC(y)``.

Two extractors, chosen by the judge profile's ``claim_extractor``:

* ``llm`` (the paper's): an LLM rewrites an answer as self-contained single-fact
  sentences (prompt ``claims@1``).
* ``sentences`` (the offline substitute): each sentence of the answer, split by
  pysbd, is one claim.  A 135M-parameter model cannot do the paper's rewrite — given
  the prompt it copies the worked example or echoes the answer back — so the offline
  profile does not pretend to: its claims are the answer's own sentences, not
  decontextualised and not atomic, and the profile says so in its limitations.

For the LLM extractor, the output format is one claim per line starting with ``- `` — a
format small models produce reliably, and one that can be parsed *strictly*: output
with no claim lines and no explicit ``NONE`` is a parse failure, which the judge
retries with a repair instruction and finally records as a failure.  It is never
read as "zero claims", because that would score the answer as if it said nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from benchmark.prompts import load_prompt

_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+(?P<text>.+?)\s*$")
MIN_WORDS = 3
MAX_CLAIMS = 64


@dataclass(frozen=True)
class Claim:
    claim_id: str
    text: str


def _verifiable(candidates: Iterable[str]) -> list[str]:
    """Candidates that can be checked as claims, in order: fragments under ``MIN_WORDS``
    words and repeats are dropped and at most ``MAX_CLAIMS`` kept, so that neither
    extractor lets an answer raise its score by repeating itself."""
    claims: list[str] = []
    seen: set[str] = set()
    for claim in candidates:
        key = claim.lower()
        if len(claim.split()) >= MIN_WORDS and key not in seen:
            seen.add(key)
            claims.append(claim)
    return claims[:MAX_CLAIMS]


def parse_claims(text: str) -> list[str]:
    """Claims from the model's reply; raises ``ValueError`` when nothing usable is there.

    Bulleted or numbered lines are claims; a bare ``NONE`` means the answer states no
    facts.  Duplicates are dropped (keeping order) and fragments shorter than
    ``MIN_WORDS`` words are ignored, since they cannot be verified on their own.
    """
    stripped = text.strip()
    if re.fullmatch(r"[\W_]*none[\W_]*", stripped, flags=re.IGNORECASE):
        return []
    bullets = (_BULLET.match(line) for line in stripped.splitlines())
    claims = _verifiable(m.group("text").strip().strip('"').strip() for m in bullets if m)
    if not claims:
        raise ValueError("no claims found: write each fact on its own line starting with '- ', or NONE")
    return claims


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def sentence_claims(answer: str) -> list[str]:
    """The answer's sentences as claims (the ``sentences`` extractor); never fails.

    Line breaks separate sentences too (headings, list items), and the same filters as
    for LLM claims apply (:func:`_verifiable`).
    """
    sentences: list[str] = []
    for line in answer.splitlines():
        m = _BULLET.match(line)
        block = m.group("text") if m else line.strip()
        if block:
            sentences.extend(sentence.strip() for sentence in _segmenter().segment(block))
    return _verifiable(sentences)


def claim_messages(query: str, answer: str, prompt_ref: str = "claims@1") -> list[dict[str, str]]:
    return load_prompt(prompt_ref).render(query=query, answer=answer)


def number_claims(texts: list[str]) -> list[Claim]:
    return [Claim(claim_id=f"c{i}", text=t) for i, t in enumerate(texts, start=1)]
