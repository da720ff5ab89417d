"""``backend: openai-batch`` against a scripted Batch API on 127.0.0.1.

Uploads, status changes, requests that fail inside a batch, expired and refused batches,
and a run killed while its batch is with the provider: every reply comes back exactly
once, is cached as it is read, and what a batch could not answer goes into the next
batch — or, after the last round, is a failure of that item, never an empty reply.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.models.backends import load_llm
from benchmark.models.batch_api import BatchLLM
from benchmark.models.cache import ModelCallCache
from benchmark.models.llm import LLMUnavailable, OpenAILLM
from benchmark.models.profiles import LLMSpec, load_profile, with_judge
from tests.helpers.batch_server import add_batch_api
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app

pytestmark = pytest.mark.slow


def echo(messages: list[dict[str, str]]) -> str:
    return "seen: " + messages[-1]["content"]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    model = ScriptedModel("batch-judge", echo)
    with ServerThread(add_batch_api(create_app(model), model)) as s:  # type: ignore[arg-type]
        yield s


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home"))
    return tmp_path


def batch_llm(server: ServerThread, cache: ModelCallCache, **args: object) -> BatchLLM:
    spec = LLMSpec(
        backend="openai-batch",
        model="batch-judge",
        batch_size=100,
        args={"base_url": server.base_url, "poll_interval": 0.01, "backoff": 0.01, "max_attempts": 3, **args},
    )
    llm = load_llm(spec, cache)
    assert isinstance(llm, BatchLLM)
    return llm


def asks(n: int, tag: str) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": f"{tag} {i}"}] for i in range(n)]


def new_batches(server: ServerThread, before: int) -> list[dict[str, object]]:
    return control(server, "batches")[before:]


def scripts(server: ServerThread, *items: dict[str, object]) -> None:
    control(server, "batch-scripts", scripts=list(items))


def test_failed_requests_go_into_the_next_batch_and_replies_are_cached(
    server: ServerThread, home: Path
) -> None:
    seen = len(control(server, "batches"))
    cache = ModelCallCache(home / "calls.sqlite")
    llm = batch_llm(server, cache)
    scripts(server, {"polls": 3, "fail": [1, 4]})
    replies = llm.generate(asks(6, "partial"), max_new_tokens=8)
    assert replies == [f"seen: partial {i}" for i in range(6)]
    assert [(b["requests"], b["status"]) for b in new_batches(server, seen)] == [
        (6, "completed"),
        (2, "completed"),
    ]
    assert sum("HTTP 500" in f for f in llm.http_failures) == 2
    # cached under the model's identity: the live API (same model) asks nothing for them
    live = OpenAILLM(
        LLMSpec(backend="openai", model="batch-judge", args={"base_url": server.base_url}), cache
    )
    assert live.identity == llm.identity
    stats = control(server, "stats")["requests"]
    assert live.generate(asks(6, "partial"), max_new_tokens=8) == replies
    assert control(server, "stats")["requests"] == stats
    assert not list((home / "home" / "batches").rglob("*.json"))  # finished batches are forgotten


def test_an_expired_batch_hands_its_unfinished_requests_to_a_new_one(
    server: ServerThread, home: Path
) -> None:
    seen = len(control(server, "batches"))
    llm = batch_llm(server, ModelCallCache(home / "calls.sqlite"))
    scripts(server, {"final": "expired", "answered": 2})
    assert llm.generate(asks(5, "late"), max_new_tokens=8) == [f"seen: late {i}" for i in range(5)]
    assert [(b["requests"], b["status"]) for b in new_batches(server, seen)] == [
        (5, "expired"),
        (3, "completed"),
    ]


def test_what_no_round_answers_is_a_failure_of_that_item(server: ServerThread, home: Path) -> None:
    cache = ModelCallCache(home / "calls.sqlite")
    llm = batch_llm(server, cache, max_attempts=2)
    scripts(server, {"fail": [0]}, {"fail": [0]})
    with pytest.raises(LLMUnavailable) as err:
        llm.generate(asks(3, "stubborn"), max_new_tokens=8)
    assert err.value.failed == [0] and "no reply after 2 rounds" in str(err.value)
    # the two answered requests were paid for once and kept
    assert llm.generate(asks(3, "stubborn")[1:], max_new_tokens=8) == ["seen: stubborn 1", "seen: stubborn 2"]


def test_a_refused_batch_stops_the_run(server: ServerThread, home: Path) -> None:
    llm = batch_llm(server, ModelCallCache(home / "calls.sqlite"))
    scripts(server, {"final": "failed"})
    with pytest.raises(RuntimeError, match="failed as a whole"):
        llm.generate(asks(2, "refused"), max_new_tokens=8)
    assert not list((home / "home" / "batches").rglob("*.json"))


def test_a_run_killed_while_its_batch_is_out_adopts_it_instead_of_paying_again(
    server: ServerThread, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = len(control(server, "batches"))
    cache = ModelCallCache(home / "calls.sqlite")
    scripts(server, {"polls": 5})

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies after submitting, before the batch is back

    first = batch_llm(server, cache)
    monkeypatch.setattr(first, "_wait", killed)
    with pytest.raises(KeyboardInterrupt):
        first.generate(asks(4, "resume"), max_new_tokens=8)
    assert len(list((home / "home" / "batches").rglob("*.json"))) == 1  # the batch id was recorded
    second = batch_llm(server, cache)
    assert second.generate(asks(4, "resume"), max_new_tokens=8) == [f"seen: resume {i}" for i in range(4)]
    assert second.batches_submitted == 0
    assert [(b["requests"], b["status"]) for b in new_batches(server, seen)] == [(4, "completed")]


def test_judge_url_keeps_a_batch_judge_a_batch_judge(server: ServerThread, tmp_path: Path) -> None:
    import yaml

    from benchmark.core import paths

    raw = yaml.safe_load((paths.PROFILES_DIR / "offline-smollm2-minilm-sim.yaml").read_text())
    raw["name"], raw["offline"] = "batch-test", False
    raw["llm"] = {"backend": "openai-batch", "model": "batch-judge", "args": {"base_url": "http://x/v1"}}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(raw))
    profile = with_judge(load_profile(str(tmp_path / "p.yaml")), url=server.base_url)
    assert profile.llm.backend == "openai-batch" and profile.llm.args.base_url == server.base_url


FAKE_VLLM = """
import json, pathlib, sys
args = sys.argv[1:]
assert args[0] == "run-batch", args
src, out = pathlib.Path(args[args.index("-i") + 1]), pathlib.Path(args[args.index("-o") + 1])
assert args[args.index("--model") + 1] == "batch-judge" and "--tensor-parallel-size" in args
runs = pathlib.Path(sys.argv[0]).with_suffix(".runs")
n = int(runs.read_text()) if runs.exists() else 0
runs.write_text(str(n + 1))
rows = []
for i, line in enumerate(src.read_text().splitlines()):
    req = json.loads(line)
    if n == 0 and i == 0:  # the first run fails its first request
        rows.append({"custom_id": req["custom_id"], "response": {"status_code": 400, "body": {}}, "error": None})
        continue
    text = "seen: " + req["body"]["messages"][-1]["content"]
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    rows.append({"custom_id": req["custom_id"], "response": {"status_code": 200, "body": body}, "error": None})
out.write_text("".join(json.dumps(r) + "\\n" for r in rows))
"""


def test_vllm_run_batch_reads_and_retries_like_a_provider(tmp_path: Path, home: Path) -> None:
    """``backend: vllm-batch`` drives ``vllm run-batch`` (here a stand-in script that speaks its
    file formats, since vLLM cannot run on this CPU machine)."""
    import sys

    script = tmp_path / "fake_vllm.py"
    script.write_text(FAKE_VLLM)
    spec = LLMSpec(
        backend="vllm-batch",
        model="batch-judge",
        batch_size=100,
        args={"vllm_command": f"{sys.executable} {script}", "vllm_args": ["--tensor-parallel-size", "1"]},
    )
    llm = load_llm(spec, ModelCallCache(home / "calls.sqlite"))
    assert llm.generate(asks(3, "offline"), max_new_tokens=8) == [f"seen: offline {i}" for i in range(3)]
    assert script.with_suffix(".runs").read_text() == "2"  # the failed request went into a second run
    assert llm.generate(asks(3, "offline"), max_new_tokens=8)[0] == "seen: offline 0"  # cached
    assert script.with_suffix(".runs").read_text() == "2"
    broken = LLMSpec(
        backend="vllm-batch",
        model="batch-judge",
        args={"vllm_command": f"{sys.executable} -c 'import sys; sys.exit(3)'"},
    )
    with pytest.raises(RuntimeError, match="exited with 3"):
        load_llm(broken, ModelCallCache(home / "calls.sqlite")).generate(asks(1, "x"), max_new_tokens=8)
