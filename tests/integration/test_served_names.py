"""A model served under a local path is named by its weights, never by the path.

llama.cpp's server started without ``--alias`` lists its model by the file path it was given.
Used as the name, that path went into the judge's profile version, the board key and a
mangled result folder, and the same weights served from another folder landed on another
board.  Here the project's own OpenAI-compatible test server lists a path-like id with the
description llama.cpp gives of the weights (``meta``): the judge and the model under
evaluation are named by the file's name and a hash of that description, from either folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmark.core.errors import InputError
from benchmark.core.results import ModelInfo, result_path
from benchmark.generation.model_args import model_identity
from benchmark.models.backends import load_llm
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import load_profile, with_judge
from tests.helpers.openai_server import ScriptedModel, ServerThread, create_app

#: what llama.cpp's /v1/models says of SmolLM2-135M-Instruct Q4_1 beside the path
META = {
    "vocab_type": 2,
    "n_vocab": 49152,
    "n_ctx_train": 8192,
    "n_embd": 576,
    "n_params": 134515008,
    "size": 91045248,
}
HERE = "/home/alice/models/SmolLM2-135M-Instruct.Q4_1.gguf"
THERE = "/srv/llm/weights/SmolLM2-135M-Instruct.Q4_1.gguf"


@contextmanager
def llama_server(served_id: str, meta: dict[str, int] | None = META) -> Iterator[ServerThread]:
    model = ScriptedModel(served_id, lambda messages: "ok", meta=meta)
    with ServerThread(create_app(model)) as srv:  # type: ignore[arg-type]
        yield srv


def judged(served_id: str) -> tuple[str, str]:
    """The judge's profile version and its result folder, served from ``served_id``."""
    with llama_server(served_id) as srv:
        profile = with_judge(load_profile(), model=served_id, url=srv.base_url)
        llm = load_llm(profile.llm, cache=ModelCallCache(enabled=False))
        llm.preflight()  # type: ignore[attr-defined]  # the server is asked for what it lists
        assert llm.generate([[{"role": "user", "content": "hi"}]]) == ["ok"]
    model = ModelInfo(id="org/model", revision="main")
    return profile.version, str(result_path(Path("results"), model, profile.id, "task", "icat"))


def test_a_judge_served_under_a_path_is_named_by_its_weights_from_any_folder() -> None:
    here, folder = judged(HERE)
    there, _ = judged(THERE)
    assert here == there  # the same weights from another folder: the same judge, the same board
    assert here.startswith(f"{load_profile().version}+llm:SmolLM2-135M-Instruct.Q4_1@weights-")
    for leaked in ("alice", "home", "/srv", ".gguf"):
        assert leaked not in here and leaked not in folder
    assert load_profile().model_dump() == load_profile().model_dump()  # the shipped profile untouched


def test_other_weights_under_the_same_file_name_are_another_judge() -> None:
    with llama_server(HERE, {**META, "size": META["size"] + 1}) as srv:
        other = with_judge(load_profile(), model=HERE, url=srv.base_url).version
    assert other != judged(HERE)[0]


def test_a_named_model_keeps_its_name() -> None:
    with llama_server("smollm2-q4") as srv:
        assert with_judge(load_profile(), model="smollm2-q4", url=srv.base_url).version.endswith(
            "+llm:smollm2-q4"
        )


def test_a_path_the_server_says_nothing_more_about_asks_for_an_alias() -> None:
    """vLLM serving a folder without --served-model-name: only the path could name it."""
    with llama_server("/data/ckpt/my-model", meta=None) as srv, pytest.raises(InputError, match="--alias"):
        with_judge(load_profile(), model="/data/ckpt/my-model", url=srv.base_url)


def test_a_model_under_evaluation_served_under_a_path_is_named_by_its_weights() -> None:
    names = []
    for served_id in (HERE, THERE):
        with llama_server(served_id) as srv:
            margs = {"model": served_id, "base_url": f"{srv.base_url}/chat/completions"}
            names.append(model_identity("local-chat-completions", margs))
    assert names[0] == names[1] and names[0][0] == "SmolLM2-135M-Instruct.Q4_1"
    assert names[0][1].startswith("weights-")
