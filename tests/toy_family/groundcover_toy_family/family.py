"""What the toy family is: its score, its settings (declared once), its trace."""

from __future__ import annotations

from benchmark.families.base import FamilySettings, MetricFamily, ScoreColumn, option
from groundcover_toy_family.trace import ToyTrace


class ToySettings(FamilySettings):
    flag_prefix = "toy"

    min_length: int = option(4, "least letters a word needs to count", ge=1)


TOY = MetricFamily(
    id="toy",
    title="Toy word recall",
    description="Share of the query's words that the answer repeats (a test family).",
    primary="word_recall",
    columns=(ScoreColumn("word_recall", "word recall", "share of the query's words the answer repeats"),),
    trace_model=ToyTrace,
    settings_model=ToySettings,
)
