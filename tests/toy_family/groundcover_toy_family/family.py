"""The toy family's glue: columns, settings (declared once), preparation."""

from __future__ import annotations

from benchmark.families.base import FamilySettings, MetricFamily, Prepared, ScoreColumn, ScoringInputs, option
from benchmark.judging.stack import JudgeStack
from benchmark.tasks import Task
from groundcover_toy_family import pipeline, scores
from groundcover_toy_family.trace import ToyTrace


class ToySettings(FamilySettings):
    flag_prefix = "toy"

    min_length: int = option(4, "least letters a word needs to count", ge=1)


class ToyFamily(MetricFamily):
    id = "toy"
    title = "Toy word recall"
    description = "Share of the query's words that the answer repeats (a test family)."
    primary = "word_recall"
    columns = (ScoreColumn("word_recall", "word recall", "share of the query's words the answer repeats"),)
    required_tables = ("queries",)
    trace_model = ToyTrace
    settings_model = ToySettings
    pipeline = pipeline
    scores = scores

    def prepare(
        self, task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: FamilySettings
    ) -> Prepared:
        assert isinstance(settings, ToySettings)
        return Prepared(state=pipeline.ToyState(settings.min_length), run_key=(settings.min_length,))
