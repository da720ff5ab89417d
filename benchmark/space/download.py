"""The CSV a visitor downloads: the table as shown (its rows and chosen columns), numbers as
numbers, each interval as its two bounds, each row's kind and the board it is on (task, judge
profile, board id), whatever columns are shown.  An empty view downloads the header alone:
never a made-up row.  Written through :func:`benchmark.core.exports.write_csv` (cells that a
spreadsheet would run as formulas are neutralised)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from benchmark.core import exports

_DOWNLOADS: list[Path] = []


def _downloads() -> Path:
    """One folder for the process's downloads, removed when it exits (a table update writes
    over its tab's file rather than leaving a folder behind)."""
    if not _DOWNLOADS:
        _DOWNLOADS.append(Path(tempfile.mkdtemp(prefix="groundcover-csv-")))
        atexit.register(shutil.rmtree, _DOWNLOADS[0], True)
    return _DOWNLOADS[0]


def download_frame(view: pd.DataFrame) -> pd.DataFrame:
    """The shown table for a download: numbers as numbers, each interval as its bounds, and
    a ``kind`` column (model, or a reference entry's kind)."""
    out = view.copy()
    kinds = list(view.attrs.get("kind", []))
    for col in ("rank", "n", "failed", "copies", "queries"):
        if col in out.columns:
            out[col] = pd.array(
                [None if v is None or pd.isna(v) else int(v) for v in out[col]], dtype="Int64"
            )
    if len(kinds) == len(out) and "model" in out.columns:
        out.insert(list(out.columns).index("model") + 1, "kind", kinds)
    return out


def write_csv(view: pd.DataFrame, family_id: str) -> str:
    """The table for the download button, as CSV; one file per tab, rewritten per view."""
    path = _downloads() / f"groundcover-{family_id}.csv"
    exports.write_csv(download_frame(view), path)
    return str(path)
