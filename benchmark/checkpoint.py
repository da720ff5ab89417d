"""Per-item checkpoints that survive ``kill -9``.

Long runs (generation, scoring) append one JSON line per finished item and ``fsync``
it before moving on.  On restart the file is read back; a torn last line (the process
died mid-write) is dropped and the file truncated to the last whole line, so the
resumed run appends cleanly.  Each line carries an ``item_key`` — a hash of every input
that determines the item's result — and a line whose key no longer matches (the answer
or the judge profile changed) is recomputed rather than trusted.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class JsonlCheckpoint:
    def __init__(self, path: Path, *, id_field: str) -> None:
        self.path = Path(path)
        self.id_field = id_field

    def load(self) -> dict[str, dict[str, Any]]:
        """Finished items by id (the last line wins if an id repeats)."""
        if not self.path.exists():
            return {}
        items: dict[str, dict[str, Any]] = {}
        good_bytes = 0
        with open(self.path, "rb") as f:
            for raw in f:
                if not raw.endswith(b"\n"):
                    log.warning("%s: dropping a torn last line (interrupted write)", self.path)
                    break
                try:
                    obj = json.loads(raw)
                except json.JSONDecodeError:
                    log.warning("%s: dropping an unreadable line at byte %d", self.path, good_bytes)
                    break
                items[str(obj[self.id_field])] = obj
                good_bytes += len(raw)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as f:
                f.truncate(good_bytes)
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
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            for item in items:
                f.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(self.path)
