"""A real OpenAI-compatible HTTP server around a local model, with injectable faults.

Tests of the HTTP judge backend and of lm-eval's API backends need a server that
speaks the protocol, serves a real model, and misbehaves on demand — hosted APIs
time out, rate-limit and return garbage, and the retry code only earns trust by being
exercised against that.  Faults are queued with ``POST /control/faults`` (consumed one
per completion request, in order) or set for one request with the ``X-Fault`` header:

* ``malformed`` — HTTP 200 with a body that is not JSON;
* ``delay:<seconds>`` — sleep before answering (beyond the client's timeout);
* ``429:<retry-after seconds>`` — rate limited, with a ``Retry-After`` header;
* ``500`` — internal server error.

``POST /control/down`` with ``{"after": N}`` lets N more completion requests through and
then answers every one with HTTP 503 — a judge that dies halfway — until ``POST
/control/up``.  ``GET /control/stats`` counts completion requests, so tests can check retries and
that cached calls never reach the server; ``GET /control/received`` returns the chat
messages received.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response


class LocalModel:
    """Greedy generation with a transformers model; one request at a time."""

    def __init__(self, path: Path | str, name: str | None = None) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = name or str(path)  # what /v1/models lists (vllm serve --served-model-name)
        self.tok = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForCausalLM.from_pretrained(path).eval()
        self.lock = threading.Lock()

    def complete(self, prompt: str, max_tokens: int) -> tuple[str, int, int]:
        import torch

        with self.lock, torch.inference_mode():
            enc = self.tok(prompt, return_tensors="pt")
            out = self.model.generate(
                **enc, max_new_tokens=max_tokens, do_sample=False, pad_token_id=self.tok.eos_token_id
            )
            new = out[0, enc["input_ids"].shape[1] :]
            return self.tok.decode(new, skip_special_tokens=True), enc["input_ids"].shape[1], len(new)

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        if self.tok.chat_template:
            return str(self.tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
        return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"


def create_app(model: LocalModel, api_key: str | None = None) -> FastAPI:
    """The FastAPI app: ``/v1/models``, ``/v1/chat/completions``, ``/v1/completions``, controls.

    With ``api_key``, every ``/v1/`` request must carry ``Authorization: Bearer <api_key>``
    (HTTP 401 otherwise), as ``vllm serve --api-key`` checks it."""
    app = FastAPI()
    if api_key is not None:

        @app.middleware("http")
        async def check_key(request: Request, call_next: Any) -> Response:
            if (
                request.url.path.startswith("/v1/")
                and request.headers.get("authorization") != f"Bearer {api_key}"
            ):
                return JSONResponse({"error": "invalid API key"}, status_code=401)
            return await call_next(request)

    faults: deque[str] = deque()
    stats = {"requests": 0, "faults": 0}
    received: list[Any] = []  # request bodies' messages / prompts, for tests to inspect
    down: dict[str, int | None] = {"after": None}  # requests still answered before the server is down

    def take_fault(request: Request) -> str | None:
        stats["requests"] += 1
        if down["after"] is not None:
            if down["after"] <= 0:
                stats["faults"] += 1
                return "503"
            down["after"] -= 1
        fault = request.headers.get("x-fault") or (faults.popleft() if faults else None)
        if fault:
            stats["faults"] += 1
        return fault

    def faulty_response(fault: str) -> Response | None:
        if fault == "malformed":
            return PlainTextResponse('{"choices": [ this is not json', media_type="application/json")
        if fault.startswith("delay:"):
            time.sleep(float(fault.split(":", 1)[1]))
            return None
        if fault.startswith("429"):
            retry_after = fault.split(":", 1)[1] if ":" in fault else "1"
            return JSONResponse(
                {"error": "rate limited"}, status_code=429, headers={"Retry-After": retry_after}
            )
        if fault == "500":
            return JSONResponse({"error": "internal error"}, status_code=500)
        if fault == "503":
            return JSONResponse({"error": "service unavailable"}, status_code=503)
        raise ValueError(f"unknown fault {fault!r}")

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        listed: dict[str, Any] = {"id": model.name, "object": "model", "owned_by": "tests"}
        meta = getattr(model, "meta", None)
        if meta is not None:  # llama.cpp's server describes the weights it serves
            listed["meta"] = meta
        return {"object": "list", "data": [listed]}

    def chat_sync(fault: str | None, body: dict[str, Any]) -> Response:
        if fault and (resp := faulty_response(fault)) is not None:
            return resp
        received.append(body["messages"])
        prompt = model.chat_prompt(body["messages"])
        text, n_in, n_out = model.complete(prompt, int(body.get("max_tokens") or 16))
        return JSONResponse(
            {
                "id": f"chatcmpl-{stats['requests']}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", model.name),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
                ],
                "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out},
            }
        )

    def completions_sync(fault: str | None, body: dict[str, Any]) -> Response:
        if fault and (resp := faulty_response(fault)) is not None:
            return resp
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        choices = []
        for i, prompt in enumerate(prompts):
            text, _, _ = model.complete(str(prompt), int(body.get("max_tokens") or 16))
            choices.append({"index": i, "text": text, "finish_reason": "length", "logprobs": None})
        return JSONResponse(
            {"id": "cmpl", "object": "text_completion", "model": body.get("model"), "choices": choices}
        )

    # Generation and injected delays block, so they run in worker threads: one slow
    # request must not stall the others, as on a real server.
    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        fault = take_fault(request)
        return await asyncio.to_thread(chat_sync, fault, await request.json())

    @app.post("/v1/completions")
    async def completions(request: Request) -> Response:
        fault = take_fault(request)
        return await asyncio.to_thread(completions_sync, fault, await request.json())

    @app.post("/control/faults")
    async def add_faults(request: Request) -> dict[str, Any]:
        faults.extend((await request.json())["faults"])
        return {"queued": len(faults)}

    @app.get("/control/stats")
    def get_stats() -> dict[str, int]:
        return dict(stats)

    @app.get("/control/received")
    def get_received() -> list[Any]:
        return list(received)

    @app.post("/control/down")
    async def go_down(request: Request) -> dict[str, Any]:
        down["after"] = int((await request.json())["after"])
        return dict(down)

    @app.post("/control/up")
    def come_up() -> dict[str, Any]:
        down["after"] = None
        return dict(down)

    @app.post("/control/reset")
    def reset() -> dict[str, int]:
        down["after"] = None
        faults.clear()
        received.clear()
        stats.update(requests=0, faults=0)
        return dict(stats)

    return app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """Run the app with uvicorn on 127.0.0.1:<free port> in a background thread."""

    def __init__(self, app: FastAPI) -> None:
        import uvicorn

        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if time.time() > deadline or not self.thread.is_alive():
                raise RuntimeError("test server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class ScriptedModel:
    """A server 'model' whose reply is a function of the chat messages (sent as JSON):
    a scripted judge behind the real HTTP protocol.  ``meta``: what llama.cpp's server lists
    about the weights beside their id (``vocab_type``, ``n_params``, ``size``, ...)."""

    def __init__(self, name: str, reply: Any, meta: dict[str, Any] | None = None) -> None:
        self.name = name
        self.reply = reply
        self.meta = meta  # llama.cpp's description of the weights in /v1/models, where given

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        import json

        return json.dumps(messages)

    def complete(self, prompt: str, max_tokens: int) -> tuple[str, int, int]:
        import json

        return self.reply(json.loads(prompt)), 0, 0


def control(server: ServerThread, path: str, **body: Any) -> Any:
    """The server's control endpoints: ``reset``, ``faults`` (POST), ``stats``, ``received`` (GET)."""
    import httpx

    root = server.base_url.removesuffix("/v1")
    if body or path in ("reset", "up"):
        return httpx.post(f"{root}/control/{path}", json=body).json()
    return httpx.get(f"{root}/control/{path}").json()


