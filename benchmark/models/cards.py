"""Judge cards: how far each judge of a profile agrees with people, on public data.

A card is written by ``benchmark judge-card`` (:mod:`benchmark.metaeval.judge_cards`), one
file per profile version (``benchmark/profiles/cards/<name>-v<version>.yaml``): for each
*role* a profile fills, per public human-labelled set, the judge's figure with a bootstrap
interval, the trivial baselines on the same items and a verdict in plain words.  Boards show
the line of the role their main score depends on, as a banner when it is a warning.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from benchmark.core import paths

CARDS_DIR = paths.PROFILES_DIR / "cards"
#: what a figure with no item left to measure is (every item failed): never "at chance",
#: which would claim a judge was measured and found blind
ALL_FAILED = "not measured — all items failed"
#: worst first: a role's verdict over its sets is the first of these any set has (:func:`worst`)
Verdict = Literal[
    "not measured — all items failed",
    "at chance",
    "below a baseline",
    "no better than a baseline",
    "informative",
    "not measured here",
]
#: verdicts a board shows as a warning banner
WARNINGS = ("at chance", "below a baseline", "no better than a baseline", ALL_FAILED)


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
    why: str | None = Field(
        default=None,
        description="what decided the verdict: the interval of the difference to the best baseline, "
        "on the ranking (AUC) and on the decision at the profile's threshold",
    )

    @model_validator(mode="before")
    @classmethod
    def _nothing_measured(cls, data: Any) -> Any:
        """A figure over no item is not measured, whatever an older card file says (cards
        written before this rule called it "at chance")."""
        if isinstance(data, dict) and data.get("n") == 0 and data.get("verdict") != ALL_FAILED:
            data = {**data, "verdict": ALL_FAILED}
        return data

    def line(self) -> str:
        """``SICK: ROC AUC 0.811 [0.80, 0.82], n=4,906 — below a baseline (plain cosine 0.83)``."""
        if self.n == 0:
            failed = self.extra.get("failed") or self.extra.get("pairs left out (an argument unrated)")
            said = f" ({failed:,.0f} items failed)" if failed else ""
            return f"{self.title}: {self.metric} {ALL_FAILED}{said}"
        if self.value is None:
            return f"{self.title}: {self.metric} undefined, n={self.n:,} — {self.verdict}"
        ci = (
            f" [{self.ci_low:.2f}, {self.ci_high:.2f}]"
            if self.ci_low is not None and self.ci_high is not None
            else ""
        )
        best = best_baseline(self.baselines)
        base = f"; best baseline {best[0]} {best[1]:.3f}" if best else ""
        why = f" ({self.why})" if self.why and self.verdict != "informative" else ""
        return f"{self.title}: {self.metric} {self.value:.3f}{ci}, n={self.n:,}{base} — {self.verdict}{why}"


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

    @model_validator(mode="before")
    @classmethod
    def _worst_of_its_sets(cls, data: Any) -> Any:
        """A measured role's verdict is its worst set's, re-derived on reading so a card file
        cannot say otherwise."""
        if isinstance(data, dict) and data.get("figures"):
            figures = [
                f if isinstance(f, SetFigure) else SetFigure.model_validate(f) for f in data["figures"]
            ]
            data = {**data, "figures": figures, "verdict": worst(figures)}
        return data

    def line(self) -> str:
        """The role's verdict first (the worst of its sets), then each set's figure."""
        if not self.figures:
            return f"{self.role} ({self.judge}): {self.verdict}" + (
                f" — {self.reason}" if self.reason else ""
            )
        flagged = "".join(f" Flag: {f}." for f in self.flags)
        sets = "set" if len(self.figures) == 1 else f"worst of its {len(self.figures)} sets"
        return (
            f"{self.role} ({self.judge}): {self.verdict} ({sets}) — "
            + "; ".join(f.line() for f in self.figures)
            + flagged
        )


class JudgeCard(_Strict):
    schema_version: Literal["1"] = "1"
    profile: str = Field(description="name@version of the judge profile")
    created: str
    groundcover: str = Field(description="the package version that measured it")
    command: str | None = Field(
        default=None,
        description="the full command that wrote the card, every option included (LLM roles too)",
    )
    roles: list[RoleCard]

    def role(self, name: str) -> RoleCard | None:
        return next((r for r in self.roles if r.role == name), None)


def card_path(profile_id: str, folder: Path | None = None) -> Path:
    name, _, version = profile_id.partition("@")
    return (folder or CARDS_DIR) / f"{name}-v{version}.yaml"


def worst(figures: list[SetFigure]) -> Verdict:
    """A role's verdict over its sets: the worst one (at chance anywhere is at chance)."""
    verdicts = {f.verdict for f in figures}
    return next((v for v in get_args(Verdict) if v in verdicts), "not measured here")


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
    command = card.command or f"benchmark judge-card --judge-profile {card.profile.split('@')[0]}"
    path.write_text(f"# Written by `{command}`.\n{text}", encoding="utf-8")
    load_card.cache_clear()
    return path


