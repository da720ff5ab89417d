"""Retrieval for claim grounding: chunking, BM25 (Lucene), dense (faiss), hybrid.

As in the ICAT paper (§4.3), documents are cut into passages of at most 128 words with a
32-word overlap and the k=10 best passages are retrieved per claim.  Indexes live under
``$GROUNDCOVER_HOME/indexes``, named by a hash of everything that determines their content
and renamed into place only when complete (:mod:`benchmark.retrieval.index`).
"""

from benchmark.retrieval.bm25 import BM25Retriever
from benchmark.retrieval.chunking import Passage, chunk_corpus, chunk_words, corpus_fingerprint
from benchmark.retrieval.corpora import (
    CorpusRef,
    corpus_passages,
    document_texts,
    load_corpus,
    resolve_corpus,
)
from benchmark.retrieval.dense import DenseRetriever, build_faiss_index, default_nprobe, ivf_nlist, set_nprobe
from benchmark.retrieval.hybrid import HybridRetriever
from benchmark.retrieval.index import Allowed, Hit, Retriever
from benchmark.retrieval.retrievers import build_retriever, candidate_documents, open_retriever

__all__ = [
    "Allowed",
    "BM25Retriever",
    "CorpusRef",
    "DenseRetriever",
    "Hit",
    "HybridRetriever",
    "Passage",
    "Retriever",
    "build_faiss_index",
    "build_retriever",
    "candidate_documents",
    "chunk_corpus",
    "chunk_words",
    "corpus_fingerprint",
    "corpus_passages",
    "default_nprobe",
    "document_texts",
    "ivf_nlist",
    "load_corpus",
    "open_retriever",
    "resolve_corpus",
    "set_nprobe",
]
