"""Nugget assignment judges: the profile's entailment judge (supported or not; no partial level)
or the judge LLM (``prompts/nugget-assign-v2.yaml``: support / partial / not, ``batch``
nuggets per request).  An unusable reply leaves its nuggets failed, never "not supported".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from benchmark.families.nuggets.formulas import LABELS
from benchmark.judging.support import FAILED, EntailmentJudge, Support
from benchmark.models.entailment import EntailmentModel, sentence_windows
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

#: the assigner's prompt; its reference is in the assigner's identity, so results and
#: cached replies of another version are never mistaken for this one's
PROMPT = "nugget-assign@2"


@dataclass
class Judged:
    """One nugget's judgement on one answer."""

    label: str | None
    support: float | None = None
    evidence: str | None = None
    error: str | None = None
    raw: list[str] = field(default_factory=list)


Item = tuple[str, str, Sequence[str]]  # (the query, the answer, its topic's nugget texts)


class Assigner(Protocol):
    partial_level: bool

    @property
    def identity(self) -> dict[str, Any]: ...

    def assign(self, items: Sequence[Item]) -> list[list[Judged]]: ...


class EntailmentAssigner(EntailmentJudge):
    """The answer's sentence windows as premises of each nugget."""

    def __init__(self, entailment: EntailmentModel) -> None:
        super().__init__(entailment, role="assigner")

    def assign(self, items: Sequence[Item]) -> list[list[Judged]]:
        windows = [sentence_windows(answer) if answer.strip() else [] for _, answer, _ in items]
        found = iter(
            self.supports(
                [(ws, n) for ws, (_, _, nuggets) in zip(windows, items, strict=True) for n in nuggets]
            )
        )
        return [[self._judged(next(found)) for _ in nuggets] for _, _, nuggets in items]

    @staticmethod
    def _judged(s: Support) -> Judged:
        if s.score is None:
            return Judged(None, error=FAILED)
        return Judged(
            "support" if s.supported else "not_support", s.score, s.premise if s.supported else None
        )


_LINE = re.compile(r"^\s*(\d+)\s*[:.)-]\s*([a-z_ ]+?)\s*$")


def parse_labels(text: str, n: int) -> list[str]:
    """``n`` labels from "<number>: <label>" lines; ``ValueError`` saying what is wrong."""
    labels: dict[int, str] = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line.lower())
        if not m:
            raise ValueError(f'every line must be "<number>: <label>", not {line.strip()[:60]!r}')
        label = m.group(2).strip().replace(" ", "_")
        if label not in LABELS:
            raise ValueError(f"a label must be one of {', '.join(LABELS)}, not {label!r}")
        labels[int(m.group(1))] = label
    if sorted(labels) != list(range(1, n + 1)):
        raise ValueError(f"give exactly one label for each of the {n} facts, numbered 1 to {n}")
    return [labels[i] for i in range(1, n + 1)]


class LLMAssigner:
    partial_level = True

    def __init__(self, llm: LLM, max_retries: int = 2, prompt: str = PROMPT) -> None:
        self.llm = llm
        self.max_retries = max_retries
        self.prompt_ref = prompt
        self.prompt = load_prompt(prompt)
        self.batch = int(self.prompt.meta.get("batch", 10))

    @property
    def identity(self) -> dict[str, Any]:
        return {"assigner": "llm", "llm": self.llm.identity, "prompt": self.prompt_ref, "batch": self.batch}

    def requests(
        self, items: Sequence[Item]
    ) -> tuple[list[list[dict[str, str]]], list[partial[list[str]]], list[tuple[int, int]]]:
        """Each request (up to ``batch`` nuggets of one answer), its reply parser, and its
        owner (the item's position, how many nuggets it labels) — apart from :meth:`assign`
        so that ``benchmarks/nugget_prompt_format.py`` sends exactly these requests."""
        requests, parsers, owners = [], [], []
        for i, (query, answer, nuggets) in enumerate(items):
            for start in range(0, len(nuggets), self.batch):
                chunk = nuggets[start : start + self.batch]
                listed = "\n".join(f"{k}. {t}" for k, t in enumerate(chunk, start=1))
                requests.append(self.prompt.render(query=query, answer=answer, nuggets=listed))
                parsers.append(partial(parse_labels, n=len(chunk)))
                owners.append((i, len(chunk)))
        return requests, parsers, owners

    def assign(self, items: Sequence[Item]) -> list[list[Judged]]:
        requests, parsers, owners = self.requests(items)
        outcomes = (
            run_structured(
                self.llm,
                requests,
                parsers,
                max_retries=self.max_retries,
                max_new_tokens=self.prompt.meta.get("max_new_tokens"),
            )
            if requests
            else []
        )
        out: list[list[Judged]] = [[] for _ in items]
        for (i, size), o in zip(owners, outcomes, strict=True):
            if o.ok:
                out[i] += [Judged(label) for label in o.value or []]
            else:
                out[i] += [Judged(None, error=o.error or "no reply", raw=list(o.raw)) for _ in range(size)]
        return out
