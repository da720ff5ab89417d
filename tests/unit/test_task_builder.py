"""``Task.from_records`` / ``benchmark tasks new``: inputs checked with file, line and field
before anything is written, mapped onto the registered tables, and a card that lists only
the families those inputs allow (end to end through ``benchmark score``:
tests/integration/test_own_task.py)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pandas as pd
import pytest
import yaml

from benchmark.cli.main import main
from benchmark.core.errors import InputError, Problem
from benchmark.families import REGISTRY
from benchmark.tasks import Task, load_task

QUERIES = [{"query_id": "q1", "text": "How do tornadoes form?"}, {"query_id": "q2", "text": "What are figs?"}]
CORPUS = [{"doc_id": "d1", "text": "Tornadoes form from rotating storms."}, {"doc_id": "d2", "text": "Figs."}]


def problems(tmp_path: Path, **kw: object) -> list[Problem]:
    out = tmp_path / "task"
    with pytest.raises(InputError) as err:
        Task.from_records("t", out_dir=out, **{"queries": QUERIES, "corpus": CORPUS, **kw})  # type: ignore[arg-type]
    assert not out.exists()  # nothing is written when anything is wrong
    return err.value.problems


def where(p: Problem) -> tuple[str, int | None, str | None]:
    return (Path(p.file).name, p.line, p.field)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- one test per validation error ---------------------------------------------------


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    found = problems(tmp_path, queries=write(tmp_path / "q.csv", "query_id,prompt\nq1,hello\n"))
    assert ("q.csv", None, "text") in map(where, found)
    assert any(p.field == "prompt" and "unexpected column" in p.message for p in found)


def test_empty_text_names_its_csv_line(tmp_path: Path) -> None:
    # line 1 is the header; the quoted cell of q2 spans lines 3-4, so q3 is on line 5
    csv = 'qid,question\nq1,fine\nq2,"two\nlines"\nq3,  \n'
    found = problems(tmp_path, queries=write(tmp_path / "q.csv", csv))
    assert [where(p) for p in found] == [("q.csv", 5, "text")] and "empty" in found[0].message


def test_duplicate_ids_are_found(tmp_path: Path) -> None:
    rows = [*QUERIES, {"query_id": "q1", "text": "again"}]
    found = problems(tmp_path, queries=rows)
    assert [(p.file, p.line, p.field) for p in found] == [("queries (records)", 3, "query_id")]
    assert "duplicate" in found[0].message


def test_a_qrels_row_naming_an_unknown_query(tmp_path: Path) -> None:
    qrels = write(
        tmp_path / "qrels.jsonl",
        '{"qid": "q1", "docid": "d1", "rel": 1}\n\n{"qid": "q9", "docid": "d1", "rel": 2}\n',
    )
    found = problems(tmp_path, qrels=qrels, corpus=CORPUS)
    assert [where(p) for p in found] == [("qrels.jsonl", 3, "query_id")]  # the blank line 2 counted
    assert "'q9' does not exist in queries.query_id" in found[0].message


def test_a_nugget_row_naming_an_unknown_query(tmp_path: Path) -> None:
    nuggets = pd.DataFrame(
        {"qid": ["q1", "nope"], "nugget": ["rotating storms", "x"], "importance": ["vital"] * 2}
    )
    found = problems(tmp_path, nuggets=nuggets)
    assert [(p.file, p.line, p.field) for p in found] == [("nuggets (DataFrame)", 2, "query_id")]


def test_a_value_of_the_wrong_type(tmp_path: Path) -> None:
    qrels = write(tmp_path / "qrels.csv", "query_id,doc_id,relevance\nq1,d1,2\nq2,d2,high\n")
    found = problems(tmp_path, qrels=qrels)
    assert [where(p) for p in found] == [("qrels.csv", 3, "relevance")] and "'high'" in found[0].message


def test_a_line_that_is_not_json(tmp_path: Path) -> None:
    found = problems(
        tmp_path, queries=write(tmp_path / "q.jsonl", '{"qid": "q1", "query": "x"}\n{oops\n[1]\n')
    )
    assert [where(p) for p in found] == [("q.jsonl", 2, None), ("q.jsonl", 3, None)]


def test_two_aliases_of_one_column_are_an_error_not_a_guess(tmp_path: Path) -> None:
    found = problems(tmp_path, queries=[{"qid": "q1", "query": "a", "question": "b"}])
    assert any(p.field == "text" and "'query', 'question'" in p.message for p in found)


def test_every_problem_of_every_input_is_reported_together(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        queries=[{"query_id": "q1", "text": ""}, {"query_id": "q1", "text": "b"}],
        qrels=[{"query_id": "q7", "doc_id": "d1", "relevance": 1}],
        sub_questions=[{"query_id": "q1", "text": "why?"}],  # no type
        corpus=write(tmp_path / "c.xlsx", ""),
    )
    fields = {(p.file, p.line, p.field) for p in found}
    assert {
        ("queries (records)", 1, "text"),
        ("queries (records)", 2, "query_id"),
        ("qrels (records)", 1, "query_id"),
        ("sub_questions (records)", None, "type"),
    } <= fields
    assert any(p.file.endswith("c.xlsx") and "unknown file type" in p.message for p in found)


def test_a_bad_task_id_and_an_unreadable_input(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        Task.from_records("My Task", queries=QUERIES, out_dir=tmp_path / "x", corpus=42)  # type: ignore[arg-type]
    assert {p.field for p in err.value.problems} >= {"task_id"}
    assert any(p.file == "corpus" and "cannot read a int" in p.message for p in err.value.problems)
    splits = datasets.DatasetDict({"test": datasets.Dataset.from_list(QUERIES)})
    found = problems(tmp_path, queries=splits)
    assert [(p.file, p.message) for p in found] == [
        ("queries (DatasetDict)", "give one split, e.g. dataset['test']")
    ]


# -- the folder ------------------------------------------------------------------------


def test_the_folder_is_like_a_bundled_task(tmp_path: Path) -> None:
    pq = tmp_path / "corpus.parquet"
    pd.DataFrame(CORPUS).to_parquet(pq)
    task = Task.from_records(
        "mine",
        queries=datasets.Dataset.from_list([{"id": 7, "title": "How do tornadoes form?"}]),
        corpus=pq,
        qrels=write(tmp_path / "qrels.tsv", "qid\tdocid\trel\n7\td1\t2\n"),
        subtopics=[{"query_id": "7", "subtopic": "formation"}],
        out_dir=tmp_path / "mine",
        license="CC0-1.0",
        citation="@misc{mine}",
    )
    card = yaml.safe_load((tmp_path / "mine" / "task.yaml").read_text())
    assert card["metrics"] == [f for f in REGISTRY if f in ("icat", "attribution")]  # subtopics; a corpus
    assert card["data"]["tables"] == {t: f"{t}.parquet" for t in ("queries", "qrels", "corpus", "aspects")}
    assert set(card["data"]["checksums"]) == {
        f"{t}.parquet" for t in ("queries", "qrels", "corpus", "aspects")
    }
    assert [i["file"].rsplit("/", 1)[-1] for i in card["provenance"]["inputs"]] == [
        "corpus.parquet",
        "qrels.tsv",
    ]
    assert "datasets.Dataset" in card["provenance"]["notes"] and card["license"] == "CC0-1.0"
    assert task.verify_checksums() == []
    qrels = load_task(tmp_path / "mine").table("qrels")
    assert qrels.to_dict("records") == [{"query_id": "7", "doc_id": "d1", "aspect_id": None, "relevance": 2}]
    readme = (tmp_path / "mine" / "README.md").read_text()
    assert "config_name: aspects" in readme and "@misc{mine}" in readme


def test_an_existing_folder_is_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    Task.from_records("mine", queries=QUERIES, corpus=CORPUS, out_dir=out)
    with pytest.raises(InputError, match="pass --force"):
        Task.from_records("mine", queries=QUERIES[:1], corpus=CORPUS, out_dir=out)
    assert len(load_task(out).table("queries")) == 2
    Task.from_records("mine", queries=QUERIES[:1], corpus=CORPUS, out_dir=out, force=True)
    assert len(load_task(out).table("queries")) == 1
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="not a task folder"):
        Task.from_records("mine", queries=QUERIES, corpus=CORPUS, out_dir=other, force=True)
    assert (other / "keep.txt").read_text() == "mine"


def test_only_the_families_whose_inputs_are_present_are_listed(tmp_path: Path) -> None:
    subqs = [{"query_id": "q1", "text": "what?", "type": "core"}]
    task = Task.from_records("a", queries=QUERIES, sub_questions=subqs, out_dir=tmp_path / "a")
    assert task.card.metrics == ["subq"]  # no corpus: attribution has no passages to check citations in
    with pytest.raises(InputError) as err:  # queries alone: nothing can score them
        Task.from_records("b", queries=QUERIES, out_dir=tmp_path / "b")
    assert err.value.problems[0].field == "metrics" and "subtopics" in err.value.problems[0].message
    asked = Task.from_records("c", queries=QUERIES, out_dir=tmp_path / "c", metrics=["arguments"])
    assert asked.card.metrics == ["arguments"]
    with pytest.raises(InputError, match="needs the table"):
        Task.from_records("d", queries=QUERIES, out_dir=tmp_path / "d", metrics=["icat"])


# -- the command line ------------------------------------------------------------------


def test_tasks_new_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = write(tmp_path / "q.jsonl", "".join(json.dumps(q) + "\n" for q in QUERIES))
    nuggets = write(
        tmp_path / "n.csv", "qid,text,importance\nq1,rotating storms,vital\nq2,sweet fruit,okay\n"
    )
    base = ["tasks", "new", "cli-task", "--out", str(tmp_path / "cli-task"), "--queries", str(queries)]
    assert main([*base, "--nuggets", str(nuggets), "--license", "CC0-1.0", "--version", "0.2.0"]) == 0
    assert "metric families: nuggets" in capsys.readouterr().out
    task = load_task(tmp_path / "cli-task")
    assert (task.card.version, task.card.provenance.script) == ("0.2.0", "benchmark tasks new")  # type: ignore[union-attr]
    assert list(task.table("nuggets")["provenance"]) == ["imported: n.csv"] * 2
    assert main([*base, "--nuggets", str(nuggets)]) == 2  # exists: needs --force
    assert "--force" in capsys.readouterr().err
    assert main(["tasks", "new", "x", "--out", str(tmp_path / "x")]) == 2
    assert "--queries" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_other_registered_tables_by_name_and_no_registry_no_guess(tmp_path: Path) -> None:
    from benchmark.tasks.builder import build_task

    stances = [{"query_id": "q1", "doc_id": "d1", "stance": "pro"}]
    task = Task.from_records(
        "e", queries=QUERIES, corpus=CORPUS, tables={"stances": stances}, out_dir=tmp_path / "e"
    )
    assert task.table("stances").to_dict("records") == stances
    with pytest.raises(InputError) as err:
        Task.from_records(
            "f", queries=QUERIES, corpus=CORPUS, tables={"opinions": []}, out_dir=tmp_path / "f"
        )
    assert "unknown table(s) ['opinions']" in str(err.value)
    with pytest.raises(InputError, match="no metric family is loaded"):
        build_task("g", out_dir=tmp_path / "g", queries=QUERIES, corpus=CORPUS, families={})
    assert not (tmp_path / "f").exists() and not (tmp_path / "g").exists()


def test_a_spreadsheet_export_and_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    bom = tmp_path / "excel.csv"
    bom.write_bytes("\ufeffqid,question\r\n1,How do tornadoes form?\r\n".encode())
    task = Task.from_records("x", queries=bom, corpus=CORPUS, out_dir=tmp_path / "x")
    assert task.table("queries").to_dict("records") == [{"query_id": "1", "text": "How do tornadoes form?"}]
    latin = tmp_path / "latin.csv"
    latin.write_bytes("qid,question\n1,caf\xe9?\n".encode("latin-1"))
    found = problems(tmp_path, queries=latin)
    assert [(where(p), p.message) for p in found] == [
        (("latin.csv", None, None), "not UTF-8 text: save the file as UTF-8")
    ]


def test_a_run_of_one_icat_variant_is_ranked_by_that_variant() -> None:
    """ICAT-M alone (no LLM) on a task whose card names no main score: ranked by ICAT-M, not
    by the family's ICAT-S, which no query has (the result would be ranked by nobody)."""
    from benchmark.core.results import Score
    from benchmark.families import REGISTRY
    from benchmark.tasks import load_task

    icat, task = REGISTRY["icat"], load_task("webtrack-2009-2012")
    task = type(task)(card=task.card.model_copy(update={"main_score": {}}), root=task.root)
    only_m = {"icat_m": Score(value=0.2, n=3), "s_fact": Score(value=0.5, n=3)}
    assert icat.primary_for(task.card.main_score, only_m) == "icat_m"
    assert icat.primary_for(task.card.main_score, {**only_m, "icat_s": Score(value=0.1, n=3)}) == "icat_s"
