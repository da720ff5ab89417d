"""Per-item checkpoints that survive ``kill -9``, damage and a second process.

Long runs append one ``fsync``-ed JSON line per finished item.  On restart a torn last line
is cut off and an unreadable line elsewhere costs only its own item; the caller recomputes a
line whose ``item_key`` no longer matches.  :func:`exclusive` lets one process write an output.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError

log = logging.getLogger(__name__)


class JsonlCheckpoint:
    def __init__(self, path: Path, *, id_field: str) -> None:
        self.path = Path(path)
        self.id_field = id_field
        self.bad_lines: list[int] = []

    def load(self, *, repair: bool = True) -> dict[str, dict[str, Any]]:
        """Finished items by id (the last line wins); a torn last line is cut off unless
        ``repair`` is off (a dry run reads a file a live run may be appending to)."""
        if not self.path.exists():
            return {}
        items: dict[str, dict[str, Any]] = {}
        self.bad_lines = []
        whole = 0  # bytes up to the end of the last complete line
        with open(self.path, "rb") as f:
            for n, raw in enumerate(f, start=1):
                if not raw.endswith(b"\n"):
                    log.warning("%s: dropping a torn last line %d (interrupted write)", self.path, n)
                    break
                whole += len(raw)
                try:
                    obj = json.loads(raw)
                    items[str(obj[self.id_field])] = obj
                except (ValueError, KeyError, TypeError):
                    self.bad_lines.append(n)
                    log.warning("%s: line %d cannot be read; its item will be computed again", self.path, n)
        if repair and whole != self.path.stat().st_size:
            with open(self.path, "r+b") as f:
                f.truncate(whole)
        return items

    def append(self, item: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(_line(item))
            f.flush()
            os.fsync(f.fileno())

    def rewrite(self, items: list[dict[str, Any]]) -> None:
        """Replace the file with exactly ``items`` (atomic), e.g. in final query order."""
        write_atomic(self.path, "".join(map(_line, items)))


def _line(item: dict[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n"


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write through a private temporary file and rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def exclusive(path: Path, *, what: str = "this output") -> Iterator[None]:
    """Hold an advisory lock on ``path`` while writing it; a second process fails at once,
    naming the holder.

    The lock file (``.<name>.lock``) lives beside the output, so two runs collide whatever
    their ``GROUNDCOVER_HOME``.  The kernel releases the lock when its holder exits, even
    after ``kill -9``; the file stays (removing it would let a third run lock a fresh file
    while a second still holds the old one).
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no advisory locks, but every write is still atomic
        yield
        return

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.parent / f".{path.name}.lock"
    with open(lock_path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            why = (
                f"{what} is being written by {holder}; wait for that run to finish (then re-run this command "
                "to reuse its work), or write elsewhere with --results-dir / --output-dir"
            )
            raise InputError.at(str(path), why) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {time.strftime('%H:%M:%S')}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
