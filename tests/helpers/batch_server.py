"""The OpenAI Batch API (``/v1/files``, ``/v1/batches``) on the test server, scripted.

Each submitted batch follows the next queued script (``POST /control/batch-scripts``), or
the default: ``validating`` → ``in_progress`` → ``finalizing`` → ``completed``, one step
per status request.  A script can

* ``polls``: stay ``in_progress`` for that many status requests;
* ``final``: end ``completed``, ``expired`` (only the first ``answered`` requests done,
  the rest in the error file as ``batch_expired``), ``cancelled`` or ``failed`` (the file
  refused: no output at all);
* ``fail``: line numbers (0-based) answered with HTTP 500 in the error file.

Replies come from the app's model, as ``/v1/chat/completions`` would give them.
``GET /control/batches`` lists every batch with its request count and status.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from typing import Any

from fastapi import FastAPI, Request, UploadFile
from fastapi.responses import JSONResponse, PlainTextResponse, Response

STEPS = ("validating", "in_progress", "finalizing")


def add_batch_api(app: FastAPI, model: Any) -> FastAPI:
    files: dict[str, bytes] = {}
    batches: dict[str, dict[str, Any]] = {}
    scripts: deque[dict[str, Any]] = deque()
    ids = itertools.count(1)

    @app.post("/v1/files")
    async def upload(file: UploadFile, request: Request) -> dict[str, Any]:
        form = await request.form()
        if form.get("purpose") != "batch":
            return JSONResponse({"error": {"message": "purpose must be batch"}}, status_code=400)  # type: ignore[return-value]
        file_id = f"file-{next(ids)}"
        files[file_id] = await file.read()
        return {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(files[file_id])}

    @app.get("/v1/files/{file_id}/content")
    def content(file_id: str) -> Response:
        if file_id not in files:
            return JSONResponse({"error": {"message": "no such file"}}, status_code=404)
        return PlainTextResponse(files[file_id].decode())

    @app.post("/v1/batches")
    async def create(request: Request) -> Response:
        body = await request.json()
        if body.get("input_file_id") not in files:
            return JSONResponse({"error": {"message": "no such input file"}}, status_code=400)
        script = scripts.popleft() if scripts else {}
        batch_id = f"batch_{next(ids)}"
        lines = [json.loads(x) for x in files[body["input_file_id"]].decode().splitlines() if x.strip()]
        plan = list(STEPS[:1]) + ["in_progress"] * max(1, int(script.get("polls", 1))) + ["finalizing"]
        batches[batch_id] = {
            "lines": lines,
            "plan": plan,
            "script": script,
            "status": "validating",
            "polled": 0,
        }
        return JSONResponse(_public(batch_id, batches[batch_id]))

    @app.get("/v1/batches/{batch_id}")
    def status(batch_id: str) -> Response:
        if batch_id not in batches:
            return JSONResponse({"error": {"message": "no such batch"}}, status_code=404)
        b = batches[batch_id]
        b["polled"] += 1
        if b["polled"] < len(b["plan"]):
            b["status"] = b["plan"][b["polled"]]
        elif b["status"] not in ("completed", "expired", "cancelled", "failed"):
            _finish(b, model, files, ids)
        return JSONResponse(_public(batch_id, b))

    @app.post("/control/batch-scripts")
    async def queue_scripts(request: Request) -> dict[str, int]:
        scripts.extend((await request.json())["scripts"])
        return {"queued": len(scripts)}

    @app.get("/control/batches")
    def listing() -> list[dict[str, Any]]:
        return [{"id": k, "requests": len(b["lines"]), "status": b["status"]} for k, b in batches.items()]

    return app


def _public(batch_id: str, b: dict[str, Any]) -> dict[str, Any]:
    out = {
        "id": batch_id,
        "object": "batch",
        "status": b["status"],
        "request_counts": {"total": len(b["lines"])},
    }
    for key in ("output_file_id", "error_file_id", "errors"):
        if key in b:
            out[key] = b[key]
    return out


def _finish(b: dict[str, Any], model: Any, files: dict[str, bytes], ids: Any) -> None:
    script = b["script"]
    final = script.get("final", "completed")
    b["status"] = final
    if final == "failed":
        b["errors"] = {"data": [{"code": "invalid_request", "message": "scripted refusal"}]}
        return
    answered = len(b["lines"]) if final == "completed" else int(script.get("answered", 0))
    fail = set(script.get("fail", ()))
    out, err = [], []
    for i, line in enumerate(b["lines"]):
        cid = line["custom_id"]
        if i >= answered:
            err.append(
                {"custom_id": cid, "response": None, "error": {"code": "batch_expired", "message": final}}
            )
        elif i in fail:
            body = {"error": {"message": "scripted server error"}}
            err.append({"custom_id": cid, "response": {"status_code": 500, "body": body}, "error": None})
        else:
            text, _, _ = model.complete(model.chat_prompt(line["body"]["messages"]), 16)
            reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
            out.append({"custom_id": cid, "response": {"status_code": 200, "body": reply}, "error": None})
    for key, rows in (("output_file_id", out), ("error_file_id", err)):
        if rows:
            file_id = f"file-{next(ids)}"
            files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
            b[key] = file_id
