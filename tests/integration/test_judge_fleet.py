"""A judge fleet: one model served by several OpenAI-compatible servers on 127.0.0.1.

``--judge-url A,B`` spreads the judge's requests over both servers by least outstanding
requests (each at most ``max_concurrency`` at a time); when one server fails, the retry
goes to the other, and every reply lands in the cache under the model's identity, never a
URL — a re-run through one server alone asks nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmark.models.cache import ModelCallCache
from benchmark.models.llm import Fleet, OpenAILLM
from benchmark.models.profiles import LLMSpec, load_profile, with_judge
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app

pytestmark = pytest.mark.slow


def echo(messages: list[dict[str, str]]) -> str:
    return "seen: " + messages[-1]["content"]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[ServerThread, ServerThread]]:
    with (
        ServerThread(create_app(ScriptedModel("fleet-judge", echo))) as a,  # type: ignore[arg-type]
        ServerThread(create_app(ScriptedModel("fleet-judge", echo))) as b,  # type: ignore[arg-type]
    ):
        yield a, b


def _llm(urls: list[str] | str, cache: ModelCallCache, **args: object) -> OpenAILLM:
    spec = LLMSpec(backend="openai", model="fleet-judge", args={"base_url": urls, "backoff": 0.01, **args})
    return OpenAILLM(spec, cache)


def test_requests_spread_over_the_fleet_and_a_failed_server_is_retried_elsewhere(
    servers: tuple[ServerThread, ServerThread], tmp_path
) -> None:
    a, b = servers
    for s in servers:
        control(s, "reset")
    cache = ModelCallCache(tmp_path / "calls.sqlite")
    llm = _llm([a.base_url, b.base_url], cache, max_concurrency=2)
    control(a, "faults", faults=["500", "500"])  # a fails its first two requests
    asks = [[{"role": "user", "content": f"item {i}"}] for i in range(20)]
    replies = llm.generate(asks, max_new_tokens=8)
    assert replies == [f"seen: item {i}" for i in range(20)]
    got_a, got_b = control(a, "stats")["requests"], control(b, "stats")["requests"]
    assert got_a >= 5 and got_b >= 5 and got_a + got_b == 22  # spread; two retries, moved on
    assert sum(f.count("HTTP 500") for f in llm.http_failures) == 2
    assert all(f.startswith(a.base_url) for f in llm.http_failures)
    # the cache keys name the model, not a server: one server alone now asks nothing
    alone = _llm(b.base_url, cache)
    assert alone.identity == llm.identity
    assert alone.generate(asks, max_new_tokens=8) == replies
    assert control(b, "stats")["requests"] == got_b


def test_judge_url_takes_a_comma_separated_fleet(servers: tuple[ServerThread, ServerThread]) -> None:
    a, b = servers
    base = load_profile("offline-smollm2-minilm-sim")
    profile = with_judge(base, model="fleet-judge", url=f"{a.base_url}/v1, {b.base_url}/v1/")
    assert profile.llm.args.base_url == [f"{a.base_url}/v1", f"{b.base_url}/v1"]
    single = with_judge(base, model="fleet-judge", url=f"{a.base_url}/v1")
    assert single.llm.args.base_url == f"{a.base_url}/v1"


def test_the_fleet_never_exceeds_a_servers_concurrency() -> None:
    import threading
    import time

    fleet = Fleet(["x", "y"], per_server=2)
    peak = {"x": 0, "y": 0}
    lock = threading.Lock()

    def work() -> None:
        s = fleet.acquire()
        with lock:
            peak[s] = max(peak[s], fleet.outstanding[s])
        time.sleep(0.01)
        fleet.release(s)

    threads = [threading.Thread(target=work) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak == {"x": 2, "y": 2} and fleet.outstanding == {"x": 0, "y": 0}
    assert fleet.acquire(avoid={"x"}) == "y"  # a retry avoids the server that failed
