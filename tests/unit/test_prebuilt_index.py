"""pyserini's prebuilt indexes by name: download, MD5 check and unpack, tested offline on an
archive built here and served from 127.0.0.1; and cited segments looked up in it.

pyserini's index table is read for real (the MS MARCO v2.1 segmented index of TREC RAG
2024 is in it); only the URL is ours, since nothing else can be reached from here."""

from __future__ import annotations

import functools
import hashlib
import http.server
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.core.errors import InputError
from benchmark.retrieval import lucene
from benchmark.retrieval.chunking import Passage
from benchmark.retrieval.prebuilt import PrebuiltIndex, fetch_prebuilt, prebuilt_info

SEGMENTS = {
    "msmarco_v2.1_doc_00_1#0_10": "A white blood cell count above 11,000 per microlitre is called leukocytosis.",
    "msmarco_v2.1_doc_00_1#1_90": "Infections are the most common cause of a raised white cell count.",
    "msmarco_v2.1_doc_07_5#0_3": "Cats sleep for twelve to sixteen hours a day.",
}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("prebuilt")
    passages = [Passage(pid, pid.split("#")[0], text, 0) for pid, text in SEGMENTS.items()]
    index = lucene.build_index(passages, root / "build", threads=1)
    tar_path = root / "lucene-inverted.tiny-segments.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        tar.add(index, arcname="lucene-inverted.tiny-segments")
    return tar_path, hashlib.md5(tar_path.read_bytes(), usedforsecurity=False).hexdigest()


@pytest.fixture(scope="module")
def served(archive: tuple[Path, str]) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(archive[0].parent))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_pyserini_publishes_the_trec_rag_segment_index_with_a_checksum() -> None:
    info = prebuilt_info("msmarco-v2.1-doc-segmented")
    assert info.urls and len(info.md5) == 32 and info.filename.endswith(".tar.gz")
    with pytest.raises(InputError, match=r"did you mean msmarco-v2\.1-doc-segmented"):
        prebuilt_info("msmarco-v2.1-doc-segmentd")


def test_an_archive_is_downloaded_checked_unpacked_once_and_searched(
    archive: tuple[Path, str], served: str, tmp_path: Path
) -> None:
    path, md5 = archive
    dead = "http://127.0.0.1:9/nothing.tar.gz"  # refused: the next URL is tried
    info = PrebuiltIndex("tiny-segments", (dead, f"{served}/{path.name}"), md5, path.name)
    index_dir = fetch_prebuilt(info, root=tmp_path, progress=False)
    searcher = lucene.BM25Searcher(str(index_dir))
    assert "leukocytosis" in searcher.stored_text("msmarco_v2.1_doc_00_1#0_10")
    assert [h.docid for h in searcher.batch_search(["cats sleep"], 1, 1)[0]] == ["msmarco_v2.1_doc_07_5#0_3"]
    # a second call reuses it: nothing is downloaded (the URLs are gone)
    again = PrebuiltIndex("tiny-segments", ("http://127.0.0.1:9/x",), md5, path.name)
    assert fetch_prebuilt(again, root=tmp_path, progress=False) == index_dir


def test_a_wrong_checksum_is_refused_and_leaves_nothing_behind(
    archive: tuple[Path, str], served: str, tmp_path: Path
) -> None:
    path = archive[0]
    info = PrebuiltIndex("tiny-segments", (f"{served}/{path.name}",), "0" * 32, path.name)
    with pytest.raises(InputError, match="not the published"):
        fetch_prebuilt(info, root=tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_cited_segments_are_read_from_a_lucene_index(
    archive: tuple[Path, str], served: str, tmp_path: Path
) -> None:
    from benchmark.retrieval.bm25 import BM25Retriever

    path, md5 = archive
    index_dir = fetch_prebuilt(
        PrebuiltIndex("tiny", (f"{served}/{path.name}",), md5, path.name), root=tmp_path, progress=False
    )
    retriever = BM25Retriever(None, lucene_index=str(index_dir))
    assert retriever.passage_text("msmarco_v2.1_doc_07_5#0_3") == SEGMENTS["msmarco_v2.1_doc_07_5#0_3"]
    assert retriever.passage_text("msmarco_v2.1_doc_99_9#0_0") is None


def test_cited_documents_are_read_from_an_ir_datasets_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--corpus irds:<id>``: a dataset registered with ir_datasets (here a local TSV, as
    ir_datasets' own formats read it; a real id downloads once), looked up by id."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TsvDocs
    from ir_datasets.util import LocalDownload

    from benchmark.models.profiles import RetrieverSpec
    from benchmark.retrieval import resolve_corpus
    from benchmark.retrieval.lookup import PassageLookup

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{pid}\t{text}\n" for pid, text in SEGMENTS.items()))
    name = f"groundcover-test/{tmp_path.name}"
    ir_datasets.registry.register(name, Dataset(TsvDocs(LocalDownload(docs))))
    ref = resolve_corpus(None, f"irds:{name}")
    assert ref.kind == "irds"
    lookup = PassageLookup(ref, None, RetrieverSpec())
    assert lookup("msmarco_v2.1_doc_07_5#0_3") == SEGMENTS["msmarco_v2.1_doc_07_5#0_3"]
    assert lookup("msmarco_v2.1_doc_99_9#0_0") is None
    with pytest.raises(InputError, match="knows no dataset"):
        PassageLookup(resolve_corpus(None, "irds:no/such-dataset"), None, RetrieverSpec())
    from benchmark.retrieval import corpus_passages

    with pytest.raises(InputError, match="lookups by id only"):
        corpus_passages(ref, None, RetrieverSpec())
