"""A dead or wrong endpoint is one line before any work, never a run of retries that reads as a score.

Every judge served over HTTP (``--judge-url``, a fleet, a profile's ``base_url``, a Batch
API provider) and an OpenAI-compatible model under evaluation are asked once, before
anything is scored or generated, whether they are there and serve the model
(:mod:`benchmark.models.preflight`).  Closed ports are real (a socket bound, then closed);
servers are the real local OpenAI-compatible test server.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from benchmark.cli.main import main
from benchmark.core.errors import InputError
from benchmark.judging.stack import JudgeStack
from benchmark.models.backends import load_llm
from benchmark.models.cache import ModelCallCache
from benchmark.models.preflight import SKIP_PREFLIGHT_ENV
from benchmark.models.profiles import LLMSpec, load_profile, with_judge
from tests.helpers.batch_server import add_batch_api
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, free_port

REPO = Path(__file__).resolve().parents[2]
TASK = "webtrack-2009-2012"
OUTPUTS = REPO / "submissions" / "HuggingFaceTB__SmolLM2-135M-Instruct" / f"{TASK}.jsonl"
SCORE = ["score", "--outputs", str(OUTPUTS), "--tasks", TASK, "--metrics", "icat", "--variants", "s"]
#: the dead judge once took 121 s of retries; a preflight answers in one request
PROMPT = 60.0


def echo(messages: list[dict[str, str]]) -> str:
    return "seen: " + messages[-1]["content"]


def closed_url() -> str:
    """An API root on a port nothing listens on (bound, then closed)."""
    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.fixture(scope="module")
def served() -> Iterator[ServerThread]:
    """A server of the model ``served-judge`` (with the Batch API too)."""
    model = ScriptedModel("served-judge", echo)
    with ServerThread(add_batch_api(create_app(model), model)) as srv:  # type: ignore[arg-type]
        yield srv


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def no_retries(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if "retrying" in r.getMessage()], caplog.text


# -- the judge, through the real entry point ----------------------------------------


def test_score_with_a_dead_judge_is_one_line_naming_the_url_and_scores_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    url, results = closed_url(), tmp_path / "results"
    started = time.monotonic()
    code = main([*SCORE, "--judge-url", url, "--judge-model", "foo", "--results-dir", str(results)])
    elapsed = time.monotonic() - started
    line = one_error_line(capsys)
    assert code == 2
    assert url in line and "connection refused" in line and "'foo'" in line and "--judge-url" in line
    assert files_under(results) == [], "no scoring progress before the endpoint is known to answer"
    no_retries(caplog)
    assert elapsed < PROMPT


def test_a_judge_serving_another_model_is_named_with_what_it_serves(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    control(served, "reset")
    args = ["--judge-url", served.base_url, "--judge-model", "foo", "--results-dir", str(tmp_path / "r")]
    assert main([*SCORE, *args]) == 2
    line = one_error_line(capsys)
    assert served.base_url in line and "model 'foo' is not served there; it serves: served-judge" in line
    assert control(served, "stats")["requests"] == 0  # not one completion was asked for
    assert files_under(tmp_path / "r") == []


def test_a_fleet_with_every_server_dead_names_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    a, b = closed_url(), closed_url()
    args = ["--judge-url", f"{a},{b}", "--judge-model", "foo", "--results-dir", str(tmp_path / "r")]
    assert main([*SCORE, *args]) == 2
    line = one_error_line(capsys)
    assert "no server of the fleet answers" in line and a in line and b in line


def test_a_fleet_with_one_dead_server_goes_on_with_the_others(
    served: ServerThread, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Documented choice: a server that is down is left out of this run, with a warning that
    names it; the run refuses only when no server is ready, or one serves another model."""
    dead = closed_url()
    profile = with_judge(
        load_profile("offline-smollm2-minilm-sim"), model="served-judge", url=f"{dead},{served.base_url}"
    )
    control(served, "reset")
    with caplog.at_level(logging.WARNING):
        judges = JudgeStack.load(profile, ModelCallCache(tmp_path / "calls.sqlite"), progress=False)
    warned = [r.getMessage() for r in caplog.records if r.name == "benchmark.models.preflight"]
    assert len(warned) == 1 and dead in warned[0] and "connection refused" in warned[0], warned
    llm: Any = judges.llm
    assert llm.base_urls == [served.base_url]
    asks = [[{"role": "user", "content": f"item {i}"}] for i in range(6)]
    assert llm.generate(asks, max_new_tokens=8) == [f"seen: item {i}" for i in range(6)]
    assert llm.http_failures == []  # no request went to the dead server
    assert control(served, "stats")["requests"] == 6


