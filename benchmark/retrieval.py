"""Retrieval for claim grounding: chunking, BM25 (Lucene), dense (faiss), hybrid.

Following the ICAT paper (§4.3), documents are cut into passages of at most 128 words
with a 32-word overlap — short enough for NLI and small embedding models, which degrade
on long inputs — and the k=10 best passages are retrieved per claim.

* :class:`BM25Retriever` — a real Lucene index, built by Anserini's ``IndexCollection``
  (``JsonCollection``, raw and contents stored) in a Java subprocess and searched with
  Anserini's ``SimpleSearcher`` (:mod:`benchmark.lucene`).  An existing index directory, or a pyserini prebuilt
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

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmark import lucene, paths
from benchmark.cache import ModelCallCache, content_hash
from benchmark.errors import InputError, Problem, rel
from benchmark.profiles import EmbedderSpec, RetrieverSpec

log = logging.getLogger(__name__)

#: Bumped whenever the on-disk layout of an index changes, so old ones are not reused.
INDEX_FORMAT = 2
#: Lucene hits fetched per query when a search is restricted to candidate documents.
RESTRICTED_DEPTH = 10_000


# ---------------------------------------------------------------------------------
# Chunking
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """A window of one document; ``start_word`` is its offset in the (titled) text."""

    passage_id: str
    doc_id: str
    text: str
    start_word: int


def chunk_words(text: str, size: int = 128, overlap: int = 32) -> list[tuple[int, str]]:
    """Windows of ``size`` whitespace-separated words, each starting ``size - overlap``
    words after the previous one, as ``(start_word, text)``.

    The last window ends at the last word and may be shorter; no window lies wholly
    inside the previous one, so a document of exactly ``size`` words is one passage.
    Whitespace is normalised to single spaces (passages are compared as word lists).
    """
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"chunking needs 0 <= overlap < size, got size={size}, overlap={overlap}")
    words = text.split()
    if not words:
        return []
    step = size - overlap
    out: list[tuple[int, str]] = []
    start = 0
    while True:
        out.append((start, " ".join(words[start : start + size])))
        if start + size >= len(words):
            return out
        start += step


def chunk_corpus(docs: Iterable[dict[str, Any]], size: int = 128, overlap: int = 32) -> list[Passage]:
    """Passages ``<doc_id>#<i>`` (``i`` from 0) of every document, in input order.

    A title, when present, is prepended to the document text (``"<title>. <text>"``)
    *before* chunking: the first passage then carries the context a claim often needs
    ("Aspirin. It reduces fever ...") while every passage still has at most ``size``
    words, which is what the embedder and NLI model were chosen for.  The title's words
    therefore count towards the first window and towards ``start_word``.  Documents
    without text produce no passage; a repeated ``doc_id`` is an error because passage
    ids would collide.
    """
    passages: list[Passage] = []
    seen: set[str] = set()
    for doc in docs:
        doc_id = str(doc["doc_id"])
        if doc_id in seen:
            raise InputError(Problem("corpus", f"duplicate document id {doc_id!r}", field="doc_id"))
        seen.add(doc_id)
        text = doc.get("text")
        text = text if isinstance(text, str) else ""
        title = doc.get("title")
        if isinstance(title, str) and title.strip() and text.strip():
            text = f"{title.strip()}. {text}"
        for i, (start, chunk) in enumerate(chunk_words(text, size, overlap)):
            passages.append(Passage(f"{doc_id}#{i}", doc_id, chunk, start))
    return passages


def corpus_fingerprint(passages: Sequence[Passage]) -> str:
    """SHA-256 over passage ids and texts, in order: what an index's content depends on."""
    h = hashlib.sha256()
    for p in passages:
        h.update(p.passage_id.encode("utf-8"))
        h.update(b"\x00")
        h.update(p.text.encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()


# ---------------------------------------------------------------------------------
# User corpora
# ---------------------------------------------------------------------------------

_ID_FIELDS = ("doc_id", "_id", "id", "docid")
_TEXT_FIELDS = ("text", "contents", "body")


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def load_corpus(ref: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Documents from a ``.jsonl`` or ``.parquet`` file.

    Fields: ``doc_id`` (or ``_id``/``id``/``docid``), ``text`` (or ``contents``/``body``)
    and optional ``title`` — the BEIR and pyserini conventions, so existing corpora load
    unchanged.  Every bad row is collected and reported together, each with its file,
    line (parquet: 1-based row) and field, instead of failing deep inside indexing.
    """
    path = Path(ref)
    if not path.exists():
        raise InputError(Problem(rel(path), "corpus file does not exist"))
    problems: list[Problem] = []
    rows: Iterator[tuple[int, Any]]
    if path.suffix == ".parquet":
        import pandas as pd

        df = pd.read_parquet(path)
        rows = ((i + 1, r) for i, r in enumerate(df.to_dict("records")))
    elif path.suffix in (".jsonl", ".json"):
        rows = _jsonl_rows(path, problems)
    else:
        raise InputError(Problem(rel(path), "corpus must be a .jsonl or .parquet file"))
    docs: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    where = rel(path)
    for line, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(where, "each line must be a JSON object", line=line))
            continue
        id_field = next((f for f in _ID_FIELDS if f in row), None)
        text_field = next((f for f in _TEXT_FIELDS if f in row), None)
        if id_field is None or _missing(row[id_field]):
            problems.append(Problem(where, "document id missing", line=line, field=id_field or "doc_id"))
            continue
        doc_id = str(row[id_field])
        text = row[text_field] if text_field is not None else None
        if not isinstance(text, str) or not text.strip():
            problems.append(
                Problem(where, "document text missing or empty", line=line, field=text_field or "text")
            )
            continue
        if doc_id in seen:
            problems.append(
                Problem(
                    where,
                    f"duplicate document id {doc_id!r} (first on line {seen[doc_id]})",
                    line=line,
                    field=id_field,
                )
            )
            continue
        seen[doc_id] = line
        title = row.get("title")
        docs.append({"doc_id": doc_id, "title": title if isinstance(title, str) else None, "text": text})
    if problems:
        raise InputError(problems)
    if not docs:
        raise InputError(Problem(where, "corpus has no documents"))
    return docs


def _jsonl_rows(path: Path, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(
                    Problem(rel(path), f"invalid JSON: {exc.msg} (column {exc.colno})", line=line_no)
                )


# ---------------------------------------------------------------------------------
# Retrievers
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """One retrieved passage; ``rank`` is 1-based within its query's list."""

    passage_id: str
    doc_id: str
    text: str
    score: float
    rank: int


Allowed = Sequence[set[str] | frozenset[str] | None] | None
"""Per query, the document ids a search may return (``None``: any document)."""


class Retriever(Protocol):
    """What grounding needs: batched search, and an identity recorded in results.

    ``allowed`` restricts each query's hits to passages of the given documents — the
    ICAT paper grounds a topic's claims only in passages of that topic's BM25 top-1000
    documents, so that another topic's document cannot be a claim's "first supporting"
    evidence.
    """

    identity: dict[str, Any]

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]: ...


def _check_allowed(queries: list[str], allowed: Allowed) -> list[set[str] | frozenset[str] | None]:
    if allowed is None:
        return [None] * len(queries)
    if len(allowed) != len(queries):
        raise ValueError(f"{len(allowed)} candidate sets for {len(queries)} queries")
    return list(allowed)


# -- index cache ---------------------------------------------------------------------


def index_key(**parts: Any) -> str:
    """Content hash naming an index directory (includes :data:`INDEX_FORMAT`)."""
    return content_hash({"format": INDEX_FORMAT, **parts})


def _index_home(kind: str, key: str) -> Path:
    return paths.index_dir() / f"{kind}-{key[:24]}"


def _complete(final: Path) -> bool:
    return (final / "COMPLETE").is_file()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _building(final: Path, meta: dict[str, Any]) -> Iterator[Path]:
    """A private build directory, renamed to ``final`` only if the build completes.

    ``rename`` is atomic on one filesystem, so readers see either no index or a whole
    one.  Leftovers of killed builds (``*.building-<pid>`` of dead processes) are
    removed; if another process finished the same index first, ours is discarded.
    """
    for stale in final.parent.glob(final.name + ".building-*"):
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    if final.exists() and not _complete(final):  # e.g. written by an older, non-atomic version
        shutil.rmtree(final, ignore_errors=True)
    tmp = final.with_name(final.name + f".building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
        (tmp / "COMPLETE").write_text("ok\n", encoding="utf-8")
        try:
            os.rename(tmp, final)
        except OSError:
            if not _complete(final):
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # a concurrent build won the race
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _split_doc_id(passage_id: str) -> str:
    """``doc#3`` -> ``doc``; ids of foreign indexes without a window suffix are doc ids."""
    head, sep, tail = passage_id.rpartition("#")
    return head if sep and tail.isdigit() else passage_id


class BM25Retriever:
    """BM25 over a Lucene index searched by Anserini (:mod:`benchmark.lucene`).

    Built from ``passages`` (cached by corpus fingerprint and chunking), or opened from
    ``lucene_index``: a local index directory, or ``prebuilt:<name>`` for a pyserini
    prebuilt index (downloaded on first use, so it needs internet).  Hits from an
    existing index take their text from the stored raw document (``contents``/``text``
    of its JSON) or stored contents, so such an index must have been built with
    ``-storeRaw`` or ``-storeContents``.
    """

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
                try:
                    index_dir = lucene.prebuilt_index(lucene_index.removeprefix("prebuilt:"))
                except ValueError as exc:
                    raise InputError(
                        Problem(lucene_index, f"pyserini does not know this prebuilt index: {exc}")
                    ) from exc
            else:
                if not Path(lucene_index).is_dir():
                    raise InputError(Problem(lucene_index, "Lucene index directory does not exist"))
                index_dir = lucene_index
            self.searcher = lucene.BM25Searcher(index_dir, k1=k1, b=b)
            self.identity: dict[str, Any] = {"kind": "bm25", "lucene_index": lucene_index, "k1": k1, "b": b}
            self.index_path = lucene_index
            self.reused = True
        else:
            if not passages:
                raise InputError(Problem("corpus", "no passages to index"))
            fp = corpus_fingerprint(passages)
            chunk = list(chunking) if chunking else None
            self.identity = {
                "kind": "bm25",
                "corpus": fp,
                "chunking": chunk,
                "k1": k1,
                "b": b,
                "analyzer": "anserini-default",
            }
            meta = {
                "kind": "bm25",
                "corpus": fp,
                "chunking": chunk,
                "passages": len(passages),
                "engine": lucene.anserini_jar().name,
            }
            final = _index_home("bm25", index_key(kind="bm25", corpus=fp, chunking=chunk))
            self._texts = {p.passage_id: (p.doc_id, p.text) for p in passages}
            if _complete(final):
                self.reused = True
                log.info("reusing BM25 index %s", final)
            else:
                log.info("building BM25 index over %d passages in %s", len(passages), final)
                with _building(final, meta) as tmp:
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
            raw = obj.get("contents") or obj.get("text") or raw
        return _split_doc_id(docid), raw

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        """Top-``k`` passages per query (fewer when fewer passages share a term).

        With ``allowed``, Lucene is searched ``restricted_depth`` deep and the hits are
        filtered to the allowed documents: exact when the index holds at most that many
        passages (the bundled corpora), approximate on web-scale indexes, where an
        allowed passage ranked below the depth is missed.
        """
        if not queries:
            return []
        allow = _check_allowed(queries, allowed)
        depth = k if all(a is None for a in allow) else max(k, self.restricted_depth)
        res = self.searcher.batch_search(queries, depth, self.threads)
        out = []
        for found, ok in zip(res, allow, strict=True):
            hits: list[Hit] = []
            for h in found:
                known = self._texts.get(h.docid)
                if ok is not None and (known[0] if known else _split_doc_id(h.docid)) not in ok:
                    continue  # decided before the stored text is fetched: deep searches stay cheap
                doc_id, text = self._text(h.docid)
                hits.append(Hit(h.docid, doc_id, text, float(h.score), len(hits) + 1))
                if len(hits) == k:
                    break
            out.append(hits)
        return out


def ivf_nlist(n: int) -> int:
    """IVF list count: ~4·√n (faiss guideline), at most n/39 so k-means has ≥39 points
    per centroid (below that faiss warns and the clusters are noise)."""
    return max(1, min(int(4 * math.sqrt(n)), n // 39))


def default_nprobe(nlist: int) -> int:
    """Lists searched per query: 1/16 of them, but at least 32.

    The floor matters for mid-sized corpora, where 1/16 of the lists misses too many
    neighbours (recall@10 vs exact ≈ 0.8 at 10k passages with 16 of 256 lists in
    ``benchmarks/retrieval_throughput.py``); above ~250k passages 1/16 dominates.
    Pass ``nprobe=`` to :class:`DenseRetriever` to trade recall for speed.
    """
    return min(nlist, max(32, nlist // 16))


def build_faiss_index(vectors: np.ndarray, index_type: str, *, seed: int = 0) -> Any:
    """A faiss index over normalised ``vectors`` (inner product = cosine).

    ``flat`` is exact.  ``ivf-hnsw`` is ``IVF<nlist>_HNSW32,Flat``: an inverted file
    whose coarse quantizer is itself an HNSW graph, so assigning a query to its lists
    stays fast with many lists — the paper's choice for large corpora.  k-means is
    trained on a seeded sample of at most 64 points per list.
    """
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = vectors.shape
    if index_type == "flat":
        index = faiss.IndexFlatIP(d)
    elif index_type == "ivf-hnsw":
        nlist = ivf_nlist(n)
        index = faiss.index_factory(d, f"IVF{nlist}_HNSW32,Flat", faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vectors[np.sort(rng.choice(n, size=min(n, nlist * 64), replace=False))]
        faiss.extract_index_ivf(index).cp.seed = seed
        index.train(sample)
    else:
        raise ValueError(f"unknown dense index type {index_type!r}")
    index.add(vectors)
    return index


def set_nprobe(index: Any, nprobe: int) -> None:
    """Search ``nprobe`` lists, and let the HNSW quantizer look at least that wide."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    ivf.nprobe = nprobe
    quantizer = faiss.downcast_index(ivf.quantizer)
    if hasattr(quantizer, "hnsw"):
        quantizer.hnsw.efSearch = max(64, 2 * nprobe)


class DenseRetriever:
    """Sentence embeddings (``embeddings.Embedder``) searched with faiss.

    ``spec.dense_index``: ``flat`` (exact), ``ivf-hnsw``, or ``auto`` — IVF-HNSW above
    ``spec.ivf_threshold`` passages.  Corpus embeddings live inside the faiss index
    (both index types store full vectors); an IVF index for a corpus whose flat index
    exists reuses those vectors instead of encoding the corpus again.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        spec: RetrieverSpec,
        embedder_spec: EmbedderSpec,
        *,
        cache: ModelCallCache | None = None,
        progress: bool = True,
        nprobe: int | None = None,
        chunking: tuple[int, int] | None = None,
    ) -> None:
        import faiss

        from benchmark.embeddings import Embedder

        if not passages:
            raise InputError(Problem("corpus", "no passages to index"))
        self.embedder = Embedder(embedder_spec, cache)
        self.passages = list(passages)
        self._rows_by_doc: dict[str, list[int]] = {}
        for row, p in enumerate(self.passages):
            self._rows_by_doc.setdefault(p.doc_id, []).append(row)
        n = len(self.passages)
        fp = corpus_fingerprint(self.passages)
        index_type = spec.dense_index
        if index_type == "auto":
            index_type = "ivf-hnsw" if n > spec.ivf_threshold else "flat"
        self.index_type = index_type
        chunk = list(chunking) if chunking else None
        parts = {"kind": "dense", "corpus": fp, "chunking": chunk, "embedder": self.embedder.identity}
        self.nlist = ivf_nlist(n) if index_type == "ivf-hnsw" else None
        self.nprobe = (nprobe or default_nprobe(self.nlist)) if self.nlist else None
        self.identity: dict[str, Any] = {
            **parts,
            "index": index_type,
            "nlist": self.nlist,
            "nprobe": self.nprobe,
        }
        final = _index_home("dense", index_key(**parts, index=index_type, nlist=self.nlist))
        self.reused = _complete(final)
        if self.reused:
            log.info("reusing dense index %s", final)
        else:
            vecs = self._vectors(parts, progress)
            meta = {
                **parts,
                "index": index_type,
                "nlist": self.nlist,
                "passages": n,
                "model": self.embedder.model_id,
            }
            with _building(final, meta) as tmp:
                faiss.write_index(build_faiss_index(vecs, index_type), str(tmp / "index.faiss"))
        self.index = faiss.read_index(str(final / "index.faiss"))
        if self.index.ntotal != n:
            raise RuntimeError(
                f"dense index {final} holds {self.index.ntotal} vectors for {n} passages; delete it"
            )
        if self.nprobe is not None:
            set_nprobe(self.index, self.nprobe)
        self.index_path = str(final)

    def _vectors(self, parts: dict[str, Any], progress: bool) -> np.ndarray:
        import faiss

        flat = _index_home("dense", index_key(**parts, index="flat", nlist=None))
        if self.index_type != "flat" and _complete(flat):
            log.info("taking corpus embeddings from %s", flat)
            return faiss.read_index(str(flat / "index.faiss")).reconstruct_n(0, len(self.passages))
        log.info(
            "embedding %d passages with %s for a %s faiss index",
            len(self.passages),
            self.embedder.model_id,
            self.index_type,
        )
        return self.embedder.encode([p.text for p in self.passages], kind="passage", progress=progress)

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        """Top-``k`` passages per query by cosine similarity (query embeddings cached).

        With ``allowed``, each query is searched through a faiss ``IDSelectorBatch`` over
        the passages of its allowed documents: exact on a flat index; on IVF-HNSW only
        the ``nprobe`` probed lists are searched, as for an unrestricted query.
        """
        if not queries:
            return []
        import faiss

        allow = _check_allowed(queries, allowed)
        vecs = self.embedder.encode(queries, kind="query")
        out: list[list[Hit]] = [[] for _ in queries]
        free = [i for i, a in enumerate(allow) if a is None]
        if free:
            scores, ids = self.index.search(vecs[free], k)
            for qi, row_s, row_i in zip(free, scores, ids, strict=True):
                out[qi] = self._hits(row_s, row_i)
        for qi, ok in enumerate(allow):
            if ok is None:
                continue
            rows = np.asarray(sorted(r for d in ok for r in self._rows_by_doc.get(d, ())), dtype=np.int64)
            if rows.size == 0:
                continue
            sel = faiss.IDSelectorBatch(rows)
            params = (
                faiss.SearchParametersIVF(sel=sel, nprobe=self.nprobe)
                if self.nprobe is not None
                else faiss.SearchParameters(sel=sel)
            )
            scores, ids = self.index.search(vecs[qi : qi + 1], min(k, int(rows.size)), params=params)
            out[qi] = self._hits(scores[0], ids[0])
        return out

    def _hits(self, row_s: np.ndarray, row_i: np.ndarray) -> list[Hit]:
        hits: list[Hit] = []
        for s, i in zip(row_s, row_i, strict=True):
            if i < 0:  # fewer than k vectors reachable
                continue
            p = self.passages[int(i)]
            hits.append(Hit(p.passage_id, p.doc_id, p.text, float(s), len(hits) + 1))
        return hits


class HybridRetriever:
    """Reciprocal rank fusion: score(p) = Σ_runs 1 / (rrf_k + rank_run(p)).

    RRF needs no score calibration between BM25 and cosine, which live on unrelated
    scales.  Each part is searched ``depth`` deep so that a passage ranked moderately by
    both can overtake one ranked first by only one; passages are de-duplicated by id.
    """

    def __init__(self, retrievers: Sequence[Retriever], rrf_k: int = 60, depth: int = 50) -> None:
        self.retrievers = list(retrievers)
        self.rrf_k = rrf_k
        self.depth = depth
        self.identity: dict[str, Any] = {
            "kind": "hybrid",
            "rrf_k": rrf_k,
            "depth": depth,
            "parts": [r.identity for r in self.retrievers],
        }

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        runs = [r.search(queries, max(k, self.depth), allowed) for r in self.retrievers]
        out = []
        for qi in range(len(queries)):
            fused: dict[str, float] = {}
            first: dict[str, Hit] = {}
            for run in runs:
                for h in run[qi]:
                    fused[h.passage_id] = fused.get(h.passage_id, 0.0) + 1.0 / (self.rrf_k + h.rank)
                    first.setdefault(h.passage_id, h)
            ranked = sorted(fused, key=lambda pid: (-fused[pid], pid))[:k]
            out.append(
                [
                    Hit(pid, first[pid].doc_id, first[pid].text, fused[pid], r)
                    for r, pid in enumerate(ranked, start=1)
                ]
            )
        return out


def build_retriever(
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    passages: list[Passage] | None = None,
    *,
    lucene_index: str | None = None,
    cache: ModelCallCache | None = None,
    progress: bool = True,
) -> Retriever:
    """The retriever a judge profile asks for, over ``passages`` or an existing index.

    An existing Lucene index (``lucene_index``) supports BM25 only — its text is not
    embedded here — so other kinds fall back to BM25 with a warning; the returned
    ``identity`` records what was actually used.
    """
    chunking = (spec.chunk_words, spec.chunk_overlap)
    if lucene_index is not None:
        if spec.kind != "bm25":
            log.warning("an existing Lucene index supports BM25 only; using BM25 instead of %s", spec.kind)
        return BM25Retriever(None, k1=spec.bm25_k1, b=spec.bm25_b, lucene_index=lucene_index)
    if not passages:
        raise InputError(Problem("corpus", "no passages to retrieve from (empty corpus?)"))
    if spec.kind == "bm25":
        return BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b, chunking=chunking)
    dense = DenseRetriever(passages, spec, embedder, cache=cache, progress=progress, chunking=chunking)
    if spec.kind == "dense":
        return dense
    bm25 = BM25Retriever(passages, k1=spec.bm25_k1, b=spec.bm25_b, chunking=chunking)
    return HybridRetriever([bm25, dense], rrf_k=spec.rrf_k)


# ---------------------------------------------------------------------------------
# Which corpus: the task's own, or the user's
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusRef:
    """The knowledge corpus a run searches, resolved once from the task card and flags.

    ``covers`` lists the queries the corpus was written for, when it is the task's own
    corpus and the card says so (the starter corpus covers 12 of 200 topics); a user's
    corpus is taken to cover every query.
    """

    kind: str  # table | file | lucene
    label: str
    path: str | None = None
    task_corpus: bool = False
    covers: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.path}|{self.label}"


def resolve_corpus(task: Any, corpus: str | None = None, lucene_index: str | None = None) -> CorpusRef:
    """The corpus to search: ``--corpus`` or ``--lucene-index`` if given, else the task's."""
    if corpus is not None and lucene_index is not None:
        raise InputError(
            Problem("command line", "give --corpus or --lucene-index, not both", field="--corpus")
        )
    if corpus is not None:
        path = Path(corpus)
        if path.is_dir():
            raise InputError(
                Problem(
                    rel(path), "--corpus is a directory; give a .jsonl or .parquet file", field="--corpus"
                )
            )
        return CorpusRef("file", f"user corpus {path.name}", str(path))
    if lucene_index is not None:
        return CorpusRef("lucene", f"Lucene index {lucene_index}", lucene_index)
    spec = task.card.corpus
    covers = tuple(spec.covers_queries) if spec.covers_queries is not None else None
    label = spec.label or spec.kind
    if spec.kind == "table":
        return CorpusRef("table", label, None, True, covers)
    if spec.kind in ("jsonl", "parquet"):
        return CorpusRef("file", label, str(task.root / (spec.path or "")), True, covers)
    if spec.kind in ("lucene", "pyserini-prebuilt"):
        index = spec.path if spec.kind == "lucene" else f"prebuilt:{spec.path}"
        return CorpusRef("lucene", label, index, True, covers)
    raise InputError(
        Problem(
            f"tasks/{task.id}/task.yaml",
            "this task ships no corpus; pass --corpus (JSONL/parquet with doc_id and text) or --lucene-index",
            field="corpus",
        )
    )


def open_retriever(
    ref: CorpusRef,
    task: Any,
    spec: RetrieverSpec,
    embedder: EmbedderSpec,
    *,
    cache: ModelCallCache | None = None,
    progress: bool = True,
) -> Retriever:
    """A retriever of kind ``spec.kind`` over the corpus ``ref`` names (indexes cached on disk)."""
    if ref.kind == "lucene":
        return build_retriever(spec, embedder, lucene_index=ref.path, cache=cache, progress=progress)
    return build_retriever(spec, embedder, corpus_passages(ref, task, spec), cache=cache, progress=progress)


def corpus_passages(ref: CorpusRef, task: Any, spec: RetrieverSpec) -> list[Passage]:
    """The passages of a table or file corpus, chunked as the profile says."""
    if ref.kind == "lucene":
        raise InputError(
            Problem(str(ref.path), "the passages of a Lucene index cannot be listed; give --corpus")
        )
    docs = task.table("corpus").to_dict("records") if ref.kind == "table" else load_corpus(str(ref.path))
    return chunk_corpus(docs, size=spec.chunk_words, overlap=spec.chunk_overlap)


def document_texts(ref: CorpusRef, task: Any) -> dict[str, str]:
    """Every document of a table or file corpus, whole and titled as passages are, by id."""
    if ref.kind == "lucene":
        return {}
    docs = task.table("corpus").to_dict("records") if ref.kind == "table" else load_corpus(str(ref.path))
    return {p.doc_id: p.text for p in chunk_corpus(docs, size=10**9, overlap=0)}


def candidate_documents(retriever: Retriever, queries: list[str], n: int) -> list[list[str]]:
    """The ``n`` best documents per query, in rank order, from a passage retriever.

    A document ranks by its best passage (MaxP); passages are fetched ``depth`` deep
    until ``n`` distinct documents are found or the index is exhausted.
    """
    if n <= 0:
        raise ValueError("the number of candidate documents must be positive")
    depth = max(10 * n, 100)
    out = []
    for hits in retriever.search(queries, depth):
        docs = list(dict.fromkeys(h.doc_id for h in hits))[:n]
        out.append(docs)
    return out
