"""The real-judge recipe of the README, on two local OpenAI-compatible servers.

One server plays the model under evaluation (``--model local-chat-completions``), the other
the judge, reached with ``--judge-url`` / ``--judge-model`` on a shipped profile, with no
profile YAML copied.  As on a GPU machine with two ``vllm serve`` processes, only the ports
differ.  The judge's model name makes the profile another judge: its version carries
``+llm:<model>`` into the result and onto a board of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.cli.main import main
from benchmark.families.exam.bank import task_bank
from benchmark.models.profiles import load_profile
from benchmark.tasks import load_task
from tests.helpers.openai_server import ScriptedModel, ServerThread, control, create_app, exam_reader

pytestmark = pytest.mark.slow

KEYS = [q.answer for q in task_bank(load_task("webtrack-2009-2012"))["175"]]


def answer(messages: list[dict[str, str]]) -> str:
    """The evaluated model: states three of the five keys of topic 175's exam."""
    return f"Signs: {KEYS[0]}. Also {KEYS[2]}, and {KEYS[4]}."


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[ServerThread, ServerThread]]:
    with (
        ServerThread(create_app(ScriptedModel("evaluated-model", answer))) as model,  # type: ignore[arg-type]
        ServerThread(create_app(ScriptedModel("judge-model", exam_reader))) as judge,  # type: ignore[arg-type]
    ):
        yield model, judge


def test_evaluated_model_and_judge_on_two_ports(
    servers: tuple[ServerThread, ServerThread], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, judge = servers
    assert model.base_url != judge.base_url
    monkeypatch.chdir(tmp_path)
    args = [
        "evaluate", "--model", "local-chat-completions",
        "--model-args", f"model=evaluated-model,base_url={model.base_url}/chat/completions",
        "--tasks", "webtrack-2009-2012", "--limit", "1", "--metrics", "exam", "--exam-answerer", "llm",
        "--judge-profile", "offline-smollm2-minilm-sim",
        "--judge-url", judge.base_url, "--judge-model", "judge-model", "--no-progress",
    ]  # fmt: skip
    assert main(args) == 0
    assert control(model, "stats")["requests"] == 1  # one query answered over HTTP
    assert control(judge, "stats")["requests"] >= 65  # 60 gold questions + the 5 of the answer

    (result_file,) = Path("results").rglob("webtrack-2009-2012.exam.json")
    result = json.loads(result_file.read_text(encoding="utf-8"))
    assert result["judge_profile"]["version"] == f"{load_profile().version}+llm:judge-model"
    assert result["judge_profile"]["llm"]["model"] == "judge-model"
    assert result["judge_profile"]["llm"]["args"]["base_url"] == judge.base_url
    assert result["model"]["id"] == "evaluated-model"
    (query,) = result["per_query"]
    assert query["query_id"] == "175" and query["scores"]["exam"] == pytest.approx(0.6)


def test_the_environment_names_the_judge_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmark.core.errors import InputError
    from benchmark.models.profiles import with_judge

    offline = load_profile("offline-smollm2-minilm-sim")
    monkeypatch.setenv("GROUNDCOVER_JUDGE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(InputError, match="--judge-model"):  # a local judge moved to a server must be named
        with_judge(offline)
    monkeypatch.setenv("GROUNDCOVER_JUDGE_MODEL", "m")
    moved = with_judge(offline)
    assert (moved.llm.backend, moved.llm.model, moved.id) == (
        "openai",
        "m",
        f"offline-smollm2-minilm-sim@{offline.version}+llm:m",
    )
    paper = load_profile("paper-deberta-llama")
    monkeypatch.delenv("GROUNDCOVER_JUDGE_MODEL")
    elsewhere = with_judge(paper)  # the same judge at another port is the same judge
    assert elsewhere.id == paper.id and elsewhere.llm.args.base_url == "http://127.0.0.1:9/v1"
