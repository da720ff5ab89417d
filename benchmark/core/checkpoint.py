"""Per-item checkpoints that survive ``kill -9``, damage and a second process.

Long runs (generation, scoring) append one JSON line per finished item and ``fsync``
it before moving on.  On restart the file is read back:

* a torn last line (the process died mid-write) is dropped and the file truncated to
  the last whole line, so the resumed run appends cleanly;
* an unreadable line elsewhere (a damaged disk block, a hand edit) costs only its own
  item: the good lines around it are kept, the bad one is reported by line number, and
  its item is computed again;
* each line carries an ``item_key`` — a hash of every input that determines the item's
  result — and a line whose key no longer matches (the answer or the judge profile
  changed) is recomputed rather than trusted.

Rewrites go through a private temporary file and an atomic rename, and
:func:`exclusive` gives one process at a time the right to write an output: two runs of
the same command do not interleave their lines; the second says which process holds
the file.
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

from benchmark.core.errors import InputError, Problem

log = logging.getLogger(__name__)


class JsonlCheckpoint:
    def __init__(self, path: Path, *, id_field: str) -> None:
        self.path = Path(path)
        self.id_field = id_field
        self.bad_lines: list[int] = []

    def load(self, *, repair: bool = True) -> dict[str, dict[str, Any]]:
        """Finished items by id (the last line wins if an id repeats); a torn last line is cut
        off, unless ``repair`` is off (a dry run reads a file a live run may be appending to)."""
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
        line = json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def rewrite(self, items: list[dict[str, Any]]) -> None:
        """Replace the file with exactly ``items`` (atomic), e.g. in final query order."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                for item in items:
                    f.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


@contextlib.contextmanager
def exclusive(path: Path, *, what: str = "this output") -> Iterator[None]:
    """Hold an advisory lock on ``path`` while writing it.

    The lock file lives beside the output, in the result folder itself
    (``.<name>.lock``, ignored by git), so two runs writing the same file collide
    whatever their ``GROUNDCOVER_HOME`` (a lock under the home held only within one home:
    two runs with different homes both wrote one result folder and both exited 0).

    A second process asking for the same file fails at once with a message naming the
    holder, instead of interleaving its lines with the first's.  The lock is released
    by the kernel when its holder exits, even after ``kill -9``; the small lock file
    stays (removing it would let a third run lock a fresh file while a second still
    holds the old one).
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
            raise InputError(
                Problem(
                    str(path),
                    f"{what} is being written by {holder}; wait for that run to finish (then re-run this command "
                    "to reuse its work), or write elsewhere with --results-dir / --output-dir",
                )
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} since {time.strftime('%H:%M:%S')}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
