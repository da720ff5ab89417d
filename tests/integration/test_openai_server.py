"""The OpenAI-compatible path against a real HTTP server serving a real local model.

The server (``tests/helpers/openai_server.py``) runs uvicorn on 127.0.0.1 and injects
malformed bodies, delays past the client timeout, HTTP 429 with ``Retry-After`` and
HTTP 500 on demand, so the retry code is exercised against real sockets.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from benchmark.models.cache import ModelCallCache
from benchmark.models.llm import LLMUnavailable, OpenAILLM
from benchmark.models.profiles import LLMSpec
from benchmark.models.structured import run_structured
from tests.helpers import build_tiny_gpt2, build_tiny_task
from tests.helpers.openai_server import LocalModel, ServerThread, create_app

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    model_dir = build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))
    with ServerThread(create_app(LocalModel(model_dir, "tiny-gpt2"))) as srv:
        yield srv


def control(server: ServerThread, faults: list[str] | None = None) -> dict[str, int]:
    root = server.base_url.removesuffix("/v1")
    if faults is None:
        return httpx.get(f"{root}/control/stats").json()
    httpx.post(f"{root}/control/reset")
    httpx.post(f"{root}/control/faults", json={"faults": faults})
    return {}


def client(server: ServerThread, tmp_path: Path, **args: object) -> OpenAILLM:
    spec = LLMSpec(
        backend="openai",
        model="tiny-gpt2",
        max_new_tokens=6,
        batch_size=4,
        args={"base_url": server.base_url, "backoff": 0.05, "max_attempts": 3, "timeout": 5, **args},
    )
    return OpenAILLM(spec, cache=ModelCallCache(tmp_path / "cache.sqlite"))


MSGS = [[{"role": "user", "content": f"Question {i}: what is a fox?"}] for i in range(3)]


def test_models_endpoint_and_cached_repeat(server: ServerThread, tmp_path: Path) -> None:
    assert httpx.get(f"{server.base_url}/models").json()["data"][0]["object"] == "model"
    control(server, [])
    llm = client(server, tmp_path, max_concurrency=3)
    first = llm.generate(MSGS)
    assert len(first) == 3 and control(server)["requests"] == 3
    assert llm.generate(MSGS) == first and control(server)["requests"] == 3  # cached: no new requests
    assert llm.cache.stats.hits == 3 and llm.cache.stats.misses == 3


def test_completions_endpoint(server: ServerThread, tmp_path: Path) -> None:
    control(server, [])
    llm = client(server, tmp_path, endpoint="completions")
    (text,) = llm.generate(MSGS[:1])
    assert isinstance(text, str) and llm.identity.endswith(":completions")


def test_429_honours_retry_after_and_500_is_retried(server: ServerThread, tmp_path: Path) -> None:
    control(server, ["429:1", "500"])
    llm = client(server, tmp_path, max_concurrency=1)
    start = time.monotonic()
    (text,) = llm.generate(MSGS[:1])
    assert time.monotonic() - start >= 1.0  # waited for Retry-After, not the 0.05 s backoff
    assert control(server)["requests"] == 3 and llm.http_failures == ["HTTP 429", "HTTP 500"]
    assert isinstance(text, str)


def test_timeout_is_retried(server: ServerThread, tmp_path: Path) -> None:
    control(server, ["delay:2"])
    llm = client(server, tmp_path, timeout=0.5, max_concurrency=1)
    (text,) = llm.generate(MSGS[:1])
    assert isinstance(text, str) and llm.http_failures == ["timeout after 0.5s"]


def test_malformed_replies_are_retried_then_recorded_as_failure(server: ServerThread, tmp_path: Path) -> None:
    # the first request of the batch gets three malformed bodies in a row: it gives up;
    # the others are answered, cached, and parsed as usual
    control(server, [])
    llm = client(server, tmp_path, max_concurrency=1)
    bad = [[{"role": "user", "content": "poisoned"}]]
    root = server.base_url.removesuffix("/v1")
    httpx.post(f"{root}/control/faults", json={"faults": ["malformed"] * 3})
    outs = run_structured(llm, bad + MSGS[:2], lambda t: t)
    assert [o.ok for o in outs] == [False, True, True]
    assert "malformed response body" in (outs[0].error or "") and outs[0].raw == []
    assert control(server)["faults"] == 3
    with pytest.raises(LLMUnavailable):
        control(server, ["malformed"] * 3)
        llm.generate([[{"role": "user", "content": "poisoned again"}]])


def test_generate_outputs_through_local_chat_completions(server: ServerThread, tmp_path: Path) -> None:
    from benchmark.answers.outputs import read_outputs
    from benchmark.generation.harness import generate_outputs
    from benchmark.tasks import load_task

    control(server, ["500"])  # one transient failure on the way
    task = load_task(build_tiny_task(tmp_path, [("a", "What is a fox?"), ("b", "What is coverage?")]))
    out = generate_outputs(
        "local-chat-completions",
        f"model=tiny-gpt2,base_url={server.base_url}/chat/completions,num_concurrent=2,max_retries=2",
        task,
        tmp_path / "outputs",
        gen_kwargs="max_gen_toks=5",
        progress=False,
    )
    rows = read_outputs(out)
    assert [r.query_id for r in rows] == ["a", "b"] and rows[0].model == "tiny-gpt2"
    assert rows[0].backend.startswith("local-chat-completions") and rows[0].generation["max_gen_toks"] == 5
    assert control(server)["requests"] == 3
