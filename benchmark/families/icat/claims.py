"""Atomic claims ``AC(y)``: parsing the extractor's output, and the sentence extractor.

The extractor is chosen by name in the judge profile's ``claims.extractor``:

* ``llm`` (the paper's): an LLM rewrites an answer as self-contained single-fact
  sentences (prompt ``claims@1``).
* any decomposition method of :mod:`benchmark.judging.decomposition` (``factscore``, ``wice``,
  ``chen``, ``russellian``, ``dependency``), applied sentence by sentence: the claims
  are the subclaims of all the answer's sentences.
* ``sentences`` (the offline substitute): each sentence of the answer, split by
  pysbd (:mod:`benchmark.core.text`), is one claim.  A 135M-parameter model cannot do the
  paper's rewrite — given the prompt it copies the worked example or echoes the answer
  back — so the offline profile does not pretend to: its claims are the answer's own
  sentences, not decontextualised and not atomic, and the profile says so.

For the LLM extractor, the output format is one claim per line starting with ``- `` — a
format small models produce reliably, and one that can be parsed *strictly*: output
with no claim lines and no explicit ``NONE`` is a parse failure, which the judge
retries with a repair instruction and finally records as a failure.  It is never
read as "zero claims", because that would score the answer as if it said nothing.

``S_fact`` is over *all* claims of the answer.  Two profile settings may shorten the
list, and both are recorded, per query, in the trace and summed in the result: claims
under ``min_words`` words (fragments such as "Yes." that state nothing checkable) and
claims beyond ``max_claims`` (a cost cap; ``null`` means none).  Repeated claims count
once, so an answer cannot raise its score by repeating itself.
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
