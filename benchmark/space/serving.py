"""How the page reaches a visitor: lighter and sooner (issue 52, item 8: it weighed 2.62 MB and
drew its first figure 4-6 s after opening on a loaded machine).

Measured where the bytes went (``benchmarks/space_load.py``): Gradio serves the page itself
(~0.9 MB of HTML carrying every tab's tables and figures) uncompressed, because its brotli
middleware compresses only paths that end in a file extension; it compresses Plotly's bundle
(4.6 MB, 1.28 MB sent) on the fly at brotli quality 4; the theme's web fonts add 0.15 MB; and
the browser asks for Plotly only once the first figure's component is mounted, ~1.5 s in.
So here:

* :class:`CompressedPage` sends the page compressed (brotli, or gzip where brotli is not
  accepted) — the same bytes, a tenth the size;
* it sends Plotly's bundle compressed at brotli's highest quality once that is made
  (:func:`precompress`: ~13 s of one core, once per Gradio version, kept under groundcover's
  home; Gradio's own compression until then) — 0.96 MB instead of 1.28;
* :func:`theme` is Gradio's default theme with the system's fonts instead of downloaded ones;
* :func:`head` has the browser fetch Plotly's bundle at once, in parallel with the rest of the
  page, but compile it only when a figure imports it;
* the landing tab's first figure is sketched as a light SVG until Plotly draws it
  (:func:`benchmark.space.figures.sketch`): Plotly's bundle took 1-1.5 s of the main thread
  after the table, several seconds on a loaded machine.

Nothing here changes what the page shows; only how it is sent.
"""

from __future__ import annotations

import gzip
import logging
import threading
from pathlib import Path
from typing import Any

import gradio as gr

from benchmark.core import paths

log = logging.getLogger(__name__)

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
    """The page's ``<head>`` additions: Plotly's bundle fetched as soon as the page is read but
    compiled only when a figure imports it (compiling its 4.6 MB at once took CPU from drawing
    the table and the sketch), and the small module that loads it."""
    bundle = plotly_bundle()
    fetch = f"<link rel='preload' as='script' crossorigin href='assets/{bundle.name}'>" if bundle else ""
    return fetch + "".join(
        f"<link rel='modulepreload' href='assets/{p.name}'>" for p in ASSETS.glob("Plot-*.js")
    )


def _cached(bundle: Path) -> Path:
    return paths.home() / "space" / f"{bundle.name}.q11.br"


def precompress() -> Path | None:
    """Plotly's bundle at brotli quality 11, made once (atomically) under groundcover's home;
    ``None`` where there is no bundle or no brotli."""
    bundle = plotly_bundle()
    if bundle is None:
        return None
    target = _cached(bundle)
    if target.exists():
        return target
    try:
        import brotli
    except ImportError:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(f".{threading.get_ident()}.part")
    part.write_bytes(brotli.compress(bundle.read_bytes(), quality=11, lgwin=24))
    part.replace(target)
    return target


def precompress_in_background() -> None:
    """:func:`precompress` on a thread of its own (brotli lets go of the GIL): the page is
    served at once, and Plotly's bundle smaller as soon as it is ready."""

    def run() -> None:
        try:
            precompress()
        except OSError as exc:  # a home we cannot write: Gradio's own compression stays
            log.warning("Plotly's bundle not precompressed: %s", exc)

    threading.Thread(target=run, name="groundcover-precompress", daemon=True).start()


class CompressedPage:
    """ASGI middleware under Gradio's own: the page (``GET /``, HTML) compressed, and Plotly's
    bundle sent precompressed when it is ready.  Everything else passes through untouched
    (Gradio's streams in particular: they must not be buffered)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        bundle = plotly_bundle()
        self.bundle = f"/assets/{bundle.name}" if bundle else None
        self.cached = _cached(bundle) if bundle else None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        accepts = _header(scope, b"accept-encoding")
        path = str(scope.get("path", ""))
        if path == self.bundle and "br" in accepts and self.cached is not None and self.cached.exists():
            body = self.cached.read_bytes()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/javascript; charset=utf-8"),
                        (b"content-encoding", b"br"),
                        (b"content-length", str(len(body)).encode()),
                        (b"cache-control", b"public, max-age=31536000, immutable"),
                        (b"vary", b"Accept-Encoding"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        if path.rstrip("/") != str(scope.get("root_path", "")).rstrip("/") or not (
            "br" in accepts or "gzip" in accepts
        ):
            await self.app(scope, receive, send)
            return
        await _compressed(self.app, scope, receive, send, "br" if "br" in accepts else "gzip")


def _header(scope: dict[str, Any], name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == name), "")


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
            if encoding == "br":
                import brotli

                body = brotli.compress(body, quality=5)
            else:
                body = gzip.compress(body, compresslevel=6)
            headers += [(b"content-encoding", encoding.encode()), (b"vary", b"Accept-Encoding")]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    await app(scope, receive, collect)
