"""Is the server there, and does it serve the model? One cheap request per server, before any work.

Otherwise a dead server shows only when the retries on the first real request give up.
:func:`check_servers` asks every server at once: ``GET {url}/models`` must list the model;
without that route, one 1-token completion (a Batch API server: that it answered is enough).
No connection, a timeout or HTTP 5xx: *down*; HTTP 401/403, a model not listed, a completion
refused with 404: a *configuration* error; anything else (429 included): *ready*.  A
configuration error anywhere, or every server down, is a one-line
:class:`~benchmark.core.errors.InputError`; a fleet goes on with its ready servers, but never
around one that serves another model.  ``GROUNDCOVER_SKIP_PREFLIGHT=1`` skips the check.
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.core.errors import InputError

log = logging.getLogger(__name__)

#: seconds one preflight request may take (connecting: at most 5)
PREFLIGHT_TIMEOUT = 10.0
SKIP_PREFLIGHT_ENV = "GROUNDCOVER_SKIP_PREFLIGHT"
#: how many served model ids an error lists
LISTED = 8


@dataclass(frozen=True)
class Probe:
    """What one server answered: ``problem`` is ``None`` when it is ready for the model."""

    url: str
    problem: str | None = None
    fatal: bool = False  # a configuration error (credentials, URL, model name), never worked around


def skipped() -> bool:
    return os.environ.get(SKIP_PREFLIGHT_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _one_line(text: str, limit: int = 160) -> str:
    return " ".join(text.split())[:limit]


def _transport(exc: Exception, timeout: float) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout:g}s"
    text = str(exc) or type(exc).__name__
    if "refused" in text.lower():
        return "connection refused (is the server running?)"
    return f"cannot connect ({_one_line(text)})"


def _served_ids(resp: Any) -> list[str] | None:
    """The model ids of a ``/models`` listing (OpenAI's ``{"data": [{"id": ...}]}``), or
    ``None`` where the body is no such listing."""
    try:
        data = resp.json()["data"]
        ids = [str(m["id"]) for m in data]
    except (ValueError, KeyError, TypeError):
        return None
    return ids or None


def _refused(url: str, resp: Any, where: str) -> Probe | None:
    """The server refused the API key (a configuration error) or failed (down); ``None``: neither."""
    status, body = resp.status_code, resp.text
    if status in (401, 403):
        return Probe(
            url,
            f"HTTP {status} on {where}: the server refused the API key (set api_key in the model's args, "
            f"or OPENAI_API_KEY){': ' + _one_line(body) if body.strip() else ''}",
            fatal=True,
        )
    if status >= 500:
        return Probe(url, f"HTTP {status} on {where} ({_one_line(body, 100) or 'no detail'})")
    return None


def probe_server(
    client: Any,
    url: str,
    model: str | None,
    *,
    endpoint: str = "chat",
    completion: bool = True,
    timeout: float = PREFLIGHT_TIMEOUT,
) -> Probe:
    """One server's answer to the preflight (see the module's docstring); ``url`` is the API
    root (``http://host:8000/v1``), ``model`` the name requests will carry (``None``: any)."""
    import httpx

    try:
        resp = client.get(f"{url}/models")
    except httpx.TransportError as exc:
        return Probe(url, _transport(exc, timeout))
    status = resp.status_code
    if refused := _refused(url, resp, "GET /models"):
        return refused
    ids = _served_ids(resp) if status == 200 else None
    if ids is not None:
        if model is None or model in ids:
            return Probe(url)
        shown = ", ".join(ids[:LISTED]) + (f" and {len(ids) - LISTED} more" if len(ids) > LISTED else "")
        return Probe(url, f"model {model!r} is not served there; it serves: {shown}", fatal=True)
    if status == 429 or not completion or model is None:
        return Probe(url)  # it answered; nothing more to learn without a completion
    return _probe_completion(client, url, model, endpoint, timeout)


def _probe_completion(client: Any, url: str, model: str, endpoint: str, timeout: float) -> Probe:
    """A server without a model listing: one 1-token completion names whether it serves ``model``."""
    import httpx

    path = "chat/completions" if endpoint == "chat" else "completions"
    body: dict[str, Any] = {"model": model, "max_tokens": 1, "temperature": 0}
    if endpoint == "chat":
        body["messages"] = [{"role": "user", "content": "Say OK."}]
    else:
        body["prompt"] = "OK"
    try:
        resp = client.post(f"{url}/{path}", json=body)
    except httpx.TransportError as exc:
        return Probe(url, _transport(exc, timeout))
    if refused := _refused(url, resp, f"POST /{path}"):
        return refused
    if resp.status_code == 404:
        detail = _one_line(resp.text) or "no such route or model"
        return Probe(url, f"HTTP 404 on POST /{path} for model {model!r}: {detail}", fatal=True)
    return Probe(url)  # 200, or a 4xx about the request itself: the route and the model are there


def probe_servers(
    urls: Sequence[str],
    model: str | None,
    *,
    api_key: str = "EMPTY",
    endpoint: str = "chat",
    completion: bool = True,
    timeout: float = PREFLIGHT_TIMEOUT,
) -> list[Probe]:
    """Every server asked at the same time: the whole check takes one timeout at most."""
    import httpx

    limits = httpx.Timeout(timeout, connect=min(timeout, 5.0))
    ask = functools.partial(probe_server, endpoint=endpoint, completion=completion, timeout=timeout)
    with (
        httpx.Client(timeout=limits, headers={"Authorization": f"Bearer {api_key}"}) as client,
        concurrent.futures.ThreadPoolExecutor(max(1, min(16, len(urls)))) as pool,
    ):
        return list(pool.map(lambda u: ask(client, u, model), urls))


def check_servers(
    urls: Sequence[str],
    model: str | None,
    *,
    what: str,
    hint: str,
    api_key: str = "EMPTY",
    endpoint: str = "chat",
    completion: bool = True,
    timeout: float = PREFLIGHT_TIMEOUT,
) -> list[str]:
    """The servers of ``urls`` ready for ``model``, after one request to each; ``what`` names
    the role in messages, ``hint`` where the URL comes from."""
    urls = list(urls)
    probes = probe_servers(
        urls, model, api_key=api_key, endpoint=endpoint, completion=completion, timeout=timeout
    )
    bad = [p for p in probes if p.fatal] or [p for p in probes if p.problem]
    fatal = any(p.fatal for p in probes)
    if fatal or len(bad) == len(probes):
        named = f" {model!r}" if model else ""
        if len(bad) == 1:
            p = bad[0]
            raise InputError.at(p.url, f"{what}{named} cannot be used there: {p.problem}; check {hint}")
        listed = "; ".join(f"{p.url}: {p.problem}" for p in bad)
        lead = "" if fatal else "no server of the fleet answers: "
        raise InputError.at(f"{what}{named}", f"{lead}{listed}; check {hint}")
    ready = [p.url for p in probes if p.problem is None]
    for p in probes:
        if p.problem:
            log.warning(
                "%s server %s: %s; this run goes on without it, with the %d other server(s) of the fleet",
                what,
                p.url,
                p.problem,
                len(ready),
            )
    return ready


# What a served model is called: the weights, never a path on the serving machine

#: how llama.cpp's server describes the weights it serves (``/v1/models``, each entry's ``meta``)
_WEIGHTS_META = ("vocab_type", "n_vocab", "n_ctx_train", "n_embd", "n_params", "size")


def is_local_path(name: str) -> bool:
    """Whether a served model's id is a path on the serving machine (llama.cpp's server without
    ``--alias``, vLLM's without ``--served-model-name``) rather than a name (``org/name``)."""
    return (
        name.startswith(("/", "~", "./", "../", ".\\", "\\"))
        or (len(name) > 2 and name[1] == ":" and name[2] in "/\\")
        or "\\" in name
        or name.count("/") > 1
        or name.lower().endswith((".gguf", ".bin", ".safetensors", ".ggml"))
    )


def weights_name(listed: dict[str, Any]) -> tuple[str, str]:
    """``(name, revision)`` for a ``/models`` entry whose id is a local path: the file's name, and
    a hash of what the server reports about the weights (llama.cpp's ``meta``), so the same weights
    from another folder are the same model; ``ValueError`` where it reports nothing."""
    from benchmark.models.cache import content_hash

    meta = listed.get("meta")
    if not isinstance(meta, dict) or not all(k in meta for k in _WEIGHTS_META):
        raise ValueError("the server reports nothing about the weights but their path")
    stem = str(listed["id"]).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    for suffix in (".gguf", ".ggml", ".bin", ".safetensors"):
        stem = stem.removesuffix(suffix)
    return stem, "weights-" + content_hash({k: meta[k] for k in _WEIGHTS_META})[:12]


def served_name(
    url: str, model: str, *, what: str, hint: str, api_key: str = "EMPTY", timeout: float = PREFLIGHT_TIMEOUT
) -> tuple[str, str | None]:
    """What to record for ``model`` as served at ``url``: ``(model, None)`` for a name; for a
    local path, :func:`weights_name` of the server's listing, or a one-line :class:`InputError`:
    a path would put this machine's folders into the judge's version."""
    import httpx

    if not is_local_path(model):
        return model, None
    advice = (
        f"{what} is served under the local path {model!r}; start its server with a name "
        "(llama.cpp: llama-server --alias NAME; vLLM: --served-model-name NAME) and use that name"
    )
    try:
        resp = httpx.get(
            f"{url.rstrip('/')}/models",
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            headers={"Authorization": f"Bearer {api_key}"},
        )
        return weights_name(next(m for m in resp.json()["data"] if str(m.get("id")) == model))
    except httpx.TransportError as exc:
        raise InputError.at(url, f"{advice} ({_transport(exc, timeout)}); check {hint}") from exc
    except (ValueError, KeyError, TypeError, StopIteration, AttributeError) as exc:
        raise InputError.at(url, f"{advice} ({exc or 'not listed'}); check {hint}") from exc
