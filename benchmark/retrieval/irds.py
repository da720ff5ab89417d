"""Documents by id from an ``ir_datasets`` corpus (``--corpus irds:<dataset id>``): lookups of
the passages answers cite only, never retrieval.  Optional: the ``irds`` extra installs it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from benchmark.core.errors import InputError

PREFIX = "irds:"


def doc_text(doc: Any) -> str:
    """A document's text as the dataset defines it (title and body where it has both)."""
    if hasattr(doc, "default_text"):
        return str(doc.default_text())
    fields = [getattr(doc, f, "") for f in ("title", "headings", "segment", "text", "body")]
    return "\n".join(str(f) for f in fields if f)


class IrdsLookup:
    """``lookup(doc_id)`` -> the document's text from an ``ir_datasets`` docs store."""

    def __init__(self, dataset_id: str) -> None:
        where = PREFIX + dataset_id
        try:
            import ir_datasets
        except ImportError as exc:
            raise InputError.at(
                where, "needs ir_datasets: pip install 'groundcover[irds]'", field="--corpus"
            ) from exc
        try:
            dataset = ir_datasets.load(dataset_id)
        except KeyError as exc:
            raise InputError.at(
                where, f"ir_datasets knows no dataset of this id ({exc})", field="--corpus"
            ) from exc
        if not dataset.has_docs():
            raise InputError.at(where, "this ir_datasets dataset has no documents", field="--corpus")
        self.store = dataset.docs_store()

    @lru_cache(maxsize=65_536)  # noqa: B019 (one lookup object per run)
    def __call__(self, doc_id: str) -> str | None:
        found = self.store.get_many([doc_id])
        return doc_text(found[doc_id]) if doc_id in found else None
