"""Keeping the process's fault-signal handlers across a library that replaces them.

The in-process JVM that searches Lucene *needs* its own SIGSEGV/SIGBUS handler (compiled Java
uses faults for null checks); ``ray.init`` installs Ray's over it and ``ray.shutdown`` resets
SIGSEGV, so the next search killed the process.  Python's :mod:`signal` cannot read C-level
handlers, so they are saved and restored as opaque ``struct sigaction`` bytes through libc
(not POSIX: nothing is done).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import signal
import sys
from collections.abc import Iterator

#: the signals a JVM (and Python's faulthandler) handles to survive or report a fault;
#: SIGUSR2 is HotSpot's thread suspend/resume signal
FAULT_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name)
    for name in ("SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGTRAP", "SIGUSR2")
    if hasattr(signal, name)
)
#: larger than ``struct sigaction`` on every POSIX ABI (152 bytes on Linux x86-64)
_SIGACTION_BYTES = 512


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if sys.platform == "win32":
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.sigaction  # noqa: B018 (present on every POSIX libc; probe it once)
    except (OSError, AttributeError):
        return None
    return libc


def saved_handlers(signals: tuple[int, ...] = FAULT_SIGNALS) -> dict[int, bytes]:
    """The current ``sigaction`` of each signal, as bytes (empty where libc is unavailable)."""
    if (libc := _libc()) is None:
        return {}
    out: dict[int, bytes] = {}
    for sig in signals:
        buf = ctypes.create_string_buffer(_SIGACTION_BYTES)
        if libc.sigaction(int(sig), None, buf) == 0:
            out[int(sig)] = buf.raw
    return out


def restore_handlers(saved: dict[int, bytes]) -> None:
    """Put back what :func:`saved_handlers` read."""
    if (libc := _libc()) is None:
        return
    for sig, raw in saved.items():
        libc.sigaction(sig, ctypes.create_string_buffer(raw, len(raw)), None)


@contextlib.contextmanager
def fault_handlers_kept() -> Iterator[None]:
    """Run the body, then restore the fault-signal handlers it found (even if it raised)."""
    saved = saved_handlers()
    try:
        yield
    finally:
        restore_handlers(saved)
