"""Rules that a one-line change could break without any other test noticing (issue 36, item 8).

Each test pins one rule exactly, and each was seen to fail under a one-line mutation of the
code that implements it:

* resuming into a results folder whose answers changed re-scores the changed ones, and only
  those (``benchmark/scoring/runner.py``, item keys); resuming with another ``--judge-repeats``
  re-scores every trace judged another number of times (issue 48);
* a judge card's best baseline is the strongest one, and a role's verdict is its worst set's
  (``benchmark/models/cards.py``);
* the dry run's *exact* / *estimate* labels, the "(est.)" mark, and what counts as already
  done (``benchmark/scoring/dry_run.py``);
* a nuggetizer file with a blank nugget text or a topic listed twice is refused, naming file,
  line and field (``benchmark/families/nuggets/nuggetizer_files.py``);
* an honest judge reply that merely shares a few words with the prompt's example is not a
  copy (``benchmark/models/example_copies.py``);
* a hard-linked file in a submission is refused even when its content is valid
  (``benchmark/board/submissions.py``);
* the RAG diagnostics tell context, self-knowledge and hallucination apart
  (``benchmark/families/attribution/``).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from benchmark.core.errors import InputError
from benchmark.core.results import ModelInfo, read_traces
from benchmark.families import REGISTRY
from benchmark.scoring.runner import RunOptions, score_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever
from tests.unit.test_nuggets import contract_mock as nuggets_mock

# -- resuming into a results folder whose answers changed --------------------------------------

SUPPORTED = "Tornadoes are caused by rotating storms."  # the mock's entailment table: supports q1/n1
CHANGED = "Tornadoes happen in spring."  # supports nothing


def _mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    """The nuggets family's mock, with q2's answer supporting its nugget too."""
    task, answers, judges = nuggets_mock(tmp_path)
    judges.entailment.table[(answers["q2"], "Figs grow on trees.")] = 0.9
    return task, answers, judges


def _score_nuggets(
    task: Any, answers: dict[str, str], judges: Any, root: Path, repeats: int = 1
) -> tuple[Any, Path]:
    return score_task(
        REGISTRY["nuggets"],
        task,
        answers,
        judges,
        model=ModelInfo(id="mock/model"),
        results_root=root,
        options=RunOptions(progress=False, query_batch=1, judge_repeats=repeats),
    )


def _asked_about(judges: Any, since: int) -> set[str]:
    """The answers (the premises) the entailment judge was asked about since call ``since``."""
    return {premise for call in judges.entailment.calls[since:] for premise, _ in call}


def test_resuming_after_an_answer_changed_rescores_that_answer_and_only_it(tmp_path: Path) -> None:
    task, answers, judges = _mock(tmp_path)
    assert answers["q1"] == SUPPORTED
    first, path = _score_nuggets(task, answers, judges, tmp_path / "results")
    assert {q.query_id: q.scores["all_strict"] for q in first.per_query} == {"q1": 0.5, "q2": 1.0}
    keys_before = {t["query_id"]: t["item_key"] for t in read_traces(path)}

    calls = len(judges.entailment.calls)
    changed = {**answers, "q1": CHANGED}
    again, _ = _score_nuggets(task, changed, judges, tmp_path / "results")
    # the changed answer was judged again; the unchanged one was taken from the checkpoint
    assert _asked_about(judges, calls) == {CHANGED}
    per = {q.query_id: q.scores["all_strict"] for q in again.per_query}
    assert per == {"q1": 0.0, "q2": 1.0}
    traces = {t["query_id"]: t for t in read_traces(path)}
    assert traces["q1"]["answer"] == CHANGED and traces["q2"]["answer"] == answers["q2"]
    assert traces["q1"]["item_key"] != keys_before["q1"] and traces["q2"]["item_key"] == keys_before["q2"]

    # and back: the first answer's trace was replaced, so it is scored again, not remembered
    calls = len(judges.entailment.calls)
    back, _ = _score_nuggets(task, answers, judges, tmp_path / "results")
    assert _asked_about(judges, calls) == {SUPPORTED}
    assert back.per_query == first.per_query


def test_resuming_with_another_judge_repeats_never_reuses_traces_judged_another_number_of_times(
    tmp_path: Path,
) -> None:
    """Three repeats, then one, two and three again into the same folder: each run leaves
    every trace judged exactly as many times as it asked (repeats 1 .. N-1 in
    ``repeat_scores``), fewer repeats than the checkpoint's included, and says so in the result."""
    task, answers, judges = _mock(tmp_path)
    for repeats in (3, 1, 2, 3):
        result, path = _score_nuggets(task, answers, judges, tmp_path / "results", repeats)
        kept = {t["query_id"]: len(t.get("repeat_scores") or ()) for t in read_traces(path)}
        assert kept == {"q1": repeats - 1, "q2": repeats - 1}, repeats
        noted = result.scores["all_strict"].judge_repeats
        assert (noted.repeats if noted is not None else 1) == repeats


