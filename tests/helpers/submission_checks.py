"""What the validator says of a submission folder, for the tests that build one."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.board.submissions import validate_submission
from benchmark.core.errors import InputError


def problems(folder: Path) -> list[str]:
    """Every problem the validator names in ``folder`` (it must refuse the folder)."""
    with pytest.raises(InputError) as exc:
        validate_submission(folder)
    return [str(p) for p in exc.value.problems]
