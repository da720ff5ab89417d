"""CSV files that are safe to open in a spreadsheet: a text cell starting with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is a formula there (a submitted model id
``=HYPERLINK(…)`` would run), so :func:`write_csv` prefixes it with an apostrophe, as OWASP
advises; numbers stay numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading apostrophe when a spreadsheet would read it as a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names are :func:`safe_cell`."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(safe_cell)
    out.columns = [safe_cell(c) for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` as CSV (no index) with formula-looking text neutralised."""
    safe_frame(df).to_csv(path, index=False)
    return Path(path)