# -- judge cards: the best baseline, and a role's verdict ---------------------------------------


def _figure(verdict: str, set_id: str = "sick") -> Any:
    from benchmark.models.cards import SetFigure

    return SetFigure(
        set=set_id, title=set_id.upper(), licence="CC", n=10, metric="ROC AUC", value=0.7,
        ci_low=0.6, ci_high=0.8, chance=0.5, verdict=verdict,  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_best_baseline_is_the_strongest_one_wherever_it_is_listed() -> None:
    from benchmark.metaeval.judge_cards import verdict
    from benchmark.models.cards import SetFigure, best_baseline

    # the strongest is neither first, nor last, nor first or last by name
    baselines: dict[str, float | None] = {
        "word overlap": 0.60,
        "plain cosine": 0.85,
        "hypothesis length": 0.70,
        "majority": None,
    }
    assert best_baseline(baselines) == ("plain cosine", 0.85)
    assert best_baseline({"a": None}) is None
    # the judge is compared with the strongest baseline, by the interval of the difference
    import numpy as np

    from benchmark.metaeval.judge_cards import auc_difference

    y = np.array([0, 1] * 50)
    noise = np.random.default_rng(0).random(100)
    scores = {
        "word overlap": list(noise),
        "plain cosine": list(y + noise),
        "hypothesis length": list(0.3 * y + noise),
    }
    got = auc_difference(list(y), list(0.5 * y + noise), scores)
    assert got is not None and got[1] == "plain cosine" and got[4] < 0
    below = ("ROC AUC", "plain cosine", -0.05, -0.09, -0.01)
    level = ("ROC AUC", "plain cosine", 0.02, -0.01, 0.05)
    above = ("ROC AUC", "plain cosine", 0.05, 0.01, 0.09)
    assert verdict(10, 0.80, (0.72, 0.88), 0.5, [above, below])[0] == "below a baseline"
    assert verdict(10, 0.80, (0.72, 0.88), 0.5, [above, level])[0] == "no better than a baseline"
    assert verdict(10, 0.90, (0.82, 0.96), 0.5, [above])[0] == "informative"
    assert verdict(10, 0.80, (0.45, 0.88), 0.5, [above])[0] == "at chance"  # the interval reaches chance
    assert verdict(0, None, None, 0.5)[0] == "not measured — all items failed"
    line = SetFigure(
        set="sick", title="SICK", licence="CC", n=10, metric="ROC AUC", value=0.8, ci_low=0.72,
        ci_high=0.88, chance=0.5, baselines=baselines, verdict="below a baseline",
    ).line()  # fmt: skip
    assert "best baseline plain cosine 0.850" in line


@pytest.mark.parametrize(
    ("verdicts", "role_verdict"),
    [
        (["informative", "below a baseline", "at chance"], "at chance"),
        (["at chance", "informative", "below a baseline"], "at chance"),
        (["below a baseline", "at chance"], "at chance"),
        (["informative", "below a baseline"], "below a baseline"),
        (["below a baseline", "informative"], "below a baseline"),
        (["informative", "informative"], "informative"),
        ([], "not measured here"),
    ],
)
def test_a_roles_verdict_is_its_worst_sets(verdicts: list[str], role_verdict: str) -> None:
    from benchmark.metaeval.judge_cards import measure
    from benchmark.models.cards import worst
    from benchmark.models.profiles import load_profile

    figures = [_figure(v, f"set{i}") for i, v in enumerate(verdicts)]
    assert worst(figures) == role_verdict
    if not figures:
        return
    card = measure(
        load_profile(), {}, {}, None, ["argument-quality"], figures={"argument-quality": ("judge", figures)}
    )
    role = card.role("argument-quality")
    assert role is not None and role.verdict == role_verdict


# -- the dry run: exact / estimate, "(est.)", and what is already done --------------------------


def _printed(rows: list[Any], **plan: Any) -> str:
    from benchmark.scoring.dry_run import DryRun, print_plan

    buf = io.StringIO()
    print_plan(DryRun(rows=rows, judge="p@1", **plan), Console(file=buf, width=400, color_system=None))
    return buf.getvalue()


def _line(text: str, stage: str) -> str:
    (line,) = [ln for ln in text.splitlines() if f" {stage} " in ln]
    return line


def test_stages_before_a_placeholder_are_exact_after_one_an_estimate_and_uncounted_tokens_say_est(
    tmp_path: Path,
) -> None:
    from benchmark.models.cache import ModelCallCache, stage
    from benchmark.models.llm import NAMESPACE
    from benchmark.models.profiles import load_profile
    from benchmark.scoring.dry_run import Planner, TokenCounter, _rows

    cache = ModelCallCache(tmp_path / "c.sqlite")
    cache.cached_batch("entail", "nli", ["known"], lambda b: [0.5])  # one pair cached before the plan
    judges = SimpleNamespace(cache=cache, profile=load_profile())
    planner = Planner(judges, TokenCounter(object()))  # type: ignore[arg-type]  # no tokenizer: estimated
    cache.planner = planner
    before = {k: list(v) for k, v in cache.stats.by_stage.items()}
    planner.start_family()
    planner.new_batch()
    with stage("claims"):  # first: answered from the cache, and a placeholder for the new pair
        cache.cached_batch("entail", "nli", ["known", "new"], lambda b: b)
    with stage("aspects"):  # after a placeholder: an estimate
        cache.cached_batch(NAMESPACE, "llm", [{"messages": [{"role": "user", "content": "x" * 40}]}], list)
    job = SimpleNamespace(task=SimpleNamespace(id="t"), model=SimpleNamespace(label="m"))
    rows = {r.stage: r for r in _rows(job, "icat", judges, planner, before)}  # type: ignore[arg-type]
    assert rows["claims"].exact and rows["claims"].tokens_counted  # entailment: no tokens to count
    assert (rows["claims"].requests, rows["claims"].cached) == (2, 1)
    assert not rows["aspects"].exact and not rows["aspects"].tokens_counted
    text = _printed(list(rows.values()))
    claims, aspects = _line(text, "claims"), _line(text, "aspects")
    assert "exact" in claims and "estimate" not in claims and "(est.)" not in claims
    assert "estimate" in aspects and "exact" not in aspects and "10 (est.)" in aspects
    assert "'estimate' rows come after a request the cache could not answer" in text


def test_the_printed_basis_follows_each_rows_flags() -> None:
    from benchmark.models.llm import NAMESPACE
    from benchmark.scoring.dry_run import StageRow

    rows = [
        StageRow("t", "m", "icat", "counted", NAMESPACE, 2, 0, prompt_tokens=1234, tokens_counted=True),
        StageRow("t", "m", "icat", "guessed", NAMESPACE, 2, 0, prompt_tokens=99, tokens_counted=False),
        StageRow("t", "m", "icat", "later", NAMESPACE, 2, 1, prompt_tokens=7, exact=False, pending=2),
    ]
    text = _printed(rows)
    counted, guessed, later = (_line(text, s) for s in ("counted", "guessed", "later"))
    assert "1,234" in counted and "(est.)" not in counted and "exact" in counted
    assert "99 (est.)" in guessed and "exact" in guessed and "estimate" not in guessed
    assert "7 " in later and "(est.)" not in later and "estimate; 2 replies pending" in later
    # only estimate rows earn the note on what an estimate assumes
    assert "'estimate' rows" in text and "'estimate' rows" not in _printed(rows[:2])


def test_a_dry_run_counts_as_done_only_queries_checkpointed_for_these_answers(tmp_path: Path) -> None:
    from benchmark.scoring.dry_run import plan_jobs
    from benchmark.scoring.run import Job

    task, answers, judges = _mock(tmp_path)
    family = REGISTRY["nuggets"]
    model = ModelInfo(id="mock/model")
    root = tmp_path / "results"

    def plan(these: dict[str, str]) -> tuple[Any, tuple[int, int]]:
        job = Job(task, these, model, None, [(family, family.settings_model())])
        found = plan_jobs([job], judges, results_root=root, options=RunOptions(progress=False))
        return found, found.queries[(task.id, model.label, "nuggets")]

    assert plan(answers)[1] == (2, 0)  # nothing checkpointed: both to score
    _score_nuggets(task, answers, judges, root)
    done, counts = plan(answers)
    assert counts == (0, 2) and done.rows == []
    assert f"nuggets · {task.id} · {model.label}: all 2 queries already checkpointed" in _printed(
        done.rows, queries=done.queries
    )
    # an answer changed since the checkpoint is not done: it is to be scored again
    changed, counts = plan({**answers, "q1": CHANGED})
    assert counts == (1, 1)
    assert "already checkpointed" not in _printed(changed.rows, queries=changed.queries)


# -- nuggetizer files: a blank nugget text, a topic listed twice --------------------------------


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _where(problem: Any) -> tuple[str, int | None, str | None]:
    return Path(problem.file).name, problem.line, problem.field


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_nugget_text_is_refused_by_file_line_and_field(tmp_path: Path, blank: str) -> None:
    from benchmark.families.nuggets.nuggetizer_files import read_assignments, read_nuggets

    path = _lines(
        tmp_path / "nuggets.jsonl",
        [
            {"qid": "q1", "nuggets": [{"text": "Fact one.", "importance": "vital"}]},
            {"qid": "q2", "nuggets": [{"text": "Fact.", "importance": "okay"}, {"text": blank, "importance": "vital"}]},
        ],
    )  # fmt: skip
    with pytest.raises(InputError) as err:
        read_nuggets(path)
    (problem,) = err.value.problems
    assert _where(problem) == ("nuggets.jsonl", 2, "nuggets[1].text")
    labelled = _lines(
        tmp_path / "assigned.jsonl",
        [{"qid": "q1", "nuggets": [{"text": blank, "importance": "okay", "assignment": "support"}]}],
    )
    with pytest.raises(InputError) as err:
        read_assignments(labelled)
    (problem,) = err.value.problems
    assert _where(problem) == ("assigned.jsonl", 1, "nuggets[0].text")


@pytest.mark.parametrize("again", ["q2", 2], ids=["same-id", "same-id-as-a-number"])
def test_a_topic_listed_twice_is_refused_by_file_line_and_field(tmp_path: Path, again: Any) -> None:
    from benchmark.families.nuggets.nuggetizer_files import read_nuggets

    path = _lines(
        tmp_path / "nuggets.jsonl",
        [
            {"qid": "2" if again == 2 else "q2", "nuggets": [{"text": "First list.", "importance": "vital"}]},
            {"qid": "q1", "nuggets": [{"text": "Fact one.", "importance": "vital"}]},
            {"qid": again, "nuggets": [{"text": "Second list.", "importance": "okay"}]},
        ],
    )  # fmt: skip
    with pytest.raises(InputError) as err:  # refused whole: neither list is kept, nor merged
        read_nuggets(path)
    (problem,) = err.value.problems
    assert _where(problem) == ("nuggets.jsonl", 3, "qid")
    assert "appears twice" in problem.message and str(again) in problem.message


# -- an honest reply that shares a few words with the example is no copy ------------------------


def test_an_honest_reply_sharing_words_with_the_example_is_not_a_copy() -> None:
    """The aspects prompt's example is about electric cars; an honest list for electric bikes
    shares many of its words, and no line of it."""
    from benchmark.models import example_copies
    from benchmark.models.prompts import load_prompt
    from benchmark.models.structured import run_structured

    prompt = load_prompt("aspects@1")
    example = prompt.examples[0][1]
    messages = prompt.render(query="electric bikes", max_aspects=6)
    honest = (
        "- How electric bikes work and how they differ from ordinary bikes\n"
        "- Driving range and battery life of electric bikes\n"
        "- Charging electric bikes at home\n"
        "- Purchase price of electric bikes"
    )
    request = example_copies.request_text(messages)
    assert example_copies.copied(honest, [example], request) is None
    (out,) = run_structured(FakeLLM(reply=lambda _m: honest), [messages], lambda s: s, max_retries=1)
    assert out.ok and out.copies == 0 and out.value == honest and not out.matched_example


def test_a_shared_line_is_a_copy_from_four_words_up() -> None:
    """A line of the reply equal to a line of the example (that the request does not say)
    is a copy only from :data:`COPIED_PART_WORDS` words: shorter phrases recur by chance."""
    from benchmark.models import example_copies

    assert example_copies.COPIED_PART_WORDS == 4
    example = "- Running costs per year\n- Driving range of the car\n- Battery swap stations nationwide today"
    request = "query: zebras"
    for shared, words in (("Running costs per year", 4), ("Driving range of the car", 5)):
        reply = f"- {shared}\n- Zebra stripes and what they are for"
        assert example_copies.copied(reply, [example], request) == repr(shared.lower()), words
    for shared in ("Battery swap stations", "Running costs"):  # three words, two words: chance
        reply = f"- {shared}\n- Zebra stripes and what they are for"
        assert example_copies.copied(reply, [example], request) is None, shared


# -- a hard-linked file that is otherwise valid -------------------------------------------------


def test_a_hard_linked_outputs_file_is_refused_though_its_content_is_valid(tmp_path: Path) -> None:
    """git cannot carry a hard link, so a submission never holds one, valid content or not."""
    from benchmark.board.submissions import validate_submission
    from tests.unit.test_submissions import TASK, make

    folder = make(tmp_path)
    validate_submission(folder)  # valid as written
    outputs = folder / f"{TASK}.jsonl"
    os.link(outputs, tmp_path / "elsewhere.jsonl")  # the same, valid, bytes under a second name
    assert outputs.stat().st_nlink == 2
    with pytest.raises(InputError) as err:
        validate_submission(folder)
    linked = [p for p in err.value.problems if "hard link" in p.message]
    assert [p.file.rsplit("/", 1)[-1] for p in linked] == [f"{TASK}.jsonl"]
    (tmp_path / "elsewhere.jsonl").unlink()
    validate_submission(folder)  # one name again: accepted


# -- RAG diagnostics: context, self-knowledge, hallucination ------------------------------------


def test_rag_diagnostics_count_each_category_under_its_own_name() -> None:
    """One sentence from the given passages, two from the corpus only, three from neither:
    shares 1/6, 2/6 and 3/6, so no two categories can be swapped unnoticed."""
    from benchmark.families.attribution.judges import EntailmentSupport
    from benchmark.families.attribution.pipeline import AttributionState, Diagnostics, score_batch
    from benchmark.families.attribution.views import trace_html

    texts = {"A": "Paris is the capital of France.", "B": "The Seine flows through Paris."}
    capital, lyon, rhone = "Paris is the capital.", "Lyon is in France.", "The Rhone is a river."
    made_up = ["The moon is cheese.", "Cats can fly.", "Rain is dry."]
    corpus_text = {lyon: "Lyon is a French city.", rhone: "The Rhone flows to the sea."}
    ent = FakeEntailment(
        {
            (texts["A"], capital): 0.9,
            ("Paris is the capital city of France.", capital): 0.9,  # the corpus says it too
            **{(text, s): 0.9 for s, text in corpus_text.items()},
        }
    )
    hits = {
        capital: [("P#0", "P", "Paris is the capital city of France.")],
        **{s: [(f"{s[:4]}#0", s[:4], text)] for s, text in corpus_text.items()},
        **{s: [] for s in made_up},
    }
    state = AttributionState(EntailmentSupport(ent), texts.get, {"q": ["A", "B"]}, {})
    state.diagnostics = Diagnostics(ent, FakeRetriever(hits), 5, relevant={"q": {"A"}})  # type: ignore[arg-type]
    answer = f"{capital} [1] {lyon} {rhone} " + " ".join(made_up)
    (t,) = score_batch(state, [("q", "x", answer)])
    assert [s.source for s in t.sentences] == ["context", "corpus", "corpus", "neither", "neither", "neither"]
    assert t.scores["faithfulness"] == pytest.approx(1 / 6)
    assert t.scores["self_knowledge"] == pytest.approx(2 / 6)
    assert t.scores["hallucination"] == pytest.approx(3 / 6)
    assert t.scores["context_utilisation"] == 1.0 and not t.failures
    html = trace_html(t.model_dump(mode="json"))
    assert html.count("support from: the corpus only (self-knowledge)") == 2
    assert html.count("support from: neither (hallucination)") == 3
    assert html.count("support from: a passage it was given") == 1
