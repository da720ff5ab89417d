"""Citations in an answer: the ``[n]`` markers a RAG answer cites its passages with, parsed
once into what each answer (:class:`RAGRecord`) and each sentence (:class:`CitedSentence`)
cites, so the harness, the readers and the families agree on what a citation is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from benchmark.core.text import sentences

_CITATION = re.compile(r"\[(\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*)\]")


class RAGRecord(BaseModel):
    """What one RAG answer was given and what it cites."""

    model_config = ConfigDict(extra="forbid")

    passages: list[str] = Field(description="ids of the passages in the prompt, as numbered there (1-based)")
    cited: list[str] = Field(
        default_factory=list, description="passage ids the answer cites, first mention first"
    )
    invalid_citations: list[int] = Field(
        default_factory=list, description="numbers the answer cites that name no passage it was given"
    )


def parse_citations(answer: str, n_passages: int) -> tuple[list[int], list[int]]:
    """Cited passage numbers (1-based, first mention first) and cited numbers out of range,
    from ``[1]``, ``[1][2]``, ``[1, 2]`` and ``[1; 2]``."""
    valid: list[int] = []
    invalid: list[int] = []
    for m in _CITATION.finditer(answer):
        for part in re.split(r"[,;]", m.group(1)):
            num = int(part)
            target = valid if 1 <= num <= n_passages else invalid
            if num not in target:
                target.append(num)
    return valid, invalid


@dataclass(frozen=True)
class CitedSentence:
    """One answer sentence with the passages it cites: ``citations`` are 0-based places among
    the passages the answer was given; ``invalid`` what it cites that names none of them."""

    text: str
    citations: tuple[int, ...] = ()
    invalid: tuple[str, ...] = ()


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` markers (and the space before each)."""
    return re.sub(r"\s*" + _CITATION.pattern, "", text).strip()


def cited_sentences(answer: str, n_passages: int) -> list[CitedSentence]:
    """An answer's sentences, each with the passages its ``[n]`` markers cite; markers pysbd
    leaves at the start of the next sentence ("... in 1889. [2] It was ...") belong to the
    sentence before, as ALCE reads them."""
    out: list[CitedSentence] = []
    for sent in sentences(answer):
        lead = re.match(r"^(?:\s*" + _CITATION.pattern + r")+", sent)
        if lead and out:
            valid, invalid = parse_citations(lead.group(0), n_passages)
            prev = out[-1]
            out[-1] = CitedSentence(
                prev.text,
                prev.citations + tuple(v - 1 for v in valid if v - 1 not in prev.citations),
                prev.invalid + tuple(str(i) for i in invalid if str(i) not in prev.invalid),
            )
            sent = sent[lead.end() :]
        text = strip_citations(sent)
        if not re.search(r"\w", text):
            continue
        valid, invalid = parse_citations(sent, n_passages)
        out.append(CitedSentence(text, tuple(v - 1 for v in valid), tuple(str(i) for i in invalid)))
    return out


def record(answer: str, passage_ids: Sequence[str]) -> RAGRecord:
    valid, invalid = parse_citations(answer, len(passage_ids))
    return RAGRecord(
        passages=list(passage_ids), cited=[passage_ids[i - 1] for i in valid], invalid_citations=invalid
    )
