"""Passages by id: what a cited passage said, for judges that read what an answer cites.

An id is a chunk ``<doc_id>#<i>`` of the corpus (chunked as the judge profile chunks), a
whole document (e.g. a TREC RAG segment), or what a Lucene index or an ``ir_datasets``
corpus (``--corpus irds:<id>``) stores under it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmark.models.profiles import RetrieverSpec
from benchmark.retrieval.corpora import CorpusRef, corpus_passages, document_texts


class PassageLookup:
    """``lookup(passage_id)`` -> its text, or ``None`` when the corpus has no such id."""

    def __init__(
        self,
        ref: CorpusRef,
        task: Any,
        spec: RetrieverSpec,
        *,
        stored: Callable[[str], str | None] | None = None,
    ) -> None:
        self._stored = stored
        self._texts: dict[str, str] = {}
        if ref.kind == "irds" and stored is None:
            from benchmark.retrieval.irds import IrdsLookup

            self._stored = IrdsLookup(str(ref.path))
        elif ref.kind != "lucene":
            self._texts.update(document_texts(ref, task))
            self._texts.update((p.passage_id, p.text) for p in corpus_passages(ref, task, spec))

    def __call__(self, passage_id: str) -> str | None:
        if passage_id in self._texts:
            return self._texts[passage_id]
        return self._stored(passage_id) if self._stored is not None else None