def test_a_fleet_where_one_server_serves_another_model_is_refused(served: ServerThread) -> None:
    other_model = ScriptedModel("another-judge", echo)
    with ServerThread(create_app(other_model)) as other:  # type: ignore[arg-type]
        profile = with_judge(
            load_profile("offline-smollm2-minilm-sim"),
            model="served-judge",
            url=f"{served.base_url},{other.base_url}",
        )
        with pytest.raises(InputError) as caught:
            JudgeStack.load(profile, ModelCallCache(enabled=False), progress=False)
    message = str(caught.value)
    assert "\n" not in message and other.base_url in message and "it serves: another-judge" in message
    assert served.base_url not in message  # the ready server is not the problem


def test_a_403_on_the_model_list_is_a_configuration_error_even_beside_a_ready_server(
    served: ServerThread,
) -> None:
    """A server that refuses the key on ``GET /models`` (403) but would answer a completion is
    not 'busy' and not 'down': the key or the URL is wrong, and the run stops in one line —
    in a fleet too, where a merely dead server would be left out and the run go on."""
    app = FastAPI()

    @app.get("/v1/models")
    def models() -> JSONResponse:
        return JSONResponse({"error": {"message": "this key may not list models"}}, 403)

    @app.post("/v1/chat/completions")
    def chat() -> JSONResponse:
        return JSONResponse({"choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"}}]})

    with ServerThread(app) as forbidden:
        for urls in (forbidden.base_url, f"{served.base_url},{forbidden.base_url}"):
            profile = with_judge(load_profile("offline-smollm2-minilm-sim"), model="served-judge", url=urls)
            with pytest.raises(InputError) as caught:
                JudgeStack.load(profile, ModelCallCache(enabled=False), progress=False)
            message = str(caught.value)
            assert "\n" not in message and forbidden.base_url in message, message
            assert "HTTP 403 on GET /models: the server refused the API key" in message


@pytest.mark.slow
def test_the_dry_run_plans_without_the_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmark.models import preflight

    def no_probe(*args: object, **kwargs: object) -> None:
        raise AssertionError("a dry run asked an endpoint")

    monkeypatch.setattr(preflight, "probe_servers", no_probe)
    monkeypatch.chdir(tmp_path)
    args = ["--judge-url", closed_url(), "--judge-model", "foo", "--results-dir", str(tmp_path / "r")]
    assert main([*SCORE, *args, "--dry-run", "--no-progress"]) == 0
    assert "nothing was computed" in capsys.readouterr().out


def test_evaluate_checks_the_judge_before_generating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    url = closed_url()
    argv = ["evaluate", "--model", "groundcover-offline", "--tasks", TASK, "--no-progress"]
    judge = ["--judge-url", url, "--judge-model", "foo", "--output-dir", str(tmp_path / "out")]
    assert main([*argv, *judge, "--results-dir", str(tmp_path / "r")]) == 2
    assert url in one_error_line(capsys)
    assert files_under(tmp_path / "out") == [] and files_under(tmp_path / "r") == []


