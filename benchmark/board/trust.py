"""What a board's main score is worth: its judges' card lines, and a banner when they fail.

Every board is ranked by one score of one family under one judge profile.  The family says
which judge roles that score depends on (``MetricFamily.judged_by``), and the profile's
judge card (:mod:`benchmark.models.cards`) says how far each role's judge agrees with
people on public data.  Boards show those lines — in the terminal, the pull-request
comment, the static page and the Space — and a board whose main-score judge is at chance
or below a trivial baseline carries a banner in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from benchmark.families import MetricFamily
from benchmark.models.cards import WARNINGS, load_card


@dataclass(frozen=True)
class Trust:
    """The card lines for one (profile, main score) of a family, and a banner if any."""

    profile: str
    score: str
    lines: list[str] = field(default_factory=list)
    banner: str | None = None


def board_trust(family: MetricFamily, profile_id: str, primary: str) -> Trust:
    roles = family.judged_by.get(primary, ())
    label = family.label(primary)
    if not roles:
        return Trust(profile_id, label)
    card = load_card(profile_id)
    if card is None:
        return Trust(
            profile_id,
            label,
            [f"No judge card for {profile_id}: how far its judges agree with people is not measured."],
        )
    lines, failing = [], []
    for role in roles:
        rc = card.role(role)
        if rc is None:
            lines.append(f"{role}: not on the card of {profile_id}")
            continue
        lines.append(rc.line())
        if rc.verdict in WARNINGS:
            failing.append(f"its {role} judge, which is {rc.verdict}")
    banner = None
    if failing:
        banner = (
            f"Warning: {label} under {profile_id} relies on {' and on '.join(failing)} on public "
            f"human labels (judge card, measured {card.created}): read this board as a check that the "
            "pipeline runs, not as a ranking of answer quality."
        )
    return Trust(profile_id, label, lines, banner)


def trusts(family: MetricFamily, table: pd.DataFrame) -> list[Trust]:
    """One :class:`Trust` per distinct (judge profile, ranked-by score) among the rows of a
    family's leaderboard table."""
    boards = set(zip(table["judge_profile"], table["ranked_by"], strict=True))
    return [board_trust(family, profile, primary) for profile, primary in sorted(boards)]


def trust_text(t: Trust) -> list[str]:
    """Plain lines: the banner first, then the card's lines."""
    head = [t.banner] if t.banner else []
    return head + [f"Judge card ({t.profile}, {t.score}): {line}" for line in t.lines]