# -- ranking cards: whether a judge orders *systems* as people do ----------------------

#: ranking cards (written by ``benchmark meta-eval rankings --card-out``, see
#: :mod:`benchmark.metaeval.rankings`) live beside the judge cards
RANKINGS_DIR = CARDS_DIR / "rankings"
RANKING_DOCS = "docs/meta-evaluation.md"


class RankingLine(BaseModel):
    """What a board says about one ranking card: the judge's Kendall τ against the human
    leaderboard, with its interval, against the best trivial baseline's."""

    model_config = ConfigDict(frozen=True)

    set_title: str
    judge: str
    family: str | None
    profile: str | None
    systems: int
    tau: float
    low: float
    high: float
    baseline: str | None
    baseline_tau: float | None

    @property
    def beats_baseline(self) -> bool:
        """Above chance and above the best baseline, by the judge's interval's lower end."""
        return self.low > 0 and (self.baseline_tau is None or self.low > self.baseline_tau)

    def line(self) -> str:
        base = (
            f"; best baseline {self.baseline} τ {self.baseline_tau:.3f}" if self.baseline is not None else ""
        )
        said = (
            "orders systems better than every trivial baseline"
            if self.beats_baseline
            else "does not order systems better than a trivial baseline"
            if self.low > 0
            else "no better than chance at ordering systems"
        )
        return (
            f"ranking agreement ({self.set_title}, {self.systems} systems, {self.judge}): Kendall τ "
            f"{self.tau:.3f} [{self.low:.2f}, {self.high:.2f}] against the human leaderboard{base} — {said}"
        )


def _ranking_line(data: dict[str, Any]) -> RankingLine | None:
    judge = data.get("judge") or {}
    tau = judge.get("kendall") or {}
    if tau.get("value") is None or tau.get("low") is None:
        return None
    baselines = {b["name"]: (b.get("kendall") or {}).get("value") for b in data.get("baselines") or []}
    best = best_baseline(baselines) or (None, None)
    info = data.get("set") or {}
    return RankingLine(
        set_title=str(info.get("title") or info.get("id") or "?"),
        judge=str(judge.get("name", "?")),
        family=data.get("family"),
        profile=data.get("profile"),
        systems=int(judge.get("systems") or 0),
        tau=float(tau["value"]),
        low=float(tau["low"]),
        high=float(tau.get("high") or tau["value"]),
        baseline=best[0],
        baseline_tau=None if best[1] is None else float(best[1]),
    )


@cache
def ranking_lines(folder: Path | None = None) -> tuple[RankingLine, ...]:
    """Every ranking card's line (the package's cards, unless ``folder``)."""
    files = sorted((folder or RANKINGS_DIR).glob("*.yaml"))
    lines = (_ranking_line(yaml.safe_load(p.read_text(encoding="utf-8")) or {}) for p in files)
    return tuple(line for line in lines if line is not None)


def ranking_lines_for(family_id: str, profile_id: str) -> list[RankingLine]:
    """The ranking cards of this family under this judge profile (a card written from a graded
    file, with no ``profile``, never stands in for a profile's own ranking)."""
    return [r for r in ranking_lines() if r.family == family_id and r.profile == profile_id]
