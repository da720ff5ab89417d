"""How the page reaches a visitor: compressed, without downloaded fonts, Plotly's bundle fetched
early and precompressed.  Nothing here changes what the page shows; why each step, and what
it saved, is in docs/measurements.md ("The Space's page load")."""

from __future__ import annotations

import gzip
import logging
import threading
from pathlib import Path
from typing import Any

import brotli
import gradio as gr
from starlette.responses import Response

from benchmark.core import paths

log = logging.getLogger(__name__)
IMMUTABLE = "public, max-age=31536000, immutable"  # the bundle's name changes with its content

#: Gradio's built front end, whose Plotly bundle is precompressed and preloaded
ASSETS = Path(gr.__file__).resolve().parent / "templates" / "frontend" / "assets"


def theme() -> Any:
    """Gradio's default theme with the system's fonts (it otherwise downloads two families)."""
    return gr.themes.Default(
        font=("ui-sans-serif", "system-ui", "sans-serif"), font_mono=("ui-monospace", "Consolas", "monospace")
    )


def plotly_bundle() -> Path | None:
    """Gradio's Plotly bundle (its name carries a content hash), if this Gradio has one."""
    found = sorted(ASSETS.glob("PlotlyPlot-*.js"))
    return found[0] if found else None


def head() -> str:
    """Plotly's bundle fetched as soon as the page is read, but compiled only when a figure
    imports it (at once, it took CPU from drawing the table), and the module that loads it."""
    bundle = plotly_bundle()
    fetch = f"<link rel='preload' as='script' crossorigin href='assets/{bundle.name}'>" if bundle else ""
    return fetch + "".join(
        f"<link rel='modulepreload' href='assets/{p.name}'>" for p in ASSETS.glob("Plot-*.js")
    )


def _cached(bundle: Path) -> Path:
    return paths.home() / "space" / f"{bundle.name}.q11.br"


def precompress() -> Path | None:
    """Plotly's bundle at brotli quality 11, made once (atomically) under groundcover's home."""
    bundle = plotly_bundle()
    if bundle is None:
        return None
    target = _cached(bundle)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(f".{threading.get_ident()}.part")
    part.write_bytes(brotli.compress(bundle.read_bytes(), quality=11, lgwin=24))
    part.replace(target)
    return target


def precompress_in_background() -> None:
    """:func:`precompress` on a thread of its own: the page is served at once."""

    def run() -> None:
        try:
            precompress()
        except OSError as exc:  # a home we cannot write: Gradio's own compression stays
            log.warning("Plotly's bundle not precompressed: %s", exc)

    threading.Thread(target=run, name="groundcover-precompress", daemon=True).start()


class CompressedPage:
    """ASGI middleware: the page (``GET /``) compressed, Plotly's bundle precompressed once
    ready; everything else untouched (Gradio's streams must not be buffered)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        bundle = plotly_bundle()
        self.bundle = f"/assets/{bundle.name}" if bundle else None
        self.cached = _cached(bundle) if bundle else None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        accepts = dict(scope.get("headers") or []).get(b"accept-encoding", b"").decode("latin-1")
        path = str(scope.get("path", ""))
        if scope.get("method") != "GET" or not ("br" in accepts or "gzip" in accepts):
            await self.app(scope, receive, send)
        elif path == self.bundle and "br" in accepts and self.cached is not None and self.cached.exists():
            headers = {"content-encoding": "br", "vary": "Accept-Encoding", "cache-control": IMMUTABLE}
            await Response(self.cached.read_bytes(), 200, headers, "text/javascript")(scope, receive, send)
        elif path.rstrip("/") == str(scope.get("root_path", "")).rstrip("/"):
            await _compressed(self.app, scope, receive, send, "br" if "br" in accepts else "gzip")
        else:
            await self.app(scope, receive, send)


async def _compressed(app: Any, scope: dict[str, Any], receive: Any, send: Any, encoding: str) -> None:
    """Run ``app`` and send its whole HTML response compressed (other responses as they are)."""
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def collect(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            return
        if message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        body = b"".join(chunks)
        html = any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)
        if html and not any(k.lower() == b"content-encoding" for k, _ in headers):
            body = (
                brotli.compress(body, quality=5) if encoding == "br" else gzip.compress(body, compresslevel=6)
            )
            headers += [(b"content-encoding", encoding.encode()), (b"vary", b"Accept-Encoding")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    await app(scope, receive, collect)
