"""Metric families: one folder each, and the contract between a family and the platform.
The families are loaded by name through the registry when first asked, so importing this
package loads nothing else; the names below are re-exported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name -> the module it is re-exported from
_EXPORTS = {
    "BUILTIN": "benchmark.core.registry",
    "ENTRY_POINT_GROUP": "benchmark.core.registry",
    "REGISTRY": "benchmark.core.registry",
    "MetricFamily": "benchmark.core.family",
    "JudgeRole": "benchmark.core.family",
    "ScoreColumn": "benchmark.core.family",
    "module": "benchmark.families.base",
    "families_for": "benchmark.families.selection",
    "scorable_queries": "benchmark.families.selection",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The names above, imported on first use (PEP 562)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'benchmark.families' has no attribute {name!r}")
