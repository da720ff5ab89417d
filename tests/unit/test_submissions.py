"""``benchmark validate``: every problem found, with file, line and field; nothing accepted."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
import yaml

from benchmark.board.submissions import ModelCard, build_submission, required_queries, validate_submission
from benchmark.cli.main import main
from benchmark.core.errors import InputError
from tests.helpers.submission_checks import problems

TASK = "webtrack-2009-2012"
CARD = {
    "name": "tiny-model",
    "org": "acme",
    "revision": "main",
    "license": "apache-2.0",
    "parameters": 135000000,
    "open_weights": True,
    "links": ["https://example.org/tiny"],
    "contact": "dev@example.org",
    "generation": {"max_gen_toks": 256},
}


def _rows(qids: list[str], **override: object) -> list[dict[str, object]]:
    return [
        {"query_id": q, "answer": f"An answer about topic {q}.", "model": "acme/tiny-model", **override}
        for q in qids
    ]


def make(
    tmp_path: Path, rows: list[dict[str, object]] | None = None, card: dict[str, object] | None = None
) -> Path:
    folder = tmp_path / "acme__tiny-model"
    folder.mkdir()
    (folder / "model.yaml").write_text(yaml.safe_dump(card or CARD, sort_keys=False), encoding="utf-8")
    _, required = required_queries(TASK)
    lines = [json.dumps(r) for r in (rows if rows is not None else _rows(required))]
    (folder / f"{TASK}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_valid_submission_is_accepted(tmp_path: Path) -> None:
    sub = validate_submission(make(tmp_path))
    _, required = required_queries(TASK)
    assert sub.card.model_id == "acme/tiny-model"
    assert [r.query_id for r in sub.outputs[TASK]] == required
    assert main(["validate", str(sub.path)]) == 0


def test_every_problem_is_reported_with_file_line_and_field(tmp_path: Path) -> None:
    _, required = required_queries(TASK)
    rows = _rows(required[:3])
    rows.append(dict(rows[0]))  # duplicate
    rows.append({"query_id": "no-such-topic", "answer": "x", "model": "acme/tiny-model"})
    rows.append({"query_id": required[3], "answer": "x", "model": "acme/tiny-model", "score": 0.99})
    folder = make(tmp_path, rows)
    found = problems(folder)
    text = "\n".join(found)
    assert f"acme__tiny-model/{TASK}.jsonl, line 4, field 'query_id': duplicate query id" in text
    assert "line 5, field 'query_id': query id 'no-such-topic' is not in task webtrack-2009-2012" in text
    assert "line 6, field 'score': Extra inputs are not permitted" in text  # scores are never taken
    assert "required query id(s) missing" in text
    assert main(["validate", str(folder)]) == 2


def test_model_card_errors_name_the_line(tmp_path: Path) -> None:
    card = {**CARD, "open_weights": "maybe", "parameters": -3, "homepage": "x"}
    found = problems(make(tmp_path, card=card))
    assert any("model.yaml, line 6, field 'open_weights'" in p for p in found), found
    assert any("field 'parameters'" in p for p in found)
    assert any("field 'homepage': Extra inputs are not permitted" in p for p in found)


HOSTILE_MARKUP = [
    "Fine text <script>fetch('//evil')</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a title=">" onmouseover=alert(1)>x</a>',
    "&#106;avascript:alert(1)",
    "java\tscript:alert(1)",
    "javascript&colon;alert(1)",
    "For n < 10, one = 1",  # honest answers that a blocklist rejected
    "JavaScript: a language that runs in browsers.",
]


@pytest.mark.parametrize("payload", HOSTILE_MARKUP)
def test_markup_in_answers_is_data(tmp_path: Path, payload: str) -> None:
    """Answers are never rejected for markup; every renderer escapes them (test_display_escaping)."""
    _, required = required_queries(TASK)
    rows = _rows(required)
    rows[1]["answer"] = payload
    sub = validate_submission(make(tmp_path, rows))
    assert sub.outputs[TASK][1].answer == payload


def test_markup_in_model_name_is_rejected(tmp_path: Path) -> None:
    found = problems(make(tmp_path, card={**CARD, "name": "<script>alert(1)</script>"}))
    assert any("field 'name'" in p for p in found), found


@pytest.mark.parametrize("revision", ["../../escape", "a/b", "v1 (final)"])
def test_revision_that_could_leave_the_results_folder_is_rejected(tmp_path: Path, revision: str) -> None:
    rows = [{**r, "revision": revision} for r in _rows(required_queries(TASK)[1])]
    found = problems(make(tmp_path, rows, card={**CARD, "revision": revision}))
    assert any("model.yaml" in p and "field 'revision'" in p for p in found), found


def test_result_path_stays_inside_the_results_root(tmp_path: Path) -> None:
    from benchmark.core.results import ModelInfo, result_path

    path = result_path(
        tmp_path, ModelInfo(id="acme/tiny", revision="../../../etc"), "../p@../../v", "../" + TASK, "../x"
    )
    assert path.resolve().is_relative_to(tmp_path.resolve())
    assert path.relative_to(tmp_path).parts[0] == "acme__tiny"


def test_rows_must_match_the_card(tmp_path: Path) -> None:
    _, required = required_queries(TASK)
    rows = _rows(required)
    rows[0]["model"] = "someone/else"
    found = problems(make(tmp_path, rows))
    assert any("line 1, field 'model': row is from someone/else@main" in p for p in found), found


def test_unsafe_files_are_rejected(tmp_path: Path) -> None:
    folder = make(tmp_path)
    (folder / "weights.pkl").write_bytes(pickle.dumps({"a": 1}))
    (folder / "run.sh").write_text("#!/bin/sh\nrm -rf /\n")
    os.chmod(folder / "run.sh", 0o755)
    (folder / "webtrack-2013-2014.jsonl").symlink_to("/etc/passwd")
    (folder / "nested").mkdir()
    (folder / "bad-utf8.jsonl").write_bytes(b"\xff\xfe")
    text = "\n".join(problems(folder))
    assert "weights.pkl: unexpected file" in text
    assert "run.sh: executable files are not allowed" in text
    assert "webtrack-2013-2014.jsonl: symbolic links are not allowed" in text
    assert "nested: sub-folders are not allowed" in text
    assert "bad-utf8.jsonl: unexpected file" in text


def test_pickle_disguised_as_outputs_is_rejected(tmp_path: Path) -> None:
    folder = make(tmp_path)
    (folder / f"{TASK}.jsonl").write_bytes(pickle.dumps(["not", "json"], protocol=4))
    text = "\n".join(problems(folder))
    assert "looks like a Python pickle" in text


def test_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmark.board.submissions as subs

    monkeypatch.setattr(subs, "MAX_FILE_BYTES", 100)
    text = "\n".join(problems(make(tmp_path)))
    assert f"{TASK}.jsonl: " in text and "at most 100 per file" in text


def test_folder_name_must_match_card(tmp_path: Path) -> None:
    folder = make(tmp_path)
    renamed = folder.rename(tmp_path / "other__name")
    assert any("folder must be named 'acme__tiny-model'" in p for p in problems(renamed))


def test_build_submission_round_trip(tmp_path: Path) -> None:
    _, required = required_queries(TASK)
    out = tmp_path / "outputs" / f"{TASK}.jsonl"
    out.parent.mkdir()
    rows = _rows(required, model="HuggingFaceTB/SmolLM2-135M-Instruct", backend="hf", task=TASK)
    out.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    card = ModelCard.model_validate(CARD)
    dest = build_submission([out], card, tmp_path / "submissions")
    sub = validate_submission(dest)
    assert {r.model for r in sub.outputs[TASK]} == {"acme/tiny-model"}
    with pytest.raises(InputError, match="--overwrite"):
        build_submission([out], card, tmp_path / "submissions")


RAG = {"retriever": "bm25", "k": 5, "prompt": "rag-answer@1", "corpus": "starter corpus"}


def _rag_rows(qids: list[str]) -> list[dict[str, object]]:
    retrieval = {"passages": ["d#0", "e#0"], "cited": ["d#0"], "invalid_citations": []}
    return _rows(qids, rag=RAG, retrieval=retrieval)


def test_rag_submissions_are_their_own_entry(tmp_path: Path) -> None:
    _, required = required_queries(TASK)
    rows = _rag_rows(required)
    found = problems(make(tmp_path, rows, {**CARD, "rag": RAG}))  # the folder lacks the setting's suffix
    assert any("acme__tiny-model__rag-bm25-k5" in p for p in found), found
    folder = tmp_path / "ok" / "acme__tiny-model__rag-bm25-k5"
    folder.parent.mkdir()
    make(tmp_path / "ok", rows, {**CARD, "rag": RAG}).rename(folder)
    sub = validate_submission(folder)
    assert sub.card.rag is not None and sub.card.rag.slug == "rag-bm25-k5"
    assert sub.outputs[TASK][0].retrieval is not None


def test_rows_must_have_the_cards_setting(tmp_path: Path) -> None:
    _, required = required_queries(TASK)
    found = problems(make(tmp_path, _rag_rows(required)))  # closed-book card, RAG rows
    assert any(
        "field 'rag': row was generated rag-bm25-k5, model.yaml says closed-book" in p for p in found
    ), found
    rows = _rows(required, rag=RAG)  # a RAG row without its retrieval record
    folder = tmp_path / "x" / "acme__tiny-model__rag-bm25-k5"
    folder.parent.mkdir()
    make(tmp_path / "x", rows, {**CARD, "rag": RAG}).rename(folder)
    assert any("field 'retrieval'" in p for p in problems(folder))


def test_a_task_the_board_cannot_score_is_refused_in_submitter_words(tmp_path: Path) -> None:
    folder = make(tmp_path)
    (folder / "webtrack-2013-2014.jsonl").write_text(json.dumps(_rows(["201"])[0]) + "\n", encoding="utf-8")
    found = [p for p in problems(folder) if "webtrack-2013-2014" in p]
    assert len(found) == 1 and "cannot score task webtrack-2013-2014" in found[0]
    assert "--corpus" not in found[0]  # `validate` takes no --corpus: the hint must not suggest it


def test_a_rag_setting_that_differs_names_the_field(tmp_path: Path) -> None:
    from benchmark.core.results import RAGSetting

    setting = {"retriever": "bm25", "k": 5, "prompt": "rag-answer@1", "corpus": "starter"}
    card = {**CARD, "rag": setting}
    _, required = required_queries(TASK)
    retrieval = {"passages": ["d1"], "cited": []}
    rows = _rows(required, rag={**setting, "prompt": "rag-answer@2"}, retrieval=retrieval)
    folder = make(tmp_path, rows, card)
    folder = folder.rename(folder.with_name(f"acme__tiny-model__{RAGSetting(**setting).slug}"))
    found = problems(folder)
    assert any(
        "field 'rag'" in p and "prompt: row 'rag-answer@2', model.yaml 'rag-answer@1'" in p for p in found
    )
    assert not any("corpus:" in p for p in found)  # only the field that differs is named