def http_judge_profile(folder: Path, server: ServerThread, name: str, model: str, **llm: Any) -> Path:
    """The offline profile with its LLM replaced by ``model`` on ``server`` (OpenAI-compatible),
    written to ``folder``; fast retries so injected faults cost nothing."""
    import yaml

    from benchmark.core import paths

    profile = yaml.safe_load((paths.PROFILES_DIR / "offline-smollm2-minilm-sim.yaml").read_text())
    profile["name"], profile["offline"] = name, False
    profile["llm"] = {
        "backend": "openai",
        "model": model,
        "max_new_tokens": 256,
        "batch_size": 4,
        "max_retries": 2,
        "args": {"base_url": server.base_url, "backoff": 0.05, "max_attempts": 3, "timeout": 10},
        **llm,
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(profile))
    return path


def judged_text(messages: list[dict[str, str]], marker: str) -> tuple[str, str]:
    """The last user turn holding ``marker`` (e.g. "Question:"), and the text it asks about
    (between "Text:" and the marker), as groundcover's judge prompts lay them out."""
    turn = next(m["content"] for m in reversed(messages) if marker in m["content"])
    return turn, turn.split("Text:\n", 1)[1].split(f"\n\n{marker}", 1)[0]


def exam_reader(messages: list[dict[str, str]]) -> str:
    """A scripted EXAM reader: the letter of the option the text states ("Answer: none" when
    it states none); garbage when the text says GARBLE, as a judge that cannot be parsed."""
    import re

    turn, text = judged_text(messages, "Question:")
    if "GARBLE" in text:
        return "I would rather not say."
    for letter, option in re.findall(r"^([A-J])\) (.+)$", turn, flags=re.M):
        if option.lower() in text.lower():
            return f"Answer: {letter}"
    return "Answer: none"
