"""The TREC RAG track's run checkers, rule by rule, against groundcover's reader.

Each case is a run file written by hand from the track guidelines (trec-rag.github.io,
"TREC 2024 RAG Track Guidelines" v1.0 and "TREC 2025 RAG Track Guidelines" v2.0) with one
quirk, and two verdicts: what the official checker does with it (castorini/ragnarok
``src/ragnarok/scripts/rag24_validation.py`` / ``rag25_validation.py`` at commit
7233fa742e47055865c7f85b1f9c8f0558bfdbbf, read, not copied; run on these files by hand,
see docs/conformance.md) and what groundcover does.  ``CHECKER`` holds the checker's
verdicts, so the table in docs/conformance.md and these tests cannot drift apart
(``test_the_docs_table_lists_every_case``).

Verdicts: ``error`` (the file is refused, the problem named by line and field),
``warning`` (scored; the warning printed and repeated in the run summary), ``ok``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.answers.trec_rag_run import WORD_LIMIT, TrecRagRun, read_trec_rag_run, words
from benchmark.core.errors import InputError
from benchmark.tasks import load_task

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs" / "conformance.md"

T24 = load_task("trec-rag24").query_texts()
T25 = load_task("trec-rag25").query_texts()
Q24 = ["2024-105741", "2024-109837"]
Q25 = ["100", "1001"]
TOPICS24 = {q: T24[q] for q in Q24}
TOPICS25 = {q: T25[q] for q in Q25}
REFS = [f"msmarco_v2.1_doc_{i:02d}_{1000 + i}#{i}_{2000 + i}" for i in range(3)]
SENTENCES = [
    {"text": "A white blood cell count above 11,000 is called leukocytosis.", "citations": [0, 1]},
    {"text": "It usually signals an infection.", "citations": [2]},
]
LENGTH = sum(words(s["text"]) for s in SENTENCES)  # 15


def line24(q: str = Q24[0], **over: Any) -> dict[str, Any]:
    row = {
        "run_id": "gc-hand-24",
        "topic_id": q,
        "topic": T24.get(q, "an unknown topic"),
        "references": list(REFS),
        "response_length": LENGTH,
        "answer": json.loads(json.dumps(SENTENCES)),
    }
    row.update(over)
    return {k: v for k, v in row.items() if v is not DROP}


def line25(q: str = Q25[0], meta: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    md = {
        "team_id": "gc",
        "run_id": "gc-hand-25",
        "type": "automatic",
        "narrative_id": q,
        "narrative": T25.get(str(q), "an unknown topic"),
        "prompt": "Answer the narrative from the segments, citing them.",
    }
    md.update(meta or {})
    row = {
        "metadata": {k: v for k, v in md.items() if v is not DROP},
        "references": list(REFS),
        "answer": json.loads(json.dumps(SENTENCES)),
    }
    row.update(over)
    return {k: v for k, v in row.items() if v is not DROP}


DROP = object()
LONG = [{"text": " ".join(["word"] * 150) + ".", "citations": [0]} for _ in range(3)]  # 450 words


def write(path: Path, rows: list[Any], *, newline: str = "\n", bom: bool = False, gz: bool = False) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + newline for r in rows)
    data = (("\ufeff" if bom else "") + text).encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# -- the cases: (id, year, rows, checker's verdict, ours, field, write options) ------------------

Case = tuple[str, int, list[Any], str, str, str | None, dict[str, Any]]
ids24 = [line24(Q24[1])]  # every 2024 case has a clean second topic
ids25 = [line25(Q25[1])]
CASES: list[Case] = [
    ("clean", 2024, [line24(), *ids24], "ok", "ok", None, {}),
    ("invalid JSON", 2024, ["{not json", *ids24], "error", "error", None, {}),
    *[
        (f"missing {k}", 2024, [line24(**{k: DROP}), *ids24], "error", "error", k, {})
        for k in ("run_id", "topic_id", "topic", "references", "response_length", "answer")
    ],
    ("several run_ids", 2024, [line24(), line24(Q24[1], run_id="other")], "error", "warning", "run_id", {}),
    ("unknown topic", 2024, [line24("2024-999999"), *ids24], "error", "error", "topic_id", {}),
    ("topic_id as a number", 2024, [line24(topic_id=2024), *ids24], "error", "error", "topic_id", {}),
    ("topic text differs", 2024, [line24(topic="wbc?"), *ids24], "error", "error", "topic", {}),
    (
        "docid not an MS MARCO v2.1 segment",
        2024,
        [line24(references=["doc1", *REFS[1:]]), *ids24],
        "error",
        "error",
        "references",
        {},
    ),
    (
        "reference repeated",
        2024,
        [line24(references=[REFS[0], *REFS]), *ids24],
        "error",
        "error",
        "references",
        {},
    ),
    (
        "21 references (limit 20)",
        2024,
        [line24(references=[f"msmarco_v2.1_doc_00_1#{i}_{i}" for i in range(21)]), *ids24],
        "error",
        "error",
        "references",
        {},
    ),
    (
        "response_length over 400",
        2024,
        [line24(response_length=401), *ids24],
        "warning",
        "warning",
        "response_length",
        {},
    ),
    (
        "response_length wrong",
        2024,
        [line24(response_length=LENGTH + 1), *ids24],
        "warning",
        "warning",
        "response_length",
        {},
    ),
    (
        "citation out of range",
        2024,
        [line24(answer=[{"text": "x y", "citations": [3]}], response_length=2), *ids24],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "citation negative",
        2024,
        [line24(answer=[{"text": "x y", "citations": [-1]}], response_length=2), *ids24],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "citation repeated in a sentence",
        2024,
        [line24(answer=[{"text": "x y", "citations": [0, 0]}], response_length=2), *ids24],
        "warning",
        "warning",
        "answer[0].citations",
        {},
    ),
    (
        "sentence without citations key",
        2024,
        [line24(answer=[{"text": "x y"}], response_length=2), *ids24],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "citations as segment ids (2024)",
        2024,
        [line24(answer=[{"text": "x y", "citations": [REFS[0]]}], response_length=2), *ids24],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "answer over 400 words",
        2024,
        [line24(answer=LONG, response_length=450), *ids24],
        "warning",
        "warning",
        "answer",
        {},
    ),
    (
        "empty answer list",
        2024,
        [line24(answer=[], response_length=0), *ids24],
        "ok",
        "warning",
        "answer",
        {},
    ),
    ("topic answered twice", 2024, [line24(), line24(), *ids24], "error", "error", None, {}),
    ("a topic not answered", 2024, [line24()], "warning", "warning", None, {}),
    ("gzip file (.jsonl.gz)", 2024, [line24(), *ids24], "error", "ok", None, {"gz": True}),
    ("CRLF line ends", 2024, [line24(), *ids24], "ok", "ok", None, {"newline": "\r\n"}),
    ("byte-order mark", 2024, [line24(), *ids24], "error", "warning", None, {"bom": True}),
    ("2025 layout on 2024", 2024, [line25(), *ids24], "error", "error", "run_id", {}),
    (
        "RAGTIME/DRAGUN/BioGen layout on 2024",
        2024,
        [
            {
                "metadata": {"team_id": "t", "run_id": "r", "topic_id": Q24[0]},
                "responses": [{"text": "x", "citations": {REFS[0]: 0.9}}],
                "references": [REFS[0]],
            },
            *ids24,
        ],
        "error",
        "error",
        "run_id",
        {},
    ),
    # -- 2025 ------------------------------------------------------------------------------------
    ("clean", 2025, [line25(), *ids25], "ok", "ok", None, {}),
    (
        "citations as segment ids (format 2)",
        2025,
        [
            line25(answer=[{"text": "x y", "citations": [REFS[1], REFS[0]]}]),
            line25(Q25[1], answer=[{"text": "x y", "citations": [REFS[2]]}]),
        ],
        "ok",
        "ok",
        None,
        {},
    ),
    (
        "metadata missing team_id",
        2025,
        [line25(meta={"team_id": DROP}), *ids25],
        "error",
        "error",
        "metadata.team_id",
        {},
    ),
    (
        "metadata missing narrative_id",
        2025,
        [line25(meta={"narrative_id": DROP}), *ids25],
        "error",
        "error",
        "metadata.narrative_id",
        {},
    ),
    (
        "type not manual/automatic",
        2025,
        [line25(meta={"type": "hybrid"}), *ids25],
        "error",
        "error",
        "metadata.type",
        {},
    ),
    (
        "optional type, narrative, prompt missing",
        2025,
        [line25(meta={"type": DROP, "narrative": DROP, "prompt": DROP}), *ids25],
        "warning",
        "warning",
        "metadata.prompt",
        {},
    ),
    (
        "unknown narrative_id",
        2025,
        [line25(meta={"narrative_id": "99999"}), *ids25],
        "error",
        "error",
        "metadata.narrative_id",
        {},
    ),
    ("narrative_id as a number", 2025, [line25(meta={"narrative_id": 100}), *ids25], "ok", "ok", None, {}),
    (
        "narrative differs",
        2025,
        [line25(meta={"narrative": "x"}), *ids25],
        "ok",
        "warning",
        "metadata.narrative",
        {},
    ),
    (
        "docid not an MS MARCO v2.1 segment",
        2025,
        [line25(references=["doc1", *REFS[1:]]), *ids25],
        "warning",
        "warning",
        "references",
        {},
    ),
    (
        "reference repeated",
        2025,
        [line25(references=[*REFS, REFS[0]]), *ids25],
        "ok",
        "warning",
        "references",
        {},
    ),
    (
        "101 references (limit 100)",
        2025,
        [line25(references=[f"msmarco_v2.1_doc_00_1#{i}_{i}" for i in range(101)]), *ids25],
        "ok",
        "warning",
        "references",
        {},
    ),
    (
        "citation out of range",
        2025,
        [line25(answer=[{"text": "x", "citations": [7]}]), *ids25],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "cited segment not in references",
        2025,
        [line25(answer=[{"text": "x", "citations": ["msmarco_v2.1_doc_09_9#9_9"]}]), *ids25],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "index and segment-id citations mixed",
        2025,
        [
            line25(answer=[{"text": "x", "citations": [0]}]),
            line25(Q25[1], answer=[{"text": "x", "citations": [REFS[0]]}]),
        ],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    (
        "sentence without citations key",
        2025,
        [line25(answer=[{"text": "x"}]), *ids25],
        "error",
        "error",
        "answer[0].citations",
        {},
    ),
    ("no answer key", 2025, [line25(answer=DROP), *ids25], "ok", "warning", "answer", {}),
    (
        "several run_ids",
        2025,
        [line25(), line25(Q25[1], meta={"run_id": "other"})],
        "ok",
        "warning",
        "metadata.run_id",
        {},
    ),
    ("answer over 400 words", 2025, [line25(answer=LONG), *ids25], "ok", "warning", "answer", {}),
    ("topic answered twice", 2025, [line25(), line25(), *ids25], "ok", "error", None, {}),
    ("2024 layout on 2025", 2025, [line24(), *ids25], "error", "error", "metadata", {}),
    ("gzip file (.jsonl.gz)", 2025, [line25(), *ids25], "error", "ok", None, {"gz": True}),
    ("CRLF line ends", 2025, [line25(), *ids25], "ok", "ok", None, {"newline": "\r\n"}),
    ("byte-order mark", 2025, [line25(), *ids25], "error", "warning", None, {"bom": True}),
    ("empty answer list", 2025, [line25(answer=[]), *ids25], "ok", "warning", "answer", {}),
]
#: the checker's verdict, by (year, case): what the docs table shows
CHECKER = {(year, name): checker for name, year, _, checker, _, _, _ in CASES}


def verdict(path: Path, year: int, **kw: Any) -> tuple[str, set[str | None], list[TrecRagRun]]:
    topics = TOPICS24 if year == 2024 else TOPICS25
    try:
        runs = read_trec_rag_run(path, year=year, topics=topics, **kw)
    except InputError as err:
        return "error", {p.field for p in err.problems}, []
    fields = {w.field for r in runs for w in r.warnings}
    return ("warning" if any(r.warnings for r in runs) else "ok"), fields, runs


@pytest.mark.parametrize(
    ("name", "year", "rows", "checker", "ours", "field", "opts"),
    CASES,
    ids=[f"{c[1]}-{c[0]}" for c in CASES],
)
def test_each_checker_rule(
    tmp_path: Path,
    name: str,
    year: int,
    rows: list[Any],
    checker: str,
    ours: str,
    field: str | None,
    opts: dict[str, Any],
) -> None:
    path = write(tmp_path / ("run.jsonl.gz" if opts.get("gz") else "run.jsonl"), rows, **opts)
    got, fields, _ = verdict(path, year)
    assert got == ours, (name, fields)
    if field is not None:
        assert field in fields, (name, fields)


# -- what the cases score: truncation, empty answers, several runs, the departures' flags ----------


def test_an_answer_over_400_words_is_truncated_as_the_checker_truncates(tmp_path: Path) -> None:
    long = [*LONG, {"text": "Last.", "citations": [1]}]  # 451 words: the checker pops 'Last.', then 150
    path = write(tmp_path / "r.jsonl", [line24(answer=long, response_length=451), *ids24])
    _, _, (run,) = verdict(path, 2024)
    topic = run.topics[Q24[0]]
    assert (topic.length, topic.words_cut, topic.sentences_cut) == (451, 151, 2)
    assert sum(words(s.text) for s in topic.sentences) == 300 <= WORD_LIMIT
    facts = run.facts()
    assert (facts["answers_truncated"], facts["words_cut"], facts["truncated"]) == (1, 151, True)
    _, _, (whole,) = verdict(path, 2024, truncate=False)  # --no-truncate
    assert whole.topics[Q24[0]].words_cut == 0 and len(whole.topics[Q24[0]].sentences) == 4
    assert whole.facts()["answers_over_limit"] == 1 and whole.facts()["answers_truncated"] == 0
    assert any("--no-truncate" in w.message for w in whole.warnings)


def test_an_empty_answer_is_read_as_saying_nothing_and_recorded(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [line24(answer=[], response_length=0), *ids24])
    _, _, (run,) = verdict(path, 2024)
    assert run.topics[Q24[0]].answer == "" and run.empty == [Q24[0]]
    assert run.facts()["empty_answers"] == [Q24[0]]


def test_several_runs_in_a_file_are_each_scored_and_say_so(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [line24(), line24(Q24[1], run_id="other")])
    _, _, runs = verdict(path, 2024)
    assert [r.run_id for r in runs] == ["gc-hand-24", "other"]
    assert all(any("one run per file" in w.message for w in r.warnings) for r in runs)


@pytest.mark.parametrize(
    ("year", "rows", "opts"),
    [
        (2024, [line24(), line24(Q24[1], run_id="other")], {}),
        (2024, [line24(), *ids24], {"bom": True}),
        (2025, [line25(references=[f"msmarco_v2.1_doc_00_1#{i}_{i}" for i in range(101)]), *ids25], {}),
    ],
    ids=["several run_ids", "byte-order mark", "101 references"],
)
def test_strict_makes_each_departure_an_error(
    tmp_path: Path, year: int, rows: list[Any], opts: dict[str, Any]
) -> None:
    path = write(tmp_path / "r.jsonl", rows, **opts)
    assert verdict(path, year)[0] == "warning"
    assert verdict(path, year, strict=True)[0] == "error"  # --trec-rag-strict


def test_over_100_references_in_2025_are_trimmed_as_the_fix_trims_them(tmp_path: Path) -> None:
    refs = [f"msmarco_v2.1_doc_00_1#{i}_{i}" for i in range(102)]
    answer = [{"text": "x", "citations": [0, 100]}, {"text": "y", "citations": [101, 1]}]
    path = write(tmp_path / "r.jsonl", [line25(references=refs, answer=answer), *ids25])
    _, _, (run,) = verdict(path, 2025)
    topic = run.topics[Q25[0]]
    assert len(topic.references) == 100
    assert [s.citations for s in topic.sentences] == [(0,), (1,)]


def test_errors_name_file_line_and_the_field_the_file_uses(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [*ids25, line25(meta={"narrative_id": "99999"})])
    with pytest.raises(InputError) as err:
        read_trec_rag_run(path, year=2025, topics=TOPICS25)
    (p,) = err.value.problems
    assert (p.file.endswith("r.jsonl"), p.line, p.field) == (True, 2, "metadata.narrative_id")
    assert "line 2, field 'metadata.narrative_id'" in str(p)


def test_hltcoe_runs_are_read_without_a_track_year(tmp_path: Path) -> None:
    """RAGTIME / DRAGUN / BioGen (hltcoe rag-run-validator schema): read as runs, citations
    as {docid: score} ranked by score; refused on the TREC RAG tasks (a case above)."""
    row = {
        "metadata": {"team_id": "t", "run_id": "rt", "topic_id": "q1"},
        "responses": [
            {"text": "Alpha.", "citations": {"d2": 0.2, "d1": 0.9}},
            {"text": "Beta.", "citations": ["d2"]},
        ],
        "references": ["d1", "d2"],
    }
    request = {**row, "metadata": {"team_id": "t", "run_id": "rt", "request_id": "q2"}}
    (run,) = read_trec_rag_run(write(tmp_path / "r.jsonl", [row, request]))
    assert run.layout == "hltcoe" and run.team_id == "t" and sorted(run.topics) == ["q1", "q2"]
    assert [s.citations for s in run.topics["q1"].sentences] == [(0, 1), (1,)]
    both = {**row, "metadata": {**row["metadata"], "request_id": "x"}}
    with pytest.raises(InputError, match="exactly one of topic_id and request_id"):
        read_trec_rag_run(write(tmp_path / "b.jsonl", [both]))


def test_the_exported_assignment_file_carries_the_runs_id_and_text(tmp_path: Path) -> None:
    """nuggetizer assignment export: the run's own TREC run_id, the answer as the run gave
    it (no [n] markers), one file per run with --per-run."""
    from benchmark.cli.main import main
    from benchmark.core.results import ModelInfo
    from benchmark.families import REGISTRY
    from benchmark.scoring.runner import RunOptions, score_task
    from tests.unit.test_nuggets import contract_mock

    task, _, stack = contract_mock(tmp_path)
    rows = [
        {
            "run_id": run_id,
            "topic_id": "q1",
            "references": ["d1"],
            "answer": [
                {"text": "Tornadoes are caused by rotating storms.", "citations": [0]},
                {"text": "They are [1] loud.", "citations": []},
            ],
        }
        for run_id in ("run/a", "run-b")
    ]
    runs = read_trec_rag_run(write(tmp_path / "r.jsonl", rows), topics={"q1": "tornadoes", "q2": "figs"})
    for run in runs:
        score_task(
            REGISTRY["nuggets"], task, {q: t.answer for q, t in run.topics.items()}, stack,
            model=ModelInfo(id=f"team/{run.run_id}", revision="run", backend="trec-rag-run", generation=run.facts()),
            results_root=tmp_path / "results", options=RunOptions(progress=False),
        )  # fmt: skip
    out = tmp_path / "assignments"
    argv = [
        "nuggets",
        "export-assignments",
        "--results",
        str(tmp_path / "results"),
        "--per-run",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["run-b.jsonl", "run_a.jsonl"]
    for name, run_id in (("run_a.jsonl", "run/a"), ("run-b.jsonl", "run-b")):
        (rec,) = [json.loads(x) for x in (out / name).read_text().splitlines()]
        assert rec["run_id"] == run_id
        assert rec["answer_text"] == "Tornadoes are caused by rotating storms. They are [1] loud."


def test_the_docs_table_lists_every_case() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## TREC RAG run files", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0] in ("2024", "2025"):
            rows[(int(cells[0]), cells[1].strip("`"))] = (cells[2], cells[3])
    for name, year, _, checker, ours, _, _ in CASES:
        assert (year, name) in rows, f"docs/conformance.md lacks the case {year} / {name}"
        doc_checker, doc_ours = rows[(year, name)]
        assert doc_checker.lower().startswith(checker), (year, name, doc_checker)
        assert doc_ours.lower().startswith(ours), (year, name, doc_ours)


# -- the hand-written participant runs (tests/fixtures/trec_rag; docs/conformance.md) -------------

FIXTURES = REPO / "tests" / "fixtures" / "trec_rag"


def test_the_hand_written_2024_run_reads_with_the_checkers_warnings() -> None:
    """gzip, a byte-order mark and CRLF; a repeated citation, a wrong response_length, an
    answer of 432 words, an empty answer: all read, each said."""
    (run,) = read_trec_rag_run(FIXTURES / "run24.jsonl.gz", year=2024, topics=T24)
    said = {(w.line, w.field) for w in run.warnings}
    assert {(1, None), (1, "answer[1].citations"), (1, "response_length"), (2, "response_length")} <= said
    assert {(2, "answer"), (3, "answer"), (None, None)} <= said
    facts = run.facts()
    assert (facts["answers_truncated"], facts["words_cut"], facts["empty_answers"]) == (
        1,
        71,
        ["2024-105741"],
    )


def test_the_hand_written_2025_run_reads_with_the_checkers_warnings() -> None:
    """Format 2 (segment-id citations), narrative_id as a number, type missing, a repeated
    reference, an answer of 415 words, a line without an answer."""
    (run,) = read_trec_rag_run(FIXTURES / "run25.jsonl", year=2025, topics=T25)
    assert run.team_id == "groundcover" and sorted(run.topics) == ["2", "200", "31"]
    said = {(w.line, w.field) for w in run.warnings}
    assert {(1, "metadata.type"), (1, "references"), (2, "answer"), (3, "answer")} <= said
    facts = run.facts()
    assert (facts["answers_truncated"], facts["words_cut"], facts["empty_answers"]) == (1, 53, ["200"])


def test_the_command_line_refuses_what_the_checker_refuses_and_strict_the_departures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Errors stop `benchmark score --trec-rag-run` before any model loads, naming file,
    line and field; --trec-rag-strict refuses a departure (here: several run ids)."""
    from benchmark.cli.main import main

    base = ["score", "--tasks", "trec-rag24", "--results-dir", str(tmp_path / "res"), "--no-progress"]
    bad = write(tmp_path / "bad.jsonl", [line24(references=["doc1"]), *ids24])
    assert main([*base, "--trec-rag-run", str(bad)]) == 2
    assert "bad.jsonl, line 1, field 'references'" in capsys.readouterr().err
    two = write(tmp_path / "two.jsonl", [line24(), line24(Q24[1], run_id="other")])
    assert main([*base, "--trec-rag-run", str(two), "--trec-rag-strict"]) == 2
    assert "one run per file" in capsys.readouterr().err
    assert not (tmp_path / "res").exists()


def test_the_run_flags_apply_to_run_files_only(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmark.cli.main import main

    assert main(["score", "--outputs", "x.jsonl", "--tasks", "trec-rag24", "--no-truncate"]) == 2
    assert "field '--no-truncate': applies to --trec-rag-run only" in capsys.readouterr().err
