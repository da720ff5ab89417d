"""Support by entailment: does some premise entail a hypothesis, by the profile's NLI model?

Citation support and nugget assignment both ask it: the best premise's support score, held
against the judge's threshold; a score that could not be computed is a failure, never "not
supported".  Each family names its role in the judge's identity, so its keys stay its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.models.entailment import EntailmentModel

#: what a failed judgement records
FAILED = "entailment: a support score could not be computed"


@dataclass(frozen=True)
class Support:
    """The best premise's support score (rounded to 4 places), that premise, and whether it
    reaches the threshold; ``score`` None: a score could not be computed."""

    score: float | None
    premise: str | None = None
    supported: bool = False


class EntailmentJudge:
    """The profile's entailment model as a judge with two levels: supported or not."""

    partial_level = False

    def __init__(self, entailment: EntailmentModel, role: str = "judge") -> None:
        self.entailment = entailment
        self.role = role

    @property
    def identity(self) -> dict[str, Any]:
        return {
            self.role: "entailment",
            "entailment": getattr(self.entailment, "identity", type(self.entailment).__name__),
            "threshold": self.entailment.threshold,
        }

    def supports(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[Support]:
        """Per ``(premises, hypothesis)``: the best premise (none: score 0), every pair of
        every request scored in one call."""
        pairs = [(p, hypothesis) for premises, hypothesis in requests for p in premises]
        scores = iter(self.entailment.support_scores(pairs) if pairs else [])
        out = []
        for premises, _ in requests:
            got = [(next(scores), p) for p in premises]
            if any(s is None for s, _ in got):
                out.append(Support(None))
                continue
            best, premise = max(got, key=lambda g: float(g[0] or 0.0), default=(0.0, None))
            score = float(best or 0.0)
            out.append(Support(round(score, 4), premise, score >= self.entailment.threshold))
        return out
