"""The CSV a visitor downloads: the table as shown, numbers as numbers, each interval as its
bounds, each row's kind and board; written by :func:`benchmark.core.exports.write_csv`."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from benchmark.core import exports
from benchmark.space.table import whole


@functools.cache
def _downloads() -> Path:
    """One folder for the process's downloads (one file per tab), removed when it exits."""
    folder = Path(tempfile.mkdtemp(prefix="groundcover-csv-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def download_frame(view: pd.DataFrame) -> pd.DataFrame:
    """The shown table for a download: counts as integers, and each row's ``kind``."""
    out = view.copy()
    kinds = list(view.attrs.get("kind", []))
    for col in ("rank", "n", "failed", "copies", "queries"):
        if col in out.columns:
            out[col] = pd.array([whole(v) for v in out[col]], dtype="Int64")
    if len(kinds) == len(out) and "model" in out.columns:
        out.insert(list(out.columns).index("model") + 1, "kind", kinds)
    return out


def write_csv(view: pd.DataFrame, family_id: str) -> str:
    """The table for the download button, as CSV; one file per tab, rewritten per view."""
    path = _downloads() / f"groundcover-{family_id}.csv"
    exports.write_csv(download_frame(view), path)
    return str(path)