def test_skipping_the_preflight_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a fully cached re-run with the server gone."""
    monkeypatch.setenv(SKIP_PREFLIGHT_ENV, "1")
    llm: Any = load_llm(
        LLMSpec(backend="openai", model="foo", args={"base_url": closed_url()}), ModelCallCache(enabled=False)
    )
    llm.preflight()


# -- the model under evaluation ------------------------------------------------------


@pytest.mark.parametrize("backend", ["local-chat-completions", "local-completions"])
def test_evaluate_against_a_closed_model_endpoint_is_one_line(
    backend: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    url = closed_url()
    endpoint = "/chat/completions" if backend == "local-chat-completions" else ""
    started = time.monotonic()
    code = main(
        [
            "evaluate",
            "--model",
            backend,
            "--model-args",
            f"model=foo,base_url={url}{endpoint}",
            "--tasks",
            TASK,
            "--rag",
            "none,bm25",
            "--output-dir",
            str(tmp_path / "out"),
            "--no-score",
            "--no-progress",
        ]
    )
    elapsed = time.monotonic() - started
    line = one_error_line(capsys)
    assert code == 2
    assert url in line and "connection refused" in line and "--model-args" in line
    assert files_under(tmp_path / "out") == []
    no_retries(caplog)
    assert elapsed < PROMPT


def test_evaluate_against_a_server_of_another_model_names_it(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    control(served, "reset")
    margs = f"model=foo,base_url={served.base_url}/chat/completions"
    argv = ["evaluate", "--model", "local-chat-completions", "--model-args", margs, "--tasks", TASK]
    assert main([*argv, "--output-dir", str(tmp_path / "out"), "--no-score", "--no-progress"]) == 2
    line = one_error_line(capsys)
    assert "model 'foo' is not served there; it serves: served-judge" in line and served.base_url in line
    assert control(served, "stats")["requests"] == 0


# -- servers without a model listing, batch backends --------------------------------


@pytest.fixture(scope="module")
def unlisted() -> Iterator[ServerThread]:
    """A server with no ``/v1/models`` route that answers chat completions for ``only-model``
    and 404 for any other model (as vLLM and OpenAI do)."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        if body.get("model") != "only-model":
            return JSONResponse(
                {"error": {"message": f"The model `{body.get('model')}` does not exist."}}, 404
            )
        return JSONResponse({"choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"}}]})

    with ServerThread(app) as srv:
        yield srv


def test_without_a_model_listing_one_completion_decides(unlisted: ServerThread) -> None:
    def llm(model: str) -> Any:
        spec = LLMSpec(backend="openai", model=model, args={"base_url": unlisted.base_url})
        return load_llm(spec, ModelCallCache(enabled=False))

    llm("only-model").preflight()
    with pytest.raises(InputError, match="HTTP 404 on POST /chat/completions for model 'foo'") as caught:
        llm("foo").preflight()
    assert unlisted.base_url in str(caught.value) and "does not exist" in str(caught.value)


def test_a_batch_judge_is_checked_at_its_provider(served: ServerThread) -> None:
    def batch(url: str, model: str = "served-judge") -> Any:
        spec = LLMSpec(backend="openai-batch", model=model, args={"base_url": url})
        return load_llm(spec, ModelCallCache(enabled=False))

    batch(served.base_url).preflight()
    url = closed_url()
    with pytest.raises(InputError, match="connection refused") as caught:
        batch(url).preflight(what="the judge LLM")
    assert url in str(caught.value)
    with pytest.raises(InputError, match="'foo' is not served there"):
        batch(served.base_url, "foo").preflight()


def test_a_vllm_batch_judge_needs_its_command(tmp_path: Path) -> None:
    import sys

    def run_batch(command: str) -> Any:
        spec = LLMSpec(backend="vllm-batch", model="m", args={"vllm_command": command})
        return load_llm(spec, ModelCallCache(enabled=False))

    run_batch(f"{sys.executable} {tmp_path / 'fake_vllm.py'}").preflight()
    with pytest.raises(InputError, match="is not on PATH"):
        run_batch(str(tmp_path / "no-such-vllm")).preflight()
