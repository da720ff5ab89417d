"""One content-hash cache for every model call.

Every model call is keyed by a SHA-256 of what determines its output: a namespace (the kind
of call), the model's identity and the request payload, so a second run of an evaluation
makes no model calls.  Values are JSON (arrays as base64 float32 with their shape, never
``pickle``) in one SQLite file: atomic writes, safe across processes, no server to run.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import contextvars
import hashlib
import json
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from benchmark.core import paths
from benchmark.core.errors import InputError

log = logging.getLogger(__name__)
T = TypeVar("T")

_STAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("groundcover_stage", default=None)


@contextlib.contextmanager
def bound(var: contextvars.ContextVar[Any], value: T) -> Iterator[T]:
    """``var`` set to ``value`` inside the block."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


def stage(name: str) -> contextlib.AbstractContextManager[str]:
    """Name the pipeline stage the model calls inside belong to: their counts and seconds are
    kept per stage too (where a run's time went; what a dry run's stage will ask).  A round
    asked only for what an earlier one replied is a stage of its own (``answers:verify``)."""
    outer = _STAGE.get()
    return bound(_STAGE, f"{outer}:{name}" if outer else name)


def current_stage() -> str:
    return _STAGE.get() or "(no stage)"


_REPEAT: contextvars.ContextVar[int] = contextvars.ContextVar("groundcover_judge_repeat", default=0)

#: how far apart two repeats' seeds are, so that repeat r's seeds never meet repeat 0's
#: self-consistency seeds (0 .. n-1, :func:`benchmark.models.structured.sample_structured`)
REPEAT_SEED_STRIDE = 1_000_003


def judge_repeat(index: int) -> contextlib.AbstractContextManager[int]:
    """Ask the sampled judge's calls inside as repeat ``index`` (``--judge-repeats``): another
    seed and cache entry per repeat; repeat 0 is today's call, key for key."""
    if index < 0:
        raise ValueError("a repeat index is 0 or more")
    return bound(_REPEAT, index)


def current_repeat() -> int:
    return _REPEAT.get()


#: the judge-reply namespace a retry asks afresh (:func:`asked_afresh`)
JUDGE_REPLIES = "llm.generate"
_AFRESH: contextvars.ContextVar[tuple[frozenset[str], set[str]] | None] = contextvars.ContextVar(
    "groundcover_afresh", default=None
)


def asked_afresh(namespaces: Sequence[str] = (JUDGE_REPLIES,)) -> contextlib.AbstractContextManager[Any]:
    """Ask the models again inside, for ``namespaces``: cached values are not read (each request
    is computed once in the block) and the new ones replace them (``--retry-failed``)."""
    return bound(_AFRESH, (frozenset(namespaces), set()))


