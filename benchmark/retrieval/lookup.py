"""Passages by id: what a cited passage said, for judges that read what an answer cites.

A RAG answer names the passages it was given by id: chunks ``<doc_id>#<i>`` of the
task's corpus (chunked as the judge profile chunks, the way ``benchmark evaluate --rag``
retrieved them), whole documents, or — for TREC RAG runs — MS MARCO v2.1 segment ids,
which are the documents of a segment file passed with ``--corpus``.  A Lucene index is
asked for its stored text instead, and an ``ir_datasets`` corpus (``--corpus irds:<id>``)
its document store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmark.models.profiles import RetrieverSpec
from benchmark.retrieval.chunking import chunk_corpus
from benchmark.retrieval.corpora import CorpusRef, load_corpus


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
        self.ref = ref
        self._stored = stored
        self._texts: dict[str, str] = {}
        if ref.kind == "irds" and stored is None:
            from benchmark.retrieval.irds import IrdsLookup

            self._stored = IrdsLookup(str(ref.path))
        elif ref.kind != "lucene":
            docs = (
                task.table("corpus").to_dict("records") if ref.kind == "table" else load_corpus(str(ref.path))
            )
            self._texts.update((p.doc_id, p.text) for p in chunk_corpus(docs, size=10**9, overlap=0))
            chunks = chunk_corpus(docs, size=spec.chunk_words, overlap=spec.chunk_overlap)
            self._texts.update((p.passage_id, p.text) for p in chunks)

    def __call__(self, passage_id: str) -> str | None:
        if passage_id in self._texts:
            return self._texts[passage_id]
        return self._stored(passage_id) if self._stored is not None else None
