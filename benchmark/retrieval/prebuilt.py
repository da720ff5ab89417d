"""pyserini's prebuilt Lucene indexes by name (``--lucene-index prebuilt:<name>``), downloaded on demand.

Archive URLs and MD5 come from pyserini's index table; the archive is streamed into the
cache, its MD5 checked, and unpacked (tar's ``data`` filter) into a private directory renamed
into place only when complete.
"""

from __future__ import annotations

import difflib
import hashlib
import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from benchmark.core.errors import InputError, Problem
from benchmark.core.paths import index_dir
from benchmark.retrieval.index import building, index_complete

CHUNK = 1 << 20


@dataclass(frozen=True)
class PrebuiltIndex:
    """Where a prebuilt index is published and the checksum its archive must have."""

    name: str
    urls: tuple[str, ...]
    md5: str
    filename: str
    size: int | None = None


def prebuilt_info(name: str) -> PrebuiltIndex:
    """The published location of pyserini's prebuilt index ``name`` (its index table needs
    the JVM, started with groundcover's Java)."""
    from benchmark.retrieval import lucene

    lucene._jvm()
    from pyserini.prebuilt_index_info import IMPACT_INDEX_INFO, TF_INDEX_INFO

    tables = {**TF_INDEX_INFO, **IMPACT_INDEX_INFO}
    if name not in tables:
        close = difflib.get_close_matches(name, tables, n=5, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InputError.at(
            f"prebuilt:{name}",
            f"pyserini publishes no prebuilt Lucene index of this name{hint}",
            field="--lucene-index",
        )
    info = tables[name]
    size = info.get("size compressed (bytes)")
    return PrebuiltIndex(
        name, tuple(info["urls"]), str(info["md5"]), str(info.get("filename") or info["urls"][0].rsplit("/", 1)[-1]),
        int(size) if size else None,
    )  # fmt: skip


def _download(url: str, target: Path, expected: PrebuiltIndex, progress: bool) -> str:
    """Stream ``url`` to ``target``; the MD5 of what arrived."""
    digest = hashlib.md5(usedforsecurity=False)
    with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as out:
        total = int(response.headers.get("Content-Length") or expected.size or 0) or None
        with tqdm(
            total=total, unit="B", unit_scale=True, desc=expected.filename, disable=not progress
        ) as bar:
            while chunk := response.read(CHUNK):
                out.write(chunk)
                digest.update(chunk)
                bar.update(len(chunk))
    return digest.hexdigest()


def fetch_prebuilt(index: PrebuiltIndex, *, root: Path | None = None, progress: bool = True) -> Path:
    """The unpacked index directory of ``index``, downloaded and checked on first use."""
    final = (root or index_dir() / "prebuilt") / f"{index.name}-{index.md5[:12]}"
    if index_complete(final):
        return _index_dir(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    problems = []
    for url in index.urls:
        try:
            with building(final, {"name": index.name, "url": url, "md5": index.md5}) as tmp:
                archive = tmp / index.filename
                got = _download(url, archive, index, progress)
                if got != index.md5:
                    raise InputError.at(
                        url,
                        f"the archive's MD5 is {got}, not the published {index.md5}: not unpacked",
                        field="md5",
                    )
                with tarfile.open(archive) as tar:
                    tar.extractall(tmp / "index", filter="data")
                archive.unlink()
            return _index_dir(final)
        except (urllib.error.URLError, OSError, tarfile.TarError) as exc:
            problems.append(
                Problem(url, f"could not be downloaded and unpacked ({exc})", field="--lucene-index")
            )
    raise InputError(
        problems or [Problem(f"prebuilt:{index.name}", "no download URL", field="--lucene-index")]
    )


def _index_dir(final: Path) -> Path:
    """The Lucene directory inside an unpacked archive (archives hold one top folder)."""
    inner = final / "index"
    entries = [p for p in inner.iterdir()] if inner.is_dir() else []
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else inner


def prebuilt_index_dir(name: str, *, progress: bool = True) -> str:
    """``prebuilt:<name>``: the local directory, downloading it first if needed."""
    return str(fetch_prebuilt(prebuilt_info(name), progress=progress))