def repeat_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` keyed by the current repeat: unchanged for repeat 0 (existing caches and
    published results keep their keys), with ``repeat`` added from repeat 1 on."""
    r = _REPEAT.get()
    return payload if r == 0 else {**payload, "repeat": r}


class Planner(Protocol):
    """What stands in for the models in a dry run: a placeholder for every request the cache
    cannot answer (nothing is computed, nothing written)."""

    def seen(self, namespace: str) -> None: ...

    def recall(self, keys: list[str]) -> dict[str, Any]: ...

    def missed(self, namespace: str, model: str, requests: dict[str, Any]) -> dict[str, Any]: ...


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal payloads hash equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _numpy() -> Any:
    """numpy if something imported it (an array exists only then): hashing a plain payload, as
    `benchmark --help` does, does not import it."""
    return sys.modules.get("numpy")


def _default(obj: Any) -> Any:
    if (np := _numpy()) is not None and isinstance(obj, (np.ndarray, np.floating, np.integer)):
        return obj.tolist() if isinstance(obj, np.ndarray) else obj.item()
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    raise TypeError(f"cannot hash object of type {type(obj).__name__}")


def content_hash(*parts: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()


def encode_value(value: Any) -> str:
    if (np := _numpy()) is not None and isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value, dtype=np.float32)
        return canonical_json(
            {"__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"), "shape": list(arr.shape)}
        )
    return canonical_json(value)


def decode_value(text: str) -> Any:
    value = json.loads(text)
    if isinstance(value, dict) and "__ndarray__" in value:
        import numpy as np

        arr = np.frombuffer(base64.b64decode(value["__ndarray__"]), dtype=np.float32)
        return arr.reshape(value["shape"]).copy()
    return value


@dataclass
class CacheStats:
    """Counts of lookups in this process; ``misses`` is the number of model calls made, and
    ``seconds`` the time spent in them (what a run spends outside them is the platform's)."""

    hits: int = 0
    misses: int = 0
    by_namespace: dict[str, list[int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    #: "stage/namespace" -> [hits, misses, seconds]: the same counts, split by pipeline stage
    by_stage: dict[str, list[float]] = field(default_factory=dict)

    def record(
        self, namespace: str, hits: int, misses: int, seconds: float = 0.0, stage: str | None = None
    ) -> None:
        self.hits += hits
        self.misses += misses
        entry = self.by_namespace.setdefault(namespace, [0, 0])
        entry[0] += hits
        entry[1] += misses
        if seconds:
            self.seconds[namespace] = self.seconds.get(namespace, 0.0) + seconds
        split = self.by_stage.setdefault(f"{stage or current_stage()}/{namespace}", [0, 0, 0.0])
        split[0] += hits
        split[1] += misses
        split[2] += seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "by_namespace": {
                k: {"hits": v[0], "misses": v[1], "seconds": round(self.seconds.get(k, 0.0), 3)}
                for k, v in self.by_namespace.items()
            },
            "by_stage": {
                k: {"hits": int(v[0]), "misses": int(v[1]), "seconds": round(v[2], 3)}
                for k, v in self.by_stage.items()
            },
        }


class ModelCallCache:
    """SQLite-backed content-hash cache; ``enabled=False``: a pass-through that still counts calls."""

    def __init__(self, path: Path | str | None = None, *, enabled: bool = True) -> None:
        self.path = Path(path) if path is not None else paths.cache_path()
        self.enabled = enabled
        self.stats = CacheStats()
        #: set for a dry run: misses go to it instead of the model, and nothing is written
        self.planner: Planner | None = None
        self._lock = threading.Lock()
        self._nesting = threading.local()
        self._conn: sqlite3.Connection | None = None
        self._bad_values = 0
        if enabled:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._conn = self._open()
            except sqlite3.DatabaseError as exc:
                aside = self._move_aside()
                log.warning(
                    "the model-call cache %s could not be read (%s); it was moved to %s and a new one started "
                    "(delete the old one when you no longer need it)",
                    self.path,
                    exc,
                    aside,
                )
                self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, namespace TEXT NOT NULL,"
                " model TEXT NOT NULL, value TEXT NOT NULL, created REAL NOT NULL)"
            )
            conn.execute("SELECT key, value FROM calls LIMIT 1").fetchall()
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> Path:
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        return aside

    def _damaged(self, exc: sqlite3.DatabaseError) -> InputError:
        if "full" in str(exc).lower():
            return InputError.at(str(self.path), f"no space left for the model-call cache ({exc})")
        return InputError.at(
            str(self.path),
            f"the model-call cache is damaged ({exc}); delete it (rm '{self.path}'*) or set GROUNDCOVER_CACHE "
            "to another file, and run again: it is rebuilt, and checkpointed work is kept",
        )

    def _decode(self, key: str, text: str) -> Any:
        """A cached value, or ``None`` (a miss, recomputed and overwritten) if it cannot be read."""
        try:
            return decode_value(text)
        except (ValueError, TypeError, KeyError, binascii.Error):
            self._bad_values += 1
            if self._bad_values == 1:
                log.warning("%s: unreadable cached values are recomputed (first: %s)", self.path, key[:12])
            return None

    # -- keys -----------------------------------------------------------------
    @staticmethod
    def key(namespace: str, model: str, payload: Any) -> str:
        return content_hash(namespace, model, payload)

    # -- single entries ---------------------------------------------------------
    def _row(self, sql: str, *args: Any) -> Any:
        """The first row ``sql`` selects; ``None`` without a database or a row."""
        if self._conn is None:
            return None
        try:
            with self._lock:
                return self._conn.execute(sql, args).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from exc

    def get(self, key: str) -> Any:
        """The cached value, or ``None`` when absent (values are never ``None``)."""
        row = self._row("SELECT value FROM calls WHERE key=?", key)
        return None if row is None else self._decode(key, row[0])

    def put(self, key: str, value: Any, *, namespace: str, model: str) -> None:
        self._put_many([(key, value)], namespace, model)

    # -- the workhorse ----------------------------------------------------------
    def cached_batch(
        self,
        namespace: str,
        model: str,
        payloads: Sequence[Any],
        compute: Callable[[list[Any]], Sequence[Any]],
        *,
        batch_size: int | None = None,
    ) -> list[Any]:
        """One result per payload, computing only the misses, in batches (``compute`` keeps
        their order), each batch written as soon as it is back: a killed run keeps what it paid for."""
        keys = [self.key(namespace, model, p) for p in payloads]
        found: dict[str, Any] = {}
        afresh = _AFRESH.get()
        asked = afresh[1] if afresh is not None and namespace in afresh[0] else None
        if self._conn is not None and keys:
            # asked afresh: only what was asked again inside the block is read back
            unique = [k for k in dict.fromkeys(keys) if asked is None or k in asked]
            try:
                with self._lock:
                    for start in range(0, len(unique), 500):
                        chunk = unique[start : start + 500]
                        marks = ",".join("?" * len(chunk))
                        rows = self._conn.execute(
                            f"SELECT key, value FROM calls WHERE key IN ({marks})", chunk
                        ).fetchall()
                        found.update({k: v for k, raw in rows if (v := self._decode(k, raw)) is not None})
            except sqlite3.DatabaseError as exc:
                raise self._damaged(exc) from exc
        if self.planner is not None:  # asked earlier in this dry run: cached by the time the run asks again
            found.update(self.planner.recall([k for k in dict.fromkeys(keys) if k not in found]))
        todo = {k: p for k, p in zip(keys, payloads, strict=True) if k not in found}
        hits = sum(1 for k in dict.fromkeys(keys) if k in found)  # distinct requests, as misses are
        # a call made inside another model's call (the similarity judge's embeddings) is that
        # model's work, not a request of the stage: counted apart, under "<stage>:in-<namespace>"
        inside = f"{current_stage()}:in-{self._nesting.outer}" if getattr(self._nesting, "depth", 0) else None
        self.stats.record(namespace, hits, len(todo), stage=inside)
        if self.planner is not None:
            self.planner.seen(namespace)
        if todo and self.planner is not None:
            found.update(self.planner.missed(namespace, model, todo))
        elif todo:
            items = list(todo.items())
            step = batch_size or len(items)
            for start in range(0, len(items), step):
                chunk = items[start : start + step]
                outputs = self._timed(namespace, compute, [p for _, p in chunk])
                if len(outputs) != len(chunk):
                    raise RuntimeError(
                        f"{namespace}: model returned {len(outputs)} results for {len(chunk)} inputs"
                    )
                done = [(k, out) for (k, _), out in zip(chunk, outputs, strict=True)]
                found.update(done)
                if asked is not None:
                    asked.update(k for k, _ in done)
                self._put_many(done, namespace, model)
        return [found[k] for k in keys]

    def _timed(
        self, namespace: str, compute: Callable[[list[Any]], Sequence[Any]], batch: list[Any]
    ) -> list[Any]:
        """``compute(batch)``, its time added to ``namespace`` unless an outer model call of this
        thread is timing it already (an LLM entailment judge calls the LLM): counted once."""
        depth = getattr(self._nesting, "depth", 0)
        self._nesting.depth = depth + 1
        if depth == 0:
            self._nesting.outer = namespace
        t0 = time.perf_counter()
        try:
            return list(compute(batch))
        finally:
            self._nesting.depth = depth
            if depth == 0:
                self.stats.record(namespace, 0, 0, time.perf_counter() - t0)

    def _put_many(self, entries: list[tuple[str, Any]], namespace: str, model: str) -> None:
        if self._conn is None or not entries or self.planner is not None:
            return
        now = time.time()
        rows = [(k, namespace, model, encode_value(v), now) for k, v in entries]
        try:
            with self._lock:
                self._conn.executemany("INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?)", rows)
                self._conn.commit()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from exc

    def any_value(self, namespace: str, model: str) -> Any:
        """One cached value of a model, or ``None`` (a dry run reads an embedding's size from it)."""
        row = self._row(
            "SELECT key, value FROM calls WHERE namespace=? AND model=? LIMIT 1", namespace, model
        )
        return None if row is None else self._decode(*row)

    def count(self, namespace: str | None = None) -> int:
        if namespace is None:
            row = self._row("SELECT COUNT(*) FROM calls")
        else:
            row = self._row("SELECT COUNT(*) FROM calls WHERE namespace=?", namespace)
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        if self._conn is not None:
            with self._lock:
                self._conn.close()
            self._conn = None


_default_cache: ModelCallCache | None = None


def default_cache() -> ModelCallCache:
    """The process-wide cache at :func:`benchmark.core.paths.cache_path`."""
    global _default_cache
    if _default_cache is None or _default_cache.path != paths.cache_path():
        _default_cache = ModelCallCache()
    return _default_cache
