"""The counting server of ``benchmarks/peer_cost.py`` counts calls and tokens correctly.

The peer-cost table is only as good as its meter: every request must be counted once, under
the judgement the replay names, with the prompt tokens a served SmolLM2 would see (its chat
template applied, plus a forced tool's schema) and the tokens of the reply it sent back —
and the ``usage`` the client gets must say the same.  A tiny httpx client checks that
against the tokenizer directly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from counting_server import Tally, TokenMeter, create_counting_app, smollm2_tokenizer

from tests.helpers.openai_server import ServerThread


def reply(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """A replay whose judgement name and reply depend on the request."""
    last = messages[-1]["content"]
    return ("long", "one two three four five six") if "long" in last else ("short", "yes")


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return smollm2_tokenizer()


def expected_prompt(tok: Any, messages: list[dict[str, str]]) -> int:
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    return len(ids["input_ids"] if hasattr(ids, "keys") else ids)


def test_counts_calls_and_tokens_per_judgement(tokenizer: Any) -> None:
    tally = Tally()
    app = create_counting_app(TokenMeter(tokenizer), reply, tally, name="judge")
    short = [{"role": "system", "content": "You judge."}, {"role": "user", "content": "Is it so?"}]
    long = [{"role": "user", "content": "A long question about nuggets and passages, please."}]
    tools = [{"type": "function", "function": {"name": "answer", "parameters": {"type": "object"}}}]
    with ServerThread(app) as server, httpx.Client(base_url=server.base_url, timeout=30) as client:
        got = [
            client.post("/chat/completions", json={"model": "judge", "messages": short}).json(),
            client.post("/chat/completions", json={"model": "judge", "messages": short}).json(),
            client.post(
                "/chat/completions",
                json={"model": "judge", "messages": long, "tools": tools,
                      "tool_choice": {"type": "function", "function": {"name": "answer"}}},
            ).json(),
        ]  # fmt: skip
        stats = client.get(server.base_url.removesuffix("/v1") + "/control/stats").json()

    n_short = expected_prompt(tokenizer, short)
    n_long = expected_prompt(tokenizer, long) + len(
        tokenizer(json.dumps(tools), add_special_tokens=False)["input_ids"]
    )
    n_yes = len(tokenizer("yes", add_special_tokens=False)["input_ids"])
    n_six = len(tokenizer("one two three four five six", add_special_tokens=False)["input_ids"])
    assert n_short > 5 and n_long > n_short and n_six > n_yes  # the tokenizer really tokenised
    assert stats == {
        "short": {"calls": 2, "prompt_tokens": 2 * n_short, "completion_tokens": 2 * n_yes},
        "long": {"calls": 1, "prompt_tokens": n_long, "completion_tokens": n_six},
    }
    assert got[0]["usage"] == {
        "prompt_tokens": n_short,
        "completion_tokens": n_yes,
        "total_tokens": n_short + n_yes,
    }
    assert got[0]["choices"][0]["message"]["content"] == "yes"
    call = got[2]["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call == {"name": "answer", "arguments": "one two three four five six"}
    tally.reset()
    assert tally.snapshot() == {}
