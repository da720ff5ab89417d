"""Retrieval for claim grounding: chunking, BM25 (Lucene), dense (faiss), hybrid.

Following the ICAT paper (§4.3), documents are cut into passages of at most 128 words
with a 32-word overlap — short enough for NLI and small embedding models, which degrade
on long inputs — and the k=10 best passages are retrieved per claim.

* :class:`BM25Retriever` — a real Lucene index, built by Anserini's ``IndexCollection``
  (``JsonCollection``, raw and contents stored) in a Java subprocess and searched with
  Anserini's ``SimpleSearcher`` (:mod:`benchmark.retrieval.lucene`).  An existing index directory, or a pyserini prebuilt
  index (``prebuilt:<name>``, downloaded by pyserini, so it needs internet), can be
  searched instead of building one.
* :class:`DenseRetriever` — sentence embeddings in faiss: an exact inner-product index
  (``IndexFlatIP`` over normalised vectors) for small corpora; for large ones, IVF with
  an HNSW coarse quantizer, as in the paper.
* :class:`HybridRetriever` — reciprocal rank fusion of the two.

Indexes are stored under ``$GROUNDCOVER_HOME/indexes`` in a directory named by a hash
of everything that determines their content (passages, chunking, kind, embedding model
and revision, index type), so a different corpus or model can never reuse a stale
index.  Builds write to a temporary directory that is renamed into place only when
complete, so an interrupted build never leaves a half index that is later trusted.
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
