"""What a board's main score is worth: its judges' card lines, and a banner when they fail.

The *item-level* line (the judge card: does each judge the score depends on agree with
people) and the *ranking* line (a ranking card: does the profile order systems as people do,
better than a trivial baseline) stand side by side; a board whose judge is at chance or
below a baseline carries a banner in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from benchmark.families import MetricFamily
from benchmark.models.cards import RANKING_DOCS, WARNINGS, load_card, ranking_lines, ranking_lines_for


@dataclass(frozen=True)
class Trust:
    """The card lines for one (profile, main score) of a family, and a banner if any."""

    profile: str
    score: str
    lines: list[str] = field(default_factory=list)
    banner: str | None = None


def ranking_text(family_id: str, profile_id: str) -> tuple[list[str], list[str]]:
    """The ranking line(s) of a board, and what of them a banner must say (rankings that do
    not beat a trivial baseline).  Without a ranking card for this family and profile the
    line says "not measured for this profile", naming a graded file's card of the family
    (another judge's, e.g. EXAM++'s grader) so it is not read as this profile's."""
    own = ranking_lines_for(family_id, profile_id)
    if not own:
        others = [r for r in ranking_lines() if r.family == family_id and r.profile is None]
        aside = "".join(
            f"; the {r.set_title} ranking card is its grader's ({r.judge}), not this profile's"
            for r in others
        )
        return [f"ranking agreement: not measured for this profile (see {RANKING_DOCS}){aside}"], []
    failing = [
        f"orders systems no better than the trivial baseline '{r.baseline}' on {r.set_title} (Kendall τ "
        f"{r.tau:.3f} [{r.low:.2f}, {r.high:.2f}] vs {r.baseline_tau:.3f})"
        if r.low > 0 and r.baseline is not None
        else f"orders systems no better than chance on {r.set_title} (Kendall τ interval "
        f"[{r.low:.2f}, {r.high:.2f}] reaches 0)"
        for r in own
        if not r.beats_baseline
    ]
    return [r.line() for r in own], failing


def board_trust(family: MetricFamily, profile_id: str, primary: str) -> Trust:
    """The item-level card lines and the ranking line of one board, and its banner."""
    roles = family.judged_by.get(primary, ())
    label = family.label(primary)
    if not roles:
        return Trust(profile_id, label)
    ranking, ranking_failing = ranking_text(family.id, profile_id)
    card = load_card(profile_id)
    lines: list[str] = []
    failing: list[str] = []
    if card is None:
        lines.append(f"No judge card for {profile_id}: how far its judges agree with people is not measured.")
    else:
        for role in roles:
            if (rc := card.role(role)) is None:
                lines.append(f"{role}: not on the card of {profile_id}")
                continue
            lines.append(rc.line())
            if rc.verdict in WARNINGS:
                failing.append(f"its {role} judge, which is {rc.verdict}")
    lines += ranking
    banner = None
    if failing or ranking_failing:
        parts = []
        if failing:
            assert card is not None
            parts.append(
                f"relies on {' and on '.join(failing)} on public human labels (judge card, measured "
                f"{card.created})"
            )
        if ranking_failing:  # a clause of its own: "<score> under <profile> orders systems …"
            parts.append(("and " if failing else "") + "; ".join(ranking_failing) + " (ranking card)")
        elif failing and "not measured" in ranking[0]:
            parts.append("and whether it orders systems as people do is not measured")
        banner = (
            f"Warning: {label} under {profile_id} {', '.join(parts)}: read this board as a check that the "
            "pipeline runs, not as a ranking of answer quality."
        )
    return Trust(profile_id, label, lines, banner)


def trusts(family: MetricFamily, table: pd.DataFrame) -> list[Trust]:
    """One :class:`Trust` per distinct (judge profile, ranked-by score) among the rows of a
    family's leaderboard table."""
    boards = set(zip(table["judge_profile"], table["ranked_by"], strict=True))
    return [board_trust(family, profile, primary) for profile, primary in sorted(boards)]


def card_kind(line: str) -> str:
    """Which card a trust line comes from, as its prefix on every board: a ranking card's line
    is about the order of systems, a judge card's about single judgements."""
    return "Ranking card" if line.startswith("ranking agreement") else "Judge card"


def trust_text(t: Trust) -> list[str]:
    """Plain lines: the banner first, then the card's lines."""
    head = [t.banner] if t.banner else []
    return head + [f"{card_kind(line)} ({t.profile}, {t.score}): {line}" for line in t.lines]
