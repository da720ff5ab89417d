"""Judge cards: how far each judge of a profile agrees with people, on public data.

A leaderboard number is worth what its judge is worth.  A card is written by ``benchmark
judge-card --judge-profile P`` (:mod:`benchmark.metaeval.judge_cards`) and lives beside the
profiles, one file per profile version (``benchmark/profiles/cards/<name>-v<version>.yaml``).
For each *role* a profile fills (``entailment``, ``argument-quality``, ...) it records, per
public human-labelled set: the set's licence and size, the judge's figure with a bootstrap
interval, the trivial baselines on the same items (majority class, length, word overlap,
plain cosine), and a verdict in plain words.  A role the project could not run (a
profile's models cannot be downloaded here) says "not measured here", and why.

Boards read the card of their judge profile for the role their main score depends on
(:attr:`benchmark.families.base.MetricFamily.judged_by`) and show that line; a board whose
main-score judge is at chance or below a baseline carries it as a banner.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from benchmark.core import paths

CARDS_DIR = paths.PROFILES_DIR / "cards"
Verdict = Literal["informative", "at chance", "below a baseline", "not measured here"]
#: verdicts a board shows as a warning banner
WARNINGS = ("at chance", "below a baseline")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def best_baseline(baselines: dict[str, float | None]) -> tuple[str, float] | None:
    """The trivial baseline that scored highest, by name, or ``None`` when none scored."""
    scored = [(k, v) for k, v in baselines.items() if v is not None]
    return max(scored, key=lambda kv: kv[1], default=None)


class SetFigure(_Strict):
    """One judge on one public set."""

    set: str = Field(description="the set's id in benchmark.metaeval.human_sets")
    title: str
    licence: str
    source: str | None = Field(
        default=None, description="where it was read, at which commit (github:owner/repo@…, hf:org/name@…)"
    )
    n: int
    metric: str = Field(description="e.g. ROC AUC, pairwise accuracy")
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    chance: float = Field(description="what a judge with no skill scores on this metric")
    baselines: dict[str, float | None] = Field(default_factory=dict)
    extra: dict[str, float | None] = Field(default_factory=dict, description="accuracy, recall, ...")
    verdict: Verdict

    def line(self) -> str:
        """``SICK: ROC AUC 0.811 [0.80, 0.82], n=4,906 — below a baseline (plain cosine 0.83)``."""
        if self.value is None:
            return f"{self.title}: {self.metric} undefined, n={self.n:,}"
        ci = (
            f" [{self.ci_low:.2f}, {self.ci_high:.2f}]"
            if self.ci_low is not None and self.ci_high is not None
            else ""
        )
        best = best_baseline(self.baselines)
        base = f"; best baseline {best[0]} {best[1]:.3f}" if best else ""
        return f"{self.title}: {self.metric} {self.value:.3f}{ci}, n={self.n:,}{base} — {self.verdict}"


class RoleCard(_Strict):
    """One role of a profile (the judge that fills it) and how it was measured."""

    role: str
    judge: str = Field(description="the model (and method) filling the role in this profile")
    verdict: Verdict
    reason: str | None = Field(default=None, description="why it was not measured, or what to know")
    figures: list[SetFigure] = Field(default_factory=list)
    flags: list[str] = Field(
        default_factory=list,
        description="what a reader must know beyond the verdict (a judge that mostly echoes its example)",
    )

    def line(self) -> str:
        if not self.figures:
            return f"{self.role} ({self.judge}): {self.verdict}" + (
                f" — {self.reason}" if self.reason else ""
            )
        flagged = "".join(f" Flag: {f}." for f in self.flags)
        return f"{self.role} ({self.judge}): " + "; ".join(f.line() for f in self.figures) + flagged


class JudgeCard(_Strict):
    schema_version: Literal["1"] = "1"
    profile: str = Field(description="name@version of the judge profile")
    created: str
    groundcover: str = Field(description="the package version that measured it")
    roles: list[RoleCard]

    def role(self, name: str) -> RoleCard | None:
        return next((r for r in self.roles if r.role == name), None)


def card_path(profile_id: str, folder: Path | None = None) -> Path:
    name, _, version = profile_id.partition("@")
    return (folder or CARDS_DIR) / f"{name}-v{version}.yaml"


def worst(figures: list[SetFigure]) -> Verdict:
    """A role's verdict over its sets: the worst one (at chance anywhere is at chance)."""
    order: tuple[Verdict, ...] = ("at chance", "below a baseline", "informative", "not measured here")
    verdicts = {f.verdict for f in figures}
    return next((v for v in order if v in verdicts), "not measured here")


@cache
def load_card(profile_id: str, folder: Path | None = None) -> JudgeCard | None:
    """The card of a profile version (from the package's cards, unless ``folder``), or
    ``None`` when none has been written."""
    path = card_path(profile_id, folder)
    if not path.exists():
        return None
    return JudgeCard.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def write_card(card: JudgeCard, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(card.model_dump(mode="json"), sort_keys=False, allow_unicode=True, width=100)
    path.write_text(
        f"# Written by `benchmark judge-card --judge-profile {card.profile.split('@')[0]}`.\n{text}",
        encoding="utf-8",
    )
    load_card.cache_clear()
    return path
