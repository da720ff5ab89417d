"""TREC AutoJudge's own tools for the tests that check groundcover against them.

They live in a side environment, ``.ajvenv/``, which ``scripts/setup.sh --dev`` builds
(autojudge-evaluate pulls tira, scikit-learn and matplotlib at its own pins), or in the
interpreter ``GROUNDCOVER_AUTOJUDGE_PYTHON`` names.  A test that needs them and finds
neither is skipped on a developer's machine, saying how to get them, and fails under CI
(``CI`` set, as ``.ci/run`` sets it): CI builds the side environment, so its absence there
is a broken set-up, never a reason to pass without the check.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = "GROUNDCOVER_AUTOJUDGE_PYTHON"


def side_python() -> Path | None:
    """The side environment's interpreter: ``$GROUNDCOVER_AUTOJUDGE_PYTHON``, else ``.ajvenv``."""
    named = os.environ.get(ENV)
    for candidate in ([Path(named)] if named else []) + [ROOT / ".ajvenv" / "bin" / "python"]:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_side_python() -> Path:
    """:func:`side_python`, or a skip (a developer's machine) or a failure (CI) saying why."""
    found = side_python()
    if found is None:
        why = (
            "no AutoJudge side environment: run `bash scripts/setup.sh --dev` (it makes .ajvenv/ with "
            f"autojudge-evaluate) or set {ENV}"
        )
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return found
