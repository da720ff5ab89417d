"""The providers' batch APIs: a judge's requests as one OpenAI Batch file, at half the price.

``backend: openai-batch`` sends every uncached request of a ``generate`` call as one Batch
(uploaded through ``/v1/files``, submitted through ``/v1/batches``, polled with growing waits),
and caches each reply as it is read: the judge is the same model as through the live API, so
the cache is shared with ``backend: openai``.  Unanswered requests go into a new batch, up to
``max_attempts`` rounds, then fail that item (never an empty reply); a batch ``failed`` as a
whole stops the run.  Each submitted batch is recorded under ``$GROUNDCOVER_HOME/batches/``, so
the next run asking for its requests adopts it instead of paying again after a kill.
"""

from __future__ import annotations

import json
import logging
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.core import paths
from benchmark.core.checkpoint import write_atomic
from benchmark.core.errors import InputError
from benchmark.models.cache import ModelCallCache, content_hash, repeat_payload
from benchmark.models.llm import LLMUnavailable, Messages, OpenAILLM, call_payload
from benchmark.models.profiles import LLMSpec

log = logging.getLogger(__name__)

#: a batch's states once the provider has stopped working on it
FINISHED = {"completed", "expired", "cancelled"}


@dataclass
class _Exchange:
    """One ``generate`` call's requests by custom id, with the replies and errors so far."""

    bodies: dict[str, tuple[Messages, dict[str, Any]]]
    params: dict[str, Any]
    replies: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def pending(self) -> dict[str, dict[str, Any]]:
        return {c: b for c, (_, b) in self.bodies.items() if c not in self.replies}


