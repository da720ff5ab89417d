"""Where groundcover keeps things on disk: everything derived lives under one home,
``GROUNDCOVER_HOME`` (default ``~/.cache/groundcover``).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # benchmark/
REPO_ROOT = PACKAGE_DIR.parent
PROMPTS_DIR = PACKAGE_DIR / "prompts"
PROFILES_DIR = PACKAGE_DIR / "profiles"


def home() -> Path:
    """The groundcover home directory (created on first use)."""
    path = Path(os.environ.get("GROUNDCOVER_HOME", Path.home() / ".cache" / "groundcover"))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from benchmark.core.errors import InputError, printable

        why = (
            f"cannot be groundcover's home ({'a file' if path.is_file() else exc.strerror or exc}): "
            "point GROUNDCOVER_HOME at a folder you can write, or unset it"
        )
        raise InputError.at(printable(str(path)), why, field="GROUNDCOVER_HOME") from None
    return path


def cache_path() -> Path:
    """The SQLite file that caches every model call by content hash."""
    return Path(os.environ.get("GROUNDCOVER_CACHE", home() / "model_calls.sqlite"))


def index_dir() -> Path:
    path = home() / "indexes"
    path.mkdir(parents=True, exist_ok=True)
    return path


#: Where an installed wheel keeps the task folders (pyproject maps the repo's tasks/ here).
PACKAGED_TASKS = PACKAGE_DIR / "task_data"


def tasks_dir() -> Path:
    """Directory holding ``<task_id>/task.yaml`` cards: ``GROUNDCOVER_TASKS`` if set; else the
    copy inside an installed wheel; else the checkout's ``tasks/``."""
    if "GROUNDCOVER_TASKS" in os.environ:
        return Path(os.environ["GROUNDCOVER_TASKS"])
    if PACKAGED_TASKS.is_dir() and not PACKAGED_TASKS.is_symlink():
        return PACKAGED_TASKS
    return REPO_ROOT / "tasks"  # a checkout: benchmark/task_data is only a link to tasks/


def check_writable(path: str | os.PathLike[str], flag: str) -> Path:
    """Make sure ``path`` is a folder this process can write, before any model loads (created
    if missing); a probe file is written, since permission bits say nothing for root or a
    read-only mount."""
    import tempfile

    from benchmark.core.errors import InputError, printable

    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError.at(printable(str(p)), "is a file, not a folder", field=flag)
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".groundcover-write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        why = f"cannot write here ({exc.strerror or exc})"
        raise InputError.at(printable(str(p)), why, field=flag) from None
    return p


def check_writable_file(path: str | os.PathLike[str], flag: str) -> Path:
    """Make sure ``path`` can be written as a file, before any work (its folder as
    :func:`check_writable` checks it)."""
    from benchmark.core.errors import InputError, printable

    p = Path(path)
    if p.is_dir():
        raise InputError.at(printable(str(p)), "is a folder; give a file name", field=flag)
    check_writable(p.parent, flag)
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError.at(printable(str(p)), "cannot write this file (permission denied)", field=flag)
    return p
