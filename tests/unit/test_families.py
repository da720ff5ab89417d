"""Every registered metric family runs through the real runner on a fake judge stack.

A new family registers a mock here (a task builder, answers and a fake stack) next to
its own number-for-number tests; this test then checks the platform contract for it:
typed traces, one result with the family's columns and primary score, resumable
checkpoints, and a trace the family can render.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.results import ModelInfo, read_result
from benchmark.families import REGISTRY, families_for
from benchmark.judging.stack import JudgeStack
from benchmark.scoring.runner import RunOptions, score_task
from benchmark.tasks import Task, load_task
from tests.unit import test_icat_pipeline as icat_mock


def _icat(tmp_path: Path) -> tuple[Task, dict[str, str], JudgeStack]:
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    task = load_task(icat_mock.build_task(tmp_path))
    stack = fake_stack(
        llm=FakeLLM(icat_mock.fake_reply),
        entailment=FakeEntailment(icat_mock.SUPPORT),
        retriever=FakeRetriever(icat_mock.HITS),
    )
    stack.profile = stack.profile.model_copy(
        update={"retriever": stack.profile.retriever.model_copy(update={"candidate_docs": None})}
    )
    return task, dict(icat_mock.ANSWERS), stack


def _decompscore(tmp_path: Path) -> tuple[Task, dict[str, str], JudgeStack]:
    from tests.unit import test_decompscore

    return test_decompscore.mock(tmp_path)


def _arguments(tmp_path: Path) -> tuple[Task, dict[str, str], JudgeStack]:
    from tests.helpers.arguments import scripted
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    task = load_task("arguana-debates")
    queries = task.table("queries")
    docs = task.table("corpus").doc_id.tolist()[:3]
    hits = {t: [(d, d, f"evidence {d}") for d in docs] for t in queries.topic}
    stack = fake_stack(llm=FakeLLM(scripted), entailment=FakeEntailment({}), retriever=FakeRetriever(hits))
    return task, {q: f"An argument for {q} [1]." for q in queries.query_id[:3]}, stack


def _exam(tmp_path: Path) -> tuple[Task, dict[str, str], JudgeStack]:
    from tests.helpers.fakes import FakeLLM, FakeRetriever, fake_stack
    from tests.unit.test_exam import ContainsEntailment

    task = load_task("webtrack-2009-2012")
    stack = fake_stack(
        llm=FakeLLM(lambda m: ""), entailment=ContainsEntailment(), retriever=FakeRetriever({})
    )  # type: ignore[arg-type]
    return task, {"175": "Chest pain or discomfort. Angina.", "182": "Within 20 minutes.", "196": ""}, stack


def _subq(tmp_path: Path) -> tuple[Task, dict[str, str], JudgeStack]:
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack
    from tests.unit.test_subq import tiny

    stack = fake_stack(llm=FakeLLM(lambda m: ""), entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    return (
        tiny(tmp_path),
        {"q1": "Tornadoes are caused by rotating storms.", "q2": "Figs grow on trees."},
        stack,
    )


MOCKS: dict[str, Callable[[Path], tuple[Task, dict[str, str], JudgeStack]]] = {
    "subq": _subq,
    "icat": _icat,
    "exam": _exam,
    "decompscore": _decompscore,
    "arguments": _arguments,
}


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_family_runs_through_the_runner(family_id: str, tmp_path: Path) -> None:
    assert family_id in MOCKS, f"register a mock task and fake judge stack for {family_id!r} in MOCKS"
    family = REGISTRY[family_id]
    task, answers, judges = MOCKS[family_id](tmp_path)
    assert family in families_for(task)

    def run() -> Any:
        return score_task(
            family,
            task,
            answers,
            judges,
            model=ModelInfo(id="mock/model"),
            results_root=tmp_path / "results",
            options=RunOptions(progress=False),
        )

    result, path = run()
    assert read_result(path) == result and result.metric_family == family_id
    assert result.primary in {c.key for c in family.columns}
    assert set(result.scores) <= {c.key for c in family.columns} | {
        k for q in result.per_query for k in q.scores
    }
    traces = [
        family.trace_model.model_validate_json(line)
        for line in path.with_name(path.stem + ".traces.jsonl").read_text().splitlines()
    ]
    assert [t.query_id for t in traces] == [q.query_id for q in result.per_query]
    assert all(t.item_key for t in traces)
    html = family.trace_html(traces[0].model_dump(mode="json"))
    assert traces[0].query in html or "query" in html.lower()
    # a second run finds every query checkpointed and asks no model anything
    calls = (len(judges.llm.requests), len(judges.entailment.calls))  # type: ignore[attr-defined]
    again, _ = run()
    assert again.scores == result.scores
    assert (len(judges.llm.requests), len(judges.entailment.calls)) == calls  # type: ignore[attr-defined]