class BatchLLM(OpenAILLM):
    """An OpenAI-compatible provider's Batch API (``/v1/files`` and ``/v1/batches``).

    ``args`` beyond :class:`OpenAILLM`'s: ``poll_interval`` (default 10 s), ``max_poll_interval``
    (300), ``completion_window`` (``24h``), ``batch_timeout`` (90000 s); ``max_attempts`` counts
    batch rounds.  The identity is :class:`OpenAILLM`'s: a batch does not change a reply."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        super().__init__(spec, cache)
        args = spec.args
        self.poll_interval = float(args.poll_interval or 10.0)
        self.max_poll_interval = float(args.max_poll_interval or 300.0)
        self.completion_window = str(args.completion_window or "24h")
        self.batch_timeout = float(args.batch_timeout or 90000.0)
        self.batches_submitted = 0
        self.state_dir = paths.home() / "batches" / content_hash(self.identity)[:16]

    #: the provider batches go to (the first ``base_url``) must answer and list the model;
    #: without a ``/models`` route, that it answered is enough (no live completion)
    live_preflight = False

    # -- the whole exchange ----------------------------------------------------------
    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        params = {"max_new_tokens": max_new_tokens, "temperature": temperature, "seed": seed}
        ids = [self._custom_id(m, params) for m in requests]
        bodies = {
            c: (m, self._body(m, max_new_tokens, temperature, seed))
            for c, m in zip(ids, requests, strict=True)
        }
        ex = _Exchange(bodies, params)
        self._exchange(ex)
        return [
            ex.replies[c]
            if c in ex.replies
            else LLMUnavailable(
                f"batch: no reply after {self.max_attempts} rounds ({ex.errors.get(c, 'not answered')})"
            )
            for c in ids
        ]

    def _exchange(self, ex: _Exchange) -> None:
        """Batches adopted from a killed run, then rounds of new ones until all is answered."""
        import httpx

        with httpx.Client(
            timeout=self.timeout, headers={"Authorization": f"Bearer {self.api_key}"}
        ) as client:
            server = self.base_urls[0]
            for state in self._adoptable(set(ex.bodies)):
                log.info(
                    "batch %s: resuming a batch submitted before (%d requests)",
                    state["batch_id"],
                    len(state["custom_ids"]),
                )
                self._collect(client, server, state, ex)
            for attempt in range(1, self.max_attempts + 1):
                if not (pending := ex.pending()):
                    break
                state = self._submit(client, server, pending)
                log.info(
                    "batch %s: %d requests submitted (round %d/%d)",
                    state["batch_id"],
                    len(pending),
                    attempt,
                    self.max_attempts,
                )
                self._collect(client, server, state, ex)

    @staticmethod
    def _custom_id(messages: Messages, params: dict[str, Any]) -> str:
        return "gc-" + content_hash(list(messages), params)[:32]

    # -- provider calls ---------------------------------------------------------------
    def _call(self, client: Any, method: str, url: str, **kwargs: Any) -> Any:
        """One API call, retried on transport errors, 429 and 5xx like a live request."""
        import httpx

        last = ""
        for attempt in range(1, self.max_attempts + 1):
            try:
                resp = client.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                last = f"transport error: {exc}"
            else:
                if resp.status_code == 200:
                    return resp
                if resp.status_code in (429,) or resp.status_code >= 500:
                    last = f"HTTP {resp.status_code}"
                else:
                    raise RuntimeError(f"{url}: HTTP {resp.status_code}: {resp.text[:300]}")
            self.http_failures.append(f"{url}: {last}")
            time.sleep(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))
        raise RuntimeError(f"{url}: gave up after {self.max_attempts} attempts ({last})")

    @property
    def _path(self) -> str:
        return "/v1/chat/completions" if self.endpoint == "chat" else "/v1/completions"

    def _batch_file(self, bodies: dict[str, dict[str, Any]]) -> str:
        """The OpenAI Batch input format: one request a line, named by its custom id."""
        return "".join(
            json.dumps({"custom_id": c, "method": "POST", "url": self._path, "body": b}) + "\n"
            for c, b in bodies.items()
        )

    def _submit(self, client: Any, server: str, bodies: dict[str, dict[str, Any]]) -> dict[str, Any]:
        lines = self._batch_file(bodies)
        upload = self._call(
            client,
            "POST",
            f"{server}/files",
            files={"file": ("groundcover-batch.jsonl", lines.encode(), "application/jsonl")},
            data={"purpose": "batch"},
        ).json()
        batch = self._call(
            client,
            "POST",
            f"{server}/batches",
            json={
                "input_file_id": upload["id"],
                "endpoint": self._path,
                "completion_window": self.completion_window,
            },
        ).json()
        self.batches_submitted += 1
        state = {
            "batch_id": batch["id"],
            "server": server,
            "custom_ids": list(bodies),
            "submitted": time.time(),
        }
        write_atomic(self._state_file(batch["id"]), json.dumps(state))
        return state

    def _state_file(self, batch_id: str) -> Path:
        return self.state_dir / f"{content_hash(batch_id)[:24]}.json"

    def _adoptable(self, wanted: set[str]) -> Iterator[dict[str, Any]]:
        """Batches a killed run submitted whose requests are all asked for again."""
        if not self.state_dir.is_dir():
            return
        for f in sorted(self.state_dir.glob("*.json")):
            try:
                state = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            if state.get("server") in self.base_urls and set(state.get("custom_ids", ())) <= wanted:
                yield state

    def _wait(self, client: Any, server: str, batch_id: str) -> dict[str, Any]:
        """Poll until the provider stops working on the batch, each wait longer than the last."""
        wait, started = self.poll_interval, time.monotonic()
        while True:
            batch = self._call(client, "GET", f"{server}/batches/{batch_id}").json()
            status = batch.get("status")
            if status in FINISHED or status == "failed":
                return batch
            if time.monotonic() - started > self.batch_timeout:
                raise LLMUnavailable(f"batch {batch_id} still {status} after {self.batch_timeout:.0f}s")
            time.sleep(wait)
            wait = min(self.max_poll_interval, wait * 1.5)

    def _collect(self, client: Any, server: str, state: dict[str, Any], ex: _Exchange) -> None:
        """Wait for one batch, cache every reply it holds, note every error; forget the batch."""
        batch_id = state["batch_id"]
        batch = self._wait(client, server, batch_id)
        if batch["status"] == "failed":
            self._state_file(batch_id).unlink(missing_ok=True)
            detail = json.dumps(batch.get("errors"))[:500]
            raise RuntimeError(
                f"{server}: batch {batch_id} failed as a whole (its file was refused): {detail}"
            )
        for file_key in ("output_file_id", "error_file_id"):
            if batch.get(file_key):
                self._read(self._call(client, "GET", f"{server}/files/{batch[file_key]}/content").text, ex)
        self._state_file(batch_id).unlink(missing_ok=True)
        if unanswered := [c for c in state["custom_ids"] if c not in ex.replies]:
            log.warning(
                "batch %s (%s): %d of %d requests unanswered",
                batch_id,
                batch["status"],
                len(unanswered),
                len(state["custom_ids"]),
            )

    def _read(self, content: str, ex: _Exchange) -> None:
        for line in content.splitlines():
            if line.strip():
                self._read_line(line, ex)

    def _read_line(self, line: str, ex: _Exchange) -> None:
        try:
            row = json.loads(line)
            custom_id = row["custom_id"]
        except (ValueError, KeyError, TypeError):
            self.http_failures.append(f"batch file: unreadable line {line[:100]!r}")
            return
        if custom_id not in ex.bodies:
            return  # another run's request in a shared batch: not ours to read
        response = row.get("response") or {}
        if response.get("status_code") == 200 and not row.get("error"):
            try:
                text = self._text(response["body"])
            except (KeyError, IndexError, TypeError) as exc:
                ex.errors[custom_id] = f"malformed reply body: {exc}"
                return
            ex.replies[custom_id] = text
            # under the key generate() looks it up by: repeat r of a judgement keys its repeat
            self._keep(repeat_payload(call_payload(ex.bodies[custom_id][0], ex.params)), text)
            return
        error = row.get("error") or {}
        ex.errors[custom_id] = (
            f"{error.get('code', 'error')}: {error.get('message', '')}".strip()
            if error
            else f"HTTP {response.get('status_code')}"
        )
        self.http_failures.append(f"batch {custom_id}: {ex.errors[custom_id]}")


class VLLMRunBatch(BatchLLM):
    """vLLM's offline batch runner (``vllm run-batch``, or ``args.vllm_command``, plus
    ``args.vllm_args``) on this machine's GPUs: the same Batch file, no server."""

    @property
    def command(self) -> list[str]:
        return shlex.split(str(self.spec.args.vllm_command or "vllm"))

    def preflight(self, *, what: str = "the LLM", hint: str = "its base_url") -> None:
        """No server to ask: the command that runs the batches must be there."""
        command = self.command
        if not command or shutil.which(command[0]) is None:
            raise InputError.at(
                "llm.args.vllm_command",
                f"{what} runs `{shlex.join(command) or 'vllm'} run-batch`, but "
                f"{command[0] if command else 'the command'!r} is not on PATH; install vLLM "
                "(pip install 'groundcover[vllm]') on a GPU machine, or set llm.args.vllm_command",
            )

    def _exchange(self, ex: _Exchange) -> None:
        extra = [str(a) for a in self.spec.args.vllm_args or []]
        for attempt in range(1, self.max_attempts + 1):
            if not (pending := ex.pending()):
                return
            with tempfile.TemporaryDirectory(prefix="groundcover-run-batch-") as tmp:
                source, target = Path(tmp) / "requests.jsonl", Path(tmp) / "replies.jsonl"
                source.write_text(self._batch_file(pending), encoding="utf-8")
                argv = [
                    *self.command,
                    "run-batch",
                    "-i",
                    str(source),
                    "-o",
                    str(target),
                    "--model",
                    self.spec.model,
                ]
                log.info(
                    "vllm run-batch: %d requests (round %d/%d)", len(pending), attempt, self.max_attempts
                )
                self.batches_submitted += 1
                done = subprocess.run([*argv, *extra], capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise RuntimeError(
                        f"{shlex.join(argv)} exited with {done.returncode}: {done.stderr[-800:]}"
                    )
                if target.exists():
                    self._read(target.read_text(encoding="utf-8"), ex)
