"""BM25 over a Lucene index built and searched by Anserini."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError
from benchmark.retrieval import lucene
from benchmark.retrieval.chunking import Passage, corpus_fingerprint
from benchmark.retrieval.index import (
    RESTRICTED_DEPTH,
    Allowed,
    Hit,
    building,
    check_allowed,
    index_complete,
    index_home,
    index_key,
    split_doc_id,
)

log = logging.getLogger(__name__)


class BM25Retriever:
    """BM25 over a Lucene index searched by Anserini (:mod:`benchmark.retrieval.lucene`).

    Built from ``passages`` (cached by corpus fingerprint and chunking), or opened from
    ``lucene_index``: a directory, or ``prebuilt:<name>`` (pyserini's, downloaded on first
    use).  An existing index must store raw documents or contents: hits take their text there.
    """

    @staticmethod
    def identity_of(
        corpus: str | None, chunking: list[int] | None, k1: float, b: float, lucene_index: str | None = None
    ) -> dict[str, Any]:
        """What a BM25 retriever records, known before its index is built or opened (a dry
        run keys its plan by it without touching the index)."""
        if lucene_index is not None:
            return {"kind": "bm25", "lucene_index": lucene_index, "k1": k1, "b": b}
        return {
            "kind": "bm25",
            "corpus": corpus,
            "chunking": chunking,
            "k1": k1,
            "b": b,
            "analyzer": "anserini-default",
        }

    def __init__(
        self,
        passages: Sequence[Passage] | None,
        *,
        k1: float = 0.9,
        b: float = 0.4,
        lucene_index: str | None = None,
        threads: int | None = None,
        chunking: tuple[int, int] | None = None,
    ) -> None:
        self.threads = threads or min(8, os.cpu_count() or 1)
        self.restricted_depth = RESTRICTED_DEPTH
        self.reused = False
        self._texts: dict[str, tuple[str, str]] = {}
        if lucene_index is not None:
            if lucene_index.startswith("prebuilt:"):
                from benchmark.retrieval.prebuilt import prebuilt_index_dir

                index_dir = prebuilt_index_dir(lucene_index.removeprefix("prebuilt:"))
            else:
                if not Path(lucene_index).is_dir():
                    raise InputError.at(lucene_index, "Lucene index directory does not exist")
                index_dir = lucene_index
            self.searcher = lucene.BM25Searcher(index_dir, k1=k1, b=b)
            self.identity: dict[str, Any] = self.identity_of(None, None, k1, b, lucene_index)
            self.index_path = lucene_index
            self.reused = True
        else:
            if not passages:
                raise InputError.at("corpus", "no passages to index")
            fp = corpus_fingerprint(passages)
            chunk = list(chunking) if chunking else None
            self.identity = self.identity_of(fp, chunk, k1, b)
            meta = {
                "kind": "bm25",
                "corpus": fp,
                "chunking": chunk,
                "passages": len(passages),
                "engine": lucene.anserini_jar().name,
            }
            final = index_home("bm25", index_key(kind="bm25", corpus=fp, chunking=chunk))
            self._texts = {p.passage_id: (p.doc_id, p.text) for p in passages}
            if index_complete(final):
                self.reused = True
                log.info("reusing BM25 index %s", final)
            else:
                log.info("building BM25 index over %d passages in %s", len(passages), final)
                with building(final, meta) as tmp:
                    lucene.build_index(passages, tmp, threads=self.threads)
            self.searcher = lucene.BM25Searcher(str(final / "lucene"), k1=k1, b=b)
            self.index_path = str(final)

    def _text(self, docid: str) -> tuple[str, str]:
        known = self._texts.get(docid)
        if known is not None:
            return known
        raw = self.searcher.stored_text(docid)
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            obj = json.loads(raw)
            raw = obj.get("contents") or obj.get("text") or obj.get("segment") or raw
        return split_doc_id(docid), raw

    def passage_text(self, docid: str) -> str | None:
        """The stored text of a passage or document by id, as a cited passage is looked up."""
        return self._text(docid)[1] or None

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        """Top-``k`` passages per query (fewer when fewer passages share a term).  With
        ``allowed``, ``restricted_depth`` hits are filtered to the allowed documents: exact on
        indexes no larger than that, approximate on web-scale ones."""
        if not queries:
            return []
        allow = check_allowed(queries, allowed)
        depth = k if all(a is None for a in allow) else max(k, self.restricted_depth)
        res = self.searcher.batch_search(queries, depth, self.threads)
        out = []
        for found, ok in zip(res, allow, strict=True):
            hits: list[Hit] = []
            for h in found:
                known = self._texts.get(h.docid)
                if ok is not None and (known[0] if known else split_doc_id(h.docid)) not in ok:
                    continue  # decided before the stored text is fetched: deep searches stay cheap
                doc_id, text = self._text(h.docid)
                hits.append(Hit(h.docid, doc_id, text, float(h.score), len(hits) + 1))
                if len(hits) == k:
                    break
            out.append(hits)
        return out
