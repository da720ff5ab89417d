"""What every retriever shares: hits, the search protocol, candidate restriction, and the on-disk index cache (content-named, built atomically)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from benchmark.core import paths
from benchmark.models.cache import content_hash

#: Bumped whenever the on-disk layout of an index changes, so old ones are not reused.
INDEX_FORMAT = 2
#: Lucene hits fetched per query when a search is restricted to candidate documents.
RESTRICTED_DEPTH = 10_000


@dataclass(frozen=True)
class Hit:
    """One retrieved passage; ``rank`` is 1-based within its query's list."""

    passage_id: str
    doc_id: str
    text: str
    score: float
    rank: int


Allowed = Sequence[set[str] | frozenset[str] | None] | None
"""Per query, the document ids a search may return (``None``: any document)."""


class Retriever(Protocol):
    """What grounding needs: batched search, and an identity recorded in results.  ``allowed``
    restricts each query's hits to passages of the given documents (ICAT grounds a topic's claims
    only in its BM25 top-1000 documents)."""

    identity: dict[str, Any]

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]: ...


def check_allowed(queries: list[str], allowed: Allowed) -> list[set[str] | frozenset[str] | None]:
    if allowed is None:
        return [None] * len(queries)
    if len(allowed) != len(queries):
        raise ValueError(f"{len(allowed)} candidate sets for {len(queries)} queries")
    return list(allowed)


# -- index cache ---------------------------------------------------------------------


def index_key(**parts: Any) -> str:
    """Content hash naming an index directory (includes :data:`INDEX_FORMAT`)."""
    return content_hash({"format": INDEX_FORMAT, **parts})


def index_home(kind: str, key: str) -> Path:
    return paths.index_dir() / f"{kind}-{key[:24]}"


def index_complete(final: Path) -> bool:
    return (final / "COMPLETE").is_file()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def building(final: Path, meta: dict[str, Any]) -> Iterator[Path]:
    """A private build directory, renamed (atomically) to ``final`` only if the build completes.
    Leftovers of dead processes' builds are removed; if another process finished first, ours is
    discarded."""
    for stale in final.parent.glob(final.name + ".building-*"):
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    if final.exists() and not index_complete(final):  # e.g. written by an older, non-atomic version
        shutil.rmtree(final, ignore_errors=True)
    tmp = final.with_name(final.name + f".building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
        (tmp / "COMPLETE").write_text("ok\n", encoding="utf-8")
        try:
            os.rename(tmp, final)
        except OSError:
            if not index_complete(final):
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # a concurrent build won the race
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def split_doc_id(passage_id: str) -> str:
    """``doc#3`` -> ``doc``; ids of foreign indexes without a window suffix are doc ids."""
    head, sep, tail = passage_id.rpartition("#")
    return head if sep and tail.isdigit() else passage_id
