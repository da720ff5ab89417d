"""The TREC RAG track's run checkers against groundcover's reader, variation by variation.

The differential suite: every run-file variation of :mod:`tests.conformance.trec_rag_variations`
(clean 2024 and 2025 lines changed field by field, and the file as a whole: blank lines,
repeats, keys, encodings, sizes, limits) is read by groundcover, by default and with
``--trec-rag-strict``, and compared with the verdict of the track's own checker on the very
same bytes (castorini/ragnarok's ``check_rag24_run`` / ``validate_rag25_entries`` at the
commit docs/conformance.md cites, run by that module's ``record`` command and kept in
``tests/fixtures/trec_rag/checker_verdicts.json``).  Strict mode refuses everything the
checker refuses; every other difference must be a departure listed in docs/conformance.md's
table (variation pattern, the three verdicts), and every listed departure must still occur.

Verdicts: ``error`` (the file is refused, the problem named by line and field),
``warning`` (scored; the warning printed and repeated in the run summary), ``ok``.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchmark.answers.trec_rag_run import WORD_LIMIT, TrecRagRun, read_trec_rag_run, words
from benchmark.core.errors import InputError
from benchmark.tasks import load_task
from tests.conformance import trec_rag_variations as gen

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs" / "conformance.md"

T24 = load_task("trec-rag24").query_texts()
T25 = load_task("trec-rag25").query_texts()
Q24, Q25 = list(gen.Q24), list(gen.Q25)
TOPICS24 = {q: T24[q] for q in Q24}
TOPICS25 = {q: T25[q] for q in Q25}
REFS = gen.REFS
LENGTH = gen.LENGTH
DROP = object()


def line24(q: str = Q24[0], **over: Any) -> dict[str, Any]:
    row = gen.line24({**T24, q: T24.get(q, "an unknown topic")}, q)
    row.update(over)
    return {k: v for k, v in row.items() if v is not DROP}


def line25(q: str = Q25[0], meta: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    row = gen.line25({**T25, q: T25.get(q, "an unknown topic")}, q)
    md = {**row["metadata"], **(meta or {})}
    row["metadata"] = {k: v for k, v in md.items() if v is not DROP}
    row.update(over)
    return {k: v for k, v in row.items() if v is not DROP}


LONG = [{"text": " ".join(["word"] * 150) + ".", "citations": [0]} for _ in range(3)]  # 450 words


def write(path: Path, rows: list[Any], *, newline: str = "\n", bom: bool = False, gz: bool = False) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + newline for r in rows)
    data = (("\ufeff" if bom else "") + text).encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


ids24 = [line24(Q24[1])]  # a clean second topic
ids25 = [line25(Q25[1])]


def verdict(path: Path, year: int, **kw: Any) -> tuple[str, set[str | None], list[TrecRagRun]]:
    topics = kw.pop("topics", TOPICS24 if year == 2024 else TOPICS25)
    try:
        runs = read_trec_rag_run(path, year=year, topics=topics, **kw)
    except InputError as err:
        return "error", {p.field for p in err.problems}, []
    fields = {w.field for r in runs for w in r.warnings}
    return ("warning" if any(r.warnings for r in runs) else "ok"), fields, runs


# -- the differential suite ----------------------------------------------------------------------

RECORDED = json.loads(gen.FIXTURE.read_text(encoding="utf-8"))
VARIATIONS = gen.variations(T24, T25)
TOPIC_SETS = gen.topic_sets(T24, T25)


@dataclass(frozen=True)
class Compared:
    variation: gen.Variation
    checker: str
    default: str
    strict: str
    #: groundcover's problems (default mode): (field, message)
    problems: tuple[tuple[str | None, str], ...]

    @property
    def verdicts(self) -> tuple[str, str, str]:
        return self.checker, self.default, self.strict

    @property
    def agrees(self) -> bool:
        return self.default == self.checker and self.strict == self.checker


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> list[Compared]:
    out = []
    for n, var in enumerate(VARIATIONS):
        folder = tmp_path_factory.mktemp(f"v{n}", numbered=False)
        path = folder / var.name
        path.write_bytes(var.data)
        topics = TOPIC_SETS[(var.year, var.topics)]
        default, _, _ = verdict(path, var.year, topics=topics)
        problems = _problems(path, var.year, topics)
        strict, _, _ = verdict(path, var.year, topics=topics, strict=True)
        out.append(Compared(var, RECORDED["variations"][var.id]["verdict"], default, strict, problems))
    return out


def _problems(path: Path, year: int, topics: dict[str, str]) -> tuple[tuple[str | None, str], ...]:
    try:
        runs = read_trec_rag_run(path, year=year, topics=topics)
    except InputError as err:
        return tuple((p.field, p.message) for p in err.problems)
    return tuple((w.field, w.message) for r in runs for w in r.warnings)


def departures() -> list[tuple[str, list[str], tuple[str, str, str]]]:
    """docs/conformance.md's departure table: (departure, variation patterns, (checker,
    default, strict)) per row."""
    section = DOCS.read_text(encoding="utf-8").split("## TREC RAG run files", 1)[1].split("\n## ", 1)[0]
    table = section.split("### Every difference from the checker", 1)[1]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"\d+", cells[0]):
            patterns = re.findall(r"`([^`]+)`", cells[1])
            triple = tuple(c.strip("` ").lower().split()[0] for c in cells[2:5])
            rows.append((cells[0], patterns, triple))  # type: ignore[arg-type]
    assert rows, "docs/conformance.md: the departure table is missing"
    return rows  # type: ignore[return-value]


def _matches(pattern: str, variation_id: str) -> bool:
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), variation_id) is not None


def test_the_fixture_holds_the_checkers_verdicts_on_these_very_files() -> None:
    """The verdicts were recorded from the ragnarok commit the docs cite, by this generator's
    version, on files with these bytes: a changed variation must be recorded again."""
    assert RECORDED["ragnarok_commit"] == gen.RAGNAROK_COMMIT
    assert f"castorini/ragnarok at commit `{gen.RAGNAROK_COMMIT}`" in DOCS.read_text(encoding="utf-8")
    assert RECORDED["generator_version"] == gen.GENERATOR_VERSION
    recorded = {k: v["sha256"] for k, v in RECORDED["variations"].items()}
    assert recorded == {v.id: v.sha256 for v in VARIATIONS}, (
        "the variations changed: bump GENERATOR_VERSION and record the checker's verdicts again "
        "(tests/conformance/trec_rag_variations.py says how)"
    )


def test_strict_mode_refuses_everything_the_checker_refuses(compared: list[Compared]) -> None:
    let_through = [c.variation.id for c in compared if c.checker == "error" and c.strict != "error"]
    assert not let_through, f"--trec-rag-strict reads what the checker refuses: {let_through}"


def test_every_difference_from_the_checker_is_a_documented_departure(compared: list[Compared]) -> None:
    rows = departures()
    undocumented = [
        f"{c.variation.id}: checker {c.checker}, default {c.default}, strict {c.strict} — {c.problems[:2]}"
        for c in compared
        if not c.agrees
        and not any(
            triple == c.verdicts and any(_matches(p, c.variation.id) for p in patterns)
            for _, patterns, triple in rows
        )
    ]
    assert not undocumented, f"{len(undocumented)} undocumented difference(s):\n" + "\n".join(undocumented)


def test_every_documented_departure_occurs(compared: list[Compared]) -> None:
    """A row of the table that no variation shows any more is stale."""
    for number, patterns, triple in departures():
        for pattern in patterns:
            seen = [c for c in compared if _matches(pattern, c.variation.id) and c.verdicts == triple]
            assert seen, f"departure {number}: no variation {pattern} with verdicts {triple}"


def test_the_docs_state_the_suites_counts(compared: list[Compared]) -> None:
    counts = Counter("agree" if c.agrees else "depart" for c in compared)
    text = DOCS.read_text(encoding="utf-8")
    stated = (
        f"**{len(compared)} variations**: {counts['agree']} agree, {counts['depart']} depart as documented"
    )
    assert stated in text, f"docs/conformance.md should say: {stated}"


def test_an_error_names_the_field_it_varies(compared: list[Compared]) -> None:
    """Where a field's variation is refused, a problem names that field, its list or the
    object it lies in (as the file spells it), the line (a JSON error), or — a changed
    ``references`` — the citations that no longer point into it."""

    def related(named: str | None, varied: str) -> bool:
        if named is not None and varied.startswith("references") and named.endswith(".citations"):
            return True
        return named is None or varied.startswith(named) or named.startswith(varied)

    unnamed = [
        f"{c.variation.id}: {c.problems[:3]}"
        for c in compared
        if c.default == "error"
        and c.variation.field is not None
        and not any(related(f, c.variation.field) for f, _ in c.problems)
    ]
    assert not unnamed, "\n".join(unnamed)


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
    assert [r.run_id for r in runs] == ["gc-diff-24", "other"]
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


# -- rules each pinned by a test (issue 48, item 5: a one-line change to each went unnoticed) -----


def test_an_answer_of_exactly_400_words_after_truncation_keeps_its_last_sentence(tmp_path: Path) -> None:
    """300 + 100 + 5 words: the fix drops the 5 and stops at 400, the limit (not over it)."""
    sentences = [{"text": " ".join(["w"] * n), "citations": [0]} for n in (300, 100, 5)]
    path = write(tmp_path / "r.jsonl", [line24(answer=sentences, response_length=405), *ids24])
    _, _, (run,) = verdict(path, 2024)
    topic = run.topics[Q24[0]]
    assert [words(s.text) for s in topic.sentences] == [300, 100]
    assert (topic.words_cut, topic.sentences_cut) == (5, 1)


def test_a_gzipped_run_is_recognised_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    rows = [line24(), *ids24]
    packed = write(tmp_path / "run.jsonl", rows, gz=True)  # gzip bytes, a plain name
    plain = write(tmp_path / "run.jsonl.gz", rows)  # plain text, a gzip name
    for path in (packed, plain):
        _, _, (run,) = verdict(path, 2024)
        assert sorted(run.topics) == sorted(Q24)
    assert any("gzip" in w.message for w in verdict(packed, 2024)[2][0].warnings)
    assert not any("gzip" in w.message for w in verdict(plain, 2024)[2][0].warnings)


def test_u2028_inside_a_json_string_does_not_split_a_line(tmp_path: Path) -> None:
    """Lines end at \\n, \\r\\n and \\r, as Python's text files (the checkers') end them."""
    answer = [{"text": "It usually\u2028signals an\u0085infection.", "citations": [0]}]
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        (
            json.dumps(line24(answer=answer, response_length=5), ensure_ascii=False)
            + "\r"
            + json.dumps(ids24[0])
        ).encode("utf-8")
    )
    got, fields, runs = verdict(path, 2024)
    assert got == "ok", fields
    assert sorted(runs[0].topics) == sorted(Q24)
    assert runs[0].topics[Q24[0]].sentences[0].text == answer[0]["text"]


def test_reading_for_the_format_only_refuses_a_repeated_reference(tmp_path: Path) -> None:
    """Without a track year (any task but trec-rag24/25), a segment id given twice is an
    error: index citations would point at one passage under two numbers."""
    path = write(tmp_path / "r.jsonl", [line24(references=[REFS[0], *REFS])])
    with pytest.raises(InputError, match="repeated in references") as err:
        read_trec_rag_run(path)
    assert [p.field for p in err.value.problems] == ["references"]


def test_truncated_and_untruncated_scores_never_share_an_entry(tmp_path: Path) -> None:
    """--no-truncate scores other answers than the track's: another result file and label."""
    from benchmark.answers.read import read_answers
    from benchmark.core.results import result_path

    path = write(tmp_path / "r.jsonl", [line24(answer=LONG, response_length=450), *ids24])
    task = load_task("trec-rag24")
    (cut,) = read_answers(path, task, trec_rag_run=True)
    (whole,) = read_answers(path, task, trec_rag_run=True, truncate=False)
    assert cut.answers[Q24[0]] != whole.answers[Q24[0]]
    assert cut.model.label != whole.model.label
    paths = {result_path(tmp_path, s.model, "p", task.id, "nuggets") for s in (cut, whole)}
    assert len(paths) == 2


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
