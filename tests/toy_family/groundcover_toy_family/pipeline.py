"""What the toy family does: no model, just words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmark.families.base import Prepared, ScoringInputs
from benchmark.judging.stack import JudgeStack
from benchmark.tasks import Task
from groundcover_toy_family.family import ToySettings
from groundcover_toy_family.scores import trace_scores
from groundcover_toy_family.trace import ToyTrace


@dataclass
class ToyState:
    min_length: int


def prepare(task: Task, judges: JudgeStack, inputs: ScoringInputs, settings: ToySettings) -> Prepared:
    return Prepared(state=ToyState(settings.min_length), run_key=(settings.min_length,))


def words(text: str, min_length: int) -> list[str]:
    return [w for w in (t.strip(".,;:!?").lower() for t in text.split()) if len(w) >= min_length]


def score_batch(state: ToyState, items: Sequence[tuple[str, str, str]]) -> list[ToyTrace]:
    out = []
    for qid, query, answer in items:
        wanted = words(query, state.min_length)
        said = set(words(answer, state.min_length))
        t = ToyTrace(
            query_id=qid,
            query=query,
            answer=answer,
            query_words=wanted,
            found=[w for w in wanted if w in said],
        )
        t.scores = trace_scores(t)
        out.append(t)
    return out
