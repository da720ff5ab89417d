"""Retrieval-augmented generation for real: BM25 over the starter corpus, a real OpenAI-compatible
server, and the submission round trip ``submit`` → ``validate`` → ``score --submission``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from benchmark.answers.outputs import read_outputs
from benchmark.board.submissions import required_queries, validate_submission
from benchmark.cli.main import main
from benchmark.core.results import read_result
from tests.helpers import build_tiny_gpt2
from tests.helpers.openai_server import LocalModel, ServerThread, create_app

pytestmark = pytest.mark.slow
TASK = "webtrack-2009-2012"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with ServerThread(
        create_app(
            LocalModel(build_tiny_gpt2(tmp_path_factory.mktemp("tiny"), n_positions=8192), "tiny-gpt2")
        )
    ) as srv:
        yield srv


def test_evaluate_with_rag_through_an_openai_compatible_server(server: ServerThread, tmp_path: Path) -> None:
    args = [
        "evaluate",
        "--model", "local-chat-completions",
        "--model-args", f"model=tiny-gpt2,base_url={server.base_url}/chat/completions,num_concurrent=2",
        "--tasks", TASK, "--limit", "2", "--rag", "bm25", "--rag-k", "3",
        "--gen-kwargs", "max_gen_toks=8", "--output-dir", str(tmp_path / "out"), "--no-score", "--no-progress",
    ]  # fmt: skip
    assert main(args) == 0
    (path,) = (tmp_path / "out" / "tiny-gpt2__rag-bm25-k3").glob("*.jsonl")
    rows = read_outputs(path)
    assert [r.query_id for r in rows] == ["175", "182"]  # the starter corpus's first topics
    for r in rows:
        assert (
            r.rag is not None
            and r.rag.slug == "rag-bm25-k3"
            and r.rag.corpus.startswith("groundcover starter corpus")
        )
        assert r.retrieval is not None and len(r.retrieval.passages) == 3
        assert all(p.startswith("gc-starter-") for p in r.retrieval.passages)
    received = httpx.get(f"{server.base_url.removesuffix('/v1')}/control/received").json()
    prompts = [m[-1]["content"] for m in received]
    assert len(prompts) == 2 and all("Passages:\n[1] " in p and "\n\n[3] " in p for p in prompts)
    assert any("Question: signs of a heartattack" in p for p in prompts)


def test_rag_outputs_round_trip_through_submit_validate_and_score(tmp_path: Path) -> None:
    """RAG answers (copied passages, with citations) of every scorable query, as a submission."""
    from benchmark.answers.citations import record
    from benchmark.answers.row import OutputRow
    from benchmark.core.results import RAGSetting
    from benchmark.generation.rag import prepare
    from benchmark.models.profiles import load_profile
    from benchmark.tasks import load_task

    task = load_task(TASK)
    _, qids = required_queries(TASK)
    setting = RAGSetting(retriever="bm25", k=2, prompt="rag-answer@1", corpus="")
    ctx = prepare(task, setting, qids, profile=load_profile())
    out = tmp_path / "outputs" / f"{TASK}.jsonl"
    out.parent.mkdir()
    with open(out, "w") as f:
        for q in qids:
            hits = ctx.hits[q]
            answer = f"{hits[0].text} [1] Also see [9]."
            row = OutputRow(
                query_id=q,
                answer=answer,
                model="acme/copier",
                rag=ctx.setting,
                retrieval=record(answer, ctx.passage_ids(q)),
                task=TASK,
            )
            f.write(row.model_dump_json() + "\n")
    subs = tmp_path / "submissions"
    card = ["--org", "acme", "--name", "copier", "--license", "mit", "--open-weights", "--contact", "a@b.c"]
    assert main(["submit", "--outputs", str(out), *card, "--submissions-dir", str(subs)]) == 0
    folder = subs / "acme__copier__rag-bm25-k2"
    sub = validate_submission(folder)
    assert sub.card.rag == ctx.setting and sub.outputs[TASK][0].retrieval.invalid_citations == [9]  # type: ignore[union-attr]
    assert main(["validate", str(folder)]) == 0
    results = tmp_path / "results"
    score = [
        "score",
        "--submission",
        str(folder),
        "--results-dir",
        str(results),
        "--variants",
        "m",
        "--no-progress",
    ]
    assert main(score) == 0
    (path,) = results.rglob("*.icat.json")
    assert "rag-bm25-k2" in path.parts
    result = read_result(path)
    assert result.model.rag == ctx.setting and result.model.label == "acme/copier (RAG bm25 k=2)"
    assert (
        result.scores["s_fact"].value is not None and result.scores["s_fact"].value > 0.5
    )  # copied text is grounded
