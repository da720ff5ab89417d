"""Metric families: one folder each, and the contract between a family and the platform.

What a family *is* is one plain value, :class:`~benchmark.core.family.MetricFamily`; what
it *does* is in its own modules (:mod:`benchmark.families.base` lists them); the families
are asked for through the registry (:data:`~benchmark.core.registry.REGISTRY`), which loads
each by name when first asked, so importing this package, or a family's ``formulas``, loads
nothing else.  The names below are re-exported on first use.
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
