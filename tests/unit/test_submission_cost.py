"""What an accepted submission may cost CI (issue 36, item 2).

Scoring cost grows with what a row holds: attribution pairs every answer sentence with
every passage (a row with 6,000 repeated passages planned about 54 M pairs and its dry run
alone ran past 600 s), and every sentence is a claim to ground (answers of 49,000
characters planned 49 times the published entailment pairs).  So a row's passages are at
most its setting's ``k``, distinct and non-empty; an answer keeps within its task card's
``limits``; and ``benchmark validate --budget`` plans the scoring as ``--dry-run`` does and
refuses, with the numbers, a submission that plans more than the budget.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from benchmark.board.submissions import required_queries, submitted_task, validate_submission
from benchmark.cli.main import main
from benchmark.core.results import RAGSetting
from benchmark.models.llm import NAMESPACE as LLM_NAMESPACE
from benchmark.retrieval.cached import CANDIDATES
from benchmark.retrieval.cached import NAMESPACE as RETRIEVE
from benchmark.scoring.budget import DEFAULT_BUDGET, Budget, over_budget, parse_budget, plan_totals
from benchmark.scoring.dry_run import DryRun, StageRow
from benchmark.tasks import load_task
from tests.helpers.submission_checks import problems

REPO = Path(__file__).resolve().parents[2]
TASK = "webtrack-2009-2012"
RAG = {"retriever": "bm25", "k": 5, "prompt": "rag-answer@1", "corpus": "starter"}
CARD = {
    "name": "tiny-model",
    "org": "acme",
    "license": "apache-2.0",
    "open_weights": True,
    "contact": "dev@example.org",
    "rag": RAG,
}
FOLDER = f"acme__tiny-model__{RAGSetting(**RAG).slug}"
PUBLISHED_RAG = REPO / "submissions" / "HuggingFaceTB__SmolLM2-135M-Instruct__rag-bm25-k5"


def make(tmp_path: Path, passages: list[str] | None = None, answer: str | None = None) -> Path:
    """A RAG submission of every required query; the second row gets ``passages`` and ``answer``."""
    folder = tmp_path / FOLDER
    folder.mkdir(parents=True)
    (folder / "model.yaml").write_text(yaml.safe_dump(CARD, sort_keys=False), encoding="utf-8")
    _, required = required_queries(TASK)
    rows = []
    for i, q in enumerate(required):
        given = passages if passages is not None and i == 1 else [f"d{q}#0", f"d{q}#1"]
        rows.append(
            {
                "query_id": q,
                "answer": answer if answer is not None and i == 1 else f"An answer about topic {q} [1].",
                "model": "acme/tiny-model",
                "rag": RAG,
                "retrieval": {"passages": given, "cited": given[:1]},
            }
        )
    (folder / f"{TASK}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return folder


# -- passages: at most k, distinct, non-empty ------------------------------------------


def test_six_thousand_repeated_passages_are_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make(tmp_path, passages=["dX#0"] * 6000)
    assert main(["validate", str(folder)]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert (
        f"{TASK}.jsonl, line 2, field 'retrieval.passages': 6,000 passages, but the setting's k is 5" in out
    )
    assert "5,999 repeated passage id(s) ('dX#0' is passage 1 and 2)" in out


def test_more_distinct_passages_than_k_are_refused(tmp_path: Path) -> None:
    found = problems(make(tmp_path, passages=[f"d{i}#0" for i in range(6)]))
    assert found == [
        f"{FOLDER}/{TASK}.jsonl, line 2, field 'retrieval.passages': 6 passages, but the setting's k is 5: "
        "a row lists the k passages its answer was given"
    ]


def test_a_passage_given_twice_is_refused(tmp_path: Path) -> None:
    found = problems(make(tmp_path, passages=["a#0", "b#0", "a#0"]))
    assert len(found) == 1 and "field 'retrieval.passages'" in found[0], found
    assert "1 repeated passage id(s) ('a#0' is passage 1 and 3)" in found[0]


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_passage_id_is_refused(tmp_path: Path, empty: str) -> None:
    found = problems(make(tmp_path, passages=["a#0", empty]))
    assert (
        len(found) == 1
        and "line 2, field 'retrieval.passages': empty passage id (passage 2 of 2)" in found[0]
    )


def test_fewer_passages_than_k_are_an_honest_record(tmp_path: Path) -> None:
    """A search returns fewer than k when fewer passages match (BM25 needs a shared term)."""
    sub = validate_submission(make(tmp_path, passages=["a#0"]))
    assert sub.outputs[TASK][1].retrieval is not None and sub.outputs[TASK][1].retrieval.passages == ["a#0"]


# -- answers: the task card's limits ---------------------------------------------------


def test_an_answer_of_49000_characters_is_refused_by_the_cards_limit(tmp_path: Path) -> None:
    limit = submitted_task(TASK).card.limits.max_answer_chars
    assert limit < 49_000
    found = problems(make(tmp_path, answer="Words and more words. " * 2227))  # 48,994 characters
    assert found == [
        f"{FOLDER}/{TASK}.jsonl, line 2, field 'answer': answer of 48,994 characters; the task card's limit "
        f"is {limit:,} (limits.max_answer_chars)"
    ]
    (one_more,) = problems(make(tmp_path / "one-more", answer="a" * (limit + 1)))
    assert f"answer of {limit + 1:,} characters" in one_more
    validate_submission(make(tmp_path / "at-limit", answer="a" * limit))


def test_an_answer_with_more_sentences_than_the_cards_limit_is_refused(tmp_path: Path) -> None:
    limit = submitted_task(TASK).card.limits.max_answer_sentences
    many = " ".join(f"Fact {i} holds." for i in range(limit + 1))
    assert len(many) < submitted_task(TASK).card.limits.max_answer_chars  # short, but many claims
    found = problems(make(tmp_path, answer=many))
    assert found == [
        f"{FOLDER}/{TASK}.jsonl, line 2, field 'answer': answer of {limit + 1} sentences; the task card's "
        f"limit is {limit} (limits.max_answer_sentences)"
    ]
    validate_submission(
        make(tmp_path / "at-limit", answer=" ".join(f"Fact {i} holds." for i in range(limit)))
    )


def _task_copy(tmp_path: Path, limits: dict[str, int]) -> Path:
    """The shipped task with other limits in its card (its data linked, not copied)."""
    src = REPO / "tasks" / TASK
    root = tmp_path / "tasks"
    (root / TASK).mkdir(parents=True)
    for entry in src.iterdir():
        if entry.name != "task.yaml":
            (root / TASK / entry.name).symlink_to(entry)
    card = yaml.safe_load((src / "task.yaml").read_text(encoding="utf-8"))
    card["limits"] = limits
    (root / TASK / "task.yaml").write_text(yaml.safe_dump(card, sort_keys=False), encoding="utf-8")
    return root


def test_the_limits_are_the_task_cards_and_no_part_of_its_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = load_task(TASK)
    folder = make(tmp_path / "sub", answer="One short sentence. And another one here.")
    validate_submission(folder)
    monkeypatch.setenv("GROUNDCOVER_TASKS", str(_task_copy(tmp_path, {"max_answer_sentences": 1})))
    found = problems(folder)
    assert len(found) == 1 and "answer of 2 sentences; the task card's limit is 1" in found[0], found
    # a board is keyed by the card's version and data fingerprint: limits change neither
    changed = load_task(TASK)
    assert changed.card.limits.max_answer_sentences == 1
    assert (changed.card.version, changed.data_fingerprint) == (
        shipped.card.version,
        shipped.data_fingerprint,
    )


def test_every_shipped_card_records_its_limits() -> None:
    for card_file in sorted((REPO / "tasks").glob("*/task.yaml")):
        raw = yaml.safe_load(card_file.read_text(encoding="utf-8"))
        assert set(raw.get("limits", {})) == {"max_answer_chars", "max_answer_sentences"}, card_file


# -- the plan against a budget ---------------------------------------------------------


def _plan(pairs: int, calls: int) -> DryRun:
    return DryRun(
        rows=[
            StageRow(TASK, "m", "attribution", "diagnostics:context", "entail", requests=pairs),
            StageRow(TASK, "m", "icat", "aspects", LLM_NAMESPACE, requests=calls, prompt_tokens=calls * 300),
        ]
    )


def test_validate_budget_refuses_with_the_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The planner's counts (stubbed here; the real planner below) against the default budget."""
    import benchmark.api.submission

    folder = make(tmp_path)
    asked: list[str] = []

    def planned(sub: object, profile: str) -> DryRun:
        asked.append(profile)
        return _plan(54_000_000, 24)

    monkeypatch.setattr(benchmark.api.submission, "plan_submission", planned)
    assert main(["validate", str(folder)]) == 0 and not asked  # no --budget: no plan
    assert main(["validate", "--budget", "--judge-profile", "offline-smollm2-minilm-sim", str(folder)]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert asked == ["offline-smollm2-minilm-sim"]
    assert (
        "scoring it plans 54,000,000 entailment pairs; the budget is 2,000,000 "
        "(judge profile offline-smollm2-minilm-sim)" in out
    )
    assert "LLM calls;" not in out  # only what is over the budget is named
    monkeypatch.setattr(benchmark.api.submission, "plan_submission", lambda sub, profile: _plan(11_257, 24))
    assert main(["validate", "--budget", str(folder)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "plan: 11,257 entailment pairs, 24 LLM calls, 7,200 LLM prompt tokens" in out


def test_budget_limits_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--budget", "--budget-limits", "pairs=3", str(make(tmp_path))]) == 2
    assert "unknown budget 'pairs'" in capsys.readouterr().err
    assert DEFAULT_BUDGET.entailment_pairs == 2_000_000


def test_empty_budget_limits_keep_the_default_budget_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--budget-limits "$LIMITS"`` with the CI variable unset: the default budget, never none."""
    assert main(["validate", "--budget-limits", "", str(make(tmp_path))]) == 0
    assert "(within the budget)" in capsys.readouterr().out


def test_budget_limits_override_the_default_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan of 11,257 pairs is within the default budget and over a limit of 10,000; one of
    3,000,000 is over the default and within a limit of 5,000,000 — the limit decides both
    ways, and the others stay the defaults."""
    import benchmark.api.submission

    folder = str(make(tmp_path))
    for planned, limit, code in ((11_257, 10_000, 2), (3_000_000, 5_000_000, 0), (3_000_000, None, 2)):
        monkeypatch.setattr(
            benchmark.api.submission, "plan_submission", lambda sub, profile, n=planned: _plan(n, 24)
        )
        limits = [] if limit is None else ["--budget-limits", f"entailment_pairs={limit}"]
        assert main(["validate", "--budget", *limits, folder]) == code, (planned, limit)
        out = " ".join(capsys.readouterr().out.split())
        if code:
            assert (
                f"plans {planned:,} entailment pairs; the budget is {limit or DEFAULT_BUDGET.entailment_pairs:,}"
                in out
            )
    budget = parse_budget("entailment_pairs=5000000,llm_calls=500")
    assert (budget.entailment_pairs, budget.llm_calls) == (5_000_000, 500)
    assert (
        budget.embeddings == DEFAULT_BUDGET.embeddings
        and budget.prompt_tokens == DEFAULT_BUDGET.prompt_tokens
    )


def test_the_plan_counts_candidate_searches_as_retrieval_queries() -> None:
    """A profile that finds candidate documents searches once per claim before it retrieves
    passages: the budget's retrieval queries are both kinds of search."""
    plan = DryRun(
        rows=[
            StageRow(TASK, "m", "icat", "grounding", RETRIEVE, requests=400),
            StageRow(TASK, "m", "icat", "candidates", CANDIDATES, requests=150),
        ]
    )
    totals = plan_totals(plan)
    assert totals["retrieval_queries"] == 550
    assert over_budget(totals, Budget(retrieval_queries=500)) == [
        "plans 550 retrieval queries; the budget is 500"
    ]


@pytest.mark.slow
def test_a_published_submission_plans_within_the_budget_and_a_small_one_refuses_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The real planner on a published submission: well within the default budget; over a
    budget of 1,000 pairs, refused with the planned count."""
    assert main(["validate", "--budget", str(PUBLISHED_RAG)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    pairs = int(re.search(r"plan: ([\d,]+) entailment pairs", out).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert 1_000 < pairs < DEFAULT_BUDGET.entailment_pairs / 100
    args = ["validate", "--budget", "--budget-limits", "entailment_pairs=1000", str(PUBLISHED_RAG)]
    assert main(args) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert f"scoring it plans {pairs:,} entailment pairs; the budget is 1,000" in out
