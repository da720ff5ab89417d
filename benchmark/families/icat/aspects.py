"""Aspects ``TQ(x)`` and claim–aspect alignment ``TO(c)`` for ICAT-M (aspect-level qrels of a
claim's first supporting passage), ICAT-S (the LLM maps claims to the task's aspects) and
ICAT-A (LLM-generated aspects).  The LLM alignment's reply is parsed strictly, so a malformed
one is retried, then a failure, never "covers nothing".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchmark.core.text import bullet_text
from benchmark.models.prompts import load_prompt

MAX_ASPECTS = 10


@dataclass(frozen=True)
class Aspect:
    aspect_id: str
    text: str


# -- aspects -------------------------------------------------------------------------


def parse_aspects(text: str, max_aspects: int = MAX_ASPECTS) -> list[Aspect]:
    """Generated aspects, most important first, as ``g1 … gN``; ``ValueError`` if none."""
    seen: set[str] = set()
    out: list[str] = []
    for line in text.strip().splitlines():
        bullet = bullet_text(line)
        if bullet is None:
            continue
        aspect = bullet.strip()
        if len(aspect) < 3 or aspect.lower() in seen:
            continue
        seen.add(aspect.lower())
        out.append(aspect)
    if not out:
        raise ValueError("no aspects found: write each aspect on its own line starting with '- '")
    return [Aspect(f"g{i}", a) for i, a in enumerate(out[:max_aspects], start=1)]


def aspect_messages(
    query: str, prompt_ref: str = "aspects@1", max_aspects: int = MAX_ASPECTS
) -> list[dict[str, str]]:
    return load_prompt(prompt_ref).render(query=query, max_aspects=max_aspects)


# -- LLM alignment (ICAT-S / ICAT-A) ------------------------------------------------


def alignment_messages(
    query: str, aspects: Sequence[Aspect], claims: Sequence[str], prompt_ref: str = "alignment@1"
) -> list[dict[str, str]]:
    aspect_lines = "\n".join(f"{i}. {a.text}" for i, a in enumerate(aspects, start=1))
    claim_lines = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, start=1))
    return load_prompt(prompt_ref).render(query=query, aspects=aspect_lines, claims=claim_lines)


def parse_alignment(text: str, n_aspects: int, n_claims: int) -> dict[int, set[int]]:
    """Parse ``{"aspect": a, "claims": [..]}`` lines (1-based numbers; ``NONE``: nothing covered)
    into claim number -> aspect numbers; ``ValueError`` otherwise."""
    body = [ln.strip() for ln in text.strip().splitlines() if ln.strip() and not ln.strip().startswith("```")]
    if len(body) == 1 and re.fullmatch(r"[\W_]*none[\W_]*", body[0], flags=re.IGNORECASE):
        return {}
    if not body:
        raise ValueError("empty reply: write one JSON line per covered aspect, or NONE")
    mapping: dict[int, set[int]] = {}
    for ln in body:
        try:
            obj = json.loads(ln)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON line: {ln[:80]!r}") from exc
        if not isinstance(obj, dict) or "aspect" not in obj or "claims" not in obj:
            raise ValueError(
                f'each line must be {{"aspect": <number>, "claims": [<numbers>]}}, got {ln[:80]!r}'
            )
        aspect, claims = obj["aspect"], obj["claims"]
        if not _is_int(aspect) or not 1 <= int(aspect) <= n_aspects:
            raise ValueError(f"aspect number {aspect!r} is not between 1 and {n_aspects}")
        if not isinstance(claims, list) or not all(_is_int(c) and 1 <= int(c) <= n_claims for c in claims):
            raise ValueError(
                f"claims must be a list of statement numbers between 1 and {n_claims}, got {claims!r}"
            )
        for c in claims:
            mapping.setdefault(int(c), set()).add(int(aspect))
    return mapping


def _is_int(v: object) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and v.isdigit())


def alignment_to_ids(
    mapping: Mapping[int, set[int]], claim_ids: Sequence[str], aspects: Sequence[Aspect]
) -> dict[str, list[str]]:
    """Claim number -> aspect numbers  ==>  claim id -> aspect ids."""
    out: dict[str, list[str]] = {cid: [] for cid in claim_ids}
    for c, aspect_nums in mapping.items():
        out[claim_ids[c - 1]] = sorted(aspects[a - 1].aspect_id for a in aspect_nums)
    return out


# -- ICAT-M alignment -----------------------------------------------------------------


def manual_alignment(
    query_id: str,
    first_supporting_doc: Mapping[str, str | None],
    aspect_qrels: Mapping[tuple[str, str], Iterable[str]],
) -> dict[str, list[str]]:
    """TO(c) from aspect-level qrels of the first supporting document of each claim."""
    out: dict[str, list[str]] = {}
    for cid, doc_id in first_supporting_doc.items():
        out[cid] = sorted(aspect_qrels.get((query_id, doc_id), ())) if doc_id else []
    return out
