"""Convert TREC Web Track 2009–2014 topics and qrels into groundcover tasks.

Reads the original NIST files (``topics.web.*.txt`` XML with ``<subtopic>`` elements,
ad-hoc qrels, the 2009 statAP prels, and the 2013–14 subtopic-level ``ndeval`` qrels)
and writes two tasks:

* ``tasks/webtrack-2009-2012``: topics 1–200, subtopics as aspects, document-level
  qrels, plus the hand-written starter corpus (``scripts/starter_corpus/*.yaml``) with
  its aspect-level labels.
* ``tasks/webtrack-2013-2014``: topics 201–300, subtopics as aspects, subtopic-level
  and document-level qrels; no corpus (ClueWeb12 text is not redistributable).

Output is deterministic (sorted rows, fixed parquet settings), and each card records
the sha256 of every input and output file, so running the script twice gives
byte-identical files and anyone can check the data against its sources.

Usage::

    python scripts/convert_webtrack.py --shared ../shared/data/trec-web --out tasks
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

REPO = Path(__file__).resolve().parents[1]
STARTER = REPO / "scripts" / "starter_corpus"
QUICKSTART_ORDER = ["175", "182", "196", "117", "125", "154", "26", "75", "84", "173", "45", "14"]

SCHEMAS = {
    "queries": pa.schema([("query_id", pa.string()), ("text", pa.string()), ("description", pa.string()), ("type", pa.string()), ("split", pa.string())]),
    "aspects": pa.schema([("query_id", pa.string()), ("aspect_id", pa.string()), ("text", pa.string()), ("type", pa.string())]),
    "qrels": pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("aspect_id", pa.string()), ("relevance", pa.int64())]),
    "corpus": pa.schema([("doc_id", pa.string()), ("title", pa.string()), ("text", pa.string()), ("url", pa.string())]),
}

CITATIONS = {
    "2009-2012": """@inproceedings{clarke2009overview,
  title={Overview of the TREC 2009 Web Track}, author={Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian},
  booktitle={Proceedings of TREC 2009}, year={2009}}
@inproceedings{clarke2010overview,
  title={Overview of the TREC 2010 Web Track}, author={Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian and Cormack, Gordon V.},
  booktitle={Proceedings of TREC 2010}, year={2010}}
@inproceedings{clarke2011overview,
  title={Overview of the TREC 2011 Web Track}, author={Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian and Voorhees, Ellen M.},
  booktitle={Proceedings of TREC 2011}, year={2011}}
@inproceedings{clarke2012overview,
  title={Overview of the TREC 2012 Web Track}, author={Clarke, Charles L. A. and Craswell, Nick and Voorhees, Ellen M.},
  booktitle={Proceedings of TREC 2012}, year={2012}}
@inproceedings{samarinas2025icat,
  title={Beyond Factual Accuracy: Evaluating Coverage of Diverse Factual Information in Long-form Text Generation},
  author={Samarinas, Chris and Krubner, Alexander and Salemi, Alireza and Kim, Youngwoo and Zamani, Hamed}, year={2025}}""",
    "2013-2014": """@inproceedings{collins2013overview,
  title={TREC 2013 Web Track Overview}, author={Collins-Thompson, Kevyn and Bennett, Paul and Diaz, Fernando and Clarke, Charles L. A. and Voorhees, Ellen M.},
  booktitle={Proceedings of TREC 2013}, year={2013}}
@inproceedings{collins2014overview,
  title={TREC 2014 Web Track Overview}, author={Collins-Thompson, Kevyn and Macdonald, Craig and Bennett, Paul and Diaz, Fernando and Voorhees, Ellen M.},
  booktitle={Proceedings of TREC 2014}, year={2014}}""",
}

LICENSE = (
    "Topics and relevance judgements: NIST TREC data, made available for research purposes "
    "(see trec.nist.gov); starter corpus: CC-BY-4.0, written by the groundcover developers"
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def norm(text: str | None) -> str:
    return " ".join((text or "").split())


EMPTY_SUBTOPICS: list[str] = []


def parse_topics(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    root = ET.parse(path).getroot()
    queries, aspects = [], []
    for t in root.findall("topic"):
        qid = t.get("number", "").strip()
        queries.append({"query_id": qid, "text": norm(t.findtext("query")), "description": norm(t.findtext("description")) or None, "type": t.get("type"), "split": "test"})
        for s in t.findall("subtopic"):
            if not norm(s.text):  # e.g. topic 79 subtopic 5 is empty in the NIST file
                EMPTY_SUBTOPICS.append(f"{qid}/{s.get('number')}")
                continue
            aspects.append({"query_id": qid, "aspect_id": s.get("number", "").strip(), "text": norm(s.text), "type": s.get("type")})
    return queries, aspects


def parse_adhoc_qrels(path: Path) -> list[dict[str, Any]]:
    """``topic iteration docid grade`` (standard qrels) or ``topic docid grade method prob`` (2009 prels)."""
    rows = []
    prels = path.name.startswith("prels")
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if prels:
            topic, docid, grade = parts[0], parts[1], parts[2]
        else:
            topic, docid, grade = parts[0], parts[2], parts[3]
        rows.append({"query_id": topic, "doc_id": docid, "aspect_id": None, "relevance": int(grade)})
    return rows


def parse_ndeval_qrels(path: Path) -> list[dict[str, Any]]:
    """``topic subtopic docid grade`` (subtopic-level judgements)."""
    rows = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts:
            rows.append({"query_id": parts[0], "doc_id": parts[2], "aspect_id": parts[1], "relevance": int(parts[3])})
    return rows


def load_starter() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Path], dict[str, Any]]:
    corpus, qrels, files = [], [], []
    stats: dict[str, Any] = {"documents": 0, "contradicting": 0}
    for path in sorted(STARTER.glob("*.yaml"), key=lambda p: int(p.stem)):
        files.append(path)
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        qid = str(spec["query_id"])
        for doc in spec["documents"]:
            doc_id = f"gc-starter-{qid}-{doc['id']}"
            corpus.append({"doc_id": doc_id, "title": doc["title"], "text": norm(doc["text"]), "url": None})
            grades = {str(a): int(g) for a, g in doc["aspects"].items()}
            for aspect_id, grade in sorted(grades.items()):
                qrels.append({"query_id": qid, "doc_id": doc_id, "aspect_id": aspect_id, "relevance": grade})
            qrels.append({"query_id": qid, "doc_id": doc_id, "aspect_id": None, "relevance": max(grades.values())})
            stats["documents"] += 1
            stats["contradicting"] += int(bool(doc.get("contradicts")))
    return corpus, qrels, files, stats


def write_table(rows: list[dict[str, Any]], name: str, path: Path, sort: tuple[str, ...]) -> None:
    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return tuple((int(r[c]) if str(r[c]).isdigit() else 10**9, str(r[c])) if c in ("query_id", "aspect_id") and r[c] is not None else (-1 if r[c] is None else 0, str(r[c])) for c in sort)

    rows = sorted(rows, key=key)
    table = pa.Table.from_pylist(rows, schema=SCHEMAS[name])
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", use_dictionary=False, write_statistics=False, store_schema=False)


def drop_unknown_aspects(qrels: list[dict[str, Any]], aspects: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    known = {(a["query_id"], a["aspect_id"]) for a in aspects}
    kept = [r for r in qrels if r["aspect_id"] is None or (r["query_id"], r["aspect_id"]) in known]
    return kept, len(qrels) - len(kept)


def dedup(qrels: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in qrels:
        seen.setdefault((r["query_id"], r["doc_id"], r["aspect_id"]), r)
    return list(seen.values()), len(qrels) - len(seen)


def write_task(out: Path, card: dict[str, Any], tables: dict[str, tuple[list[dict[str, Any]], tuple[str, ...]]], inputs: list[Path], root: Path) -> None:
    data = out / "data"
    checksums = {}
    for name, (rows, sort) in tables.items():
        path = data / f"{name}.parquet"
        write_table(rows, name, path, sort)
        checksums[f"{name}.parquet"] = sha256(path)
    card["data"] = {"kind": "local", "path": "data", "tables": {n: f"{n}.parquet" for n in tables}, "checksums": checksums}
    card["provenance"]["inputs"] = [{"file": _display(p, root), "sha256": sha256(p)} for p in inputs]
    (out / "task.yaml").write_text(yaml.safe_dump(card, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")


def _display(path: Path, shared_root: Path) -> str:
    try:
        return "shared/data/trec-web/" + str(path.relative_to(shared_root))
    except ValueError:
        return str(path.relative_to(REPO))


def convert(shared: Path, out_root: Path) -> None:
    # ---- 2009–2012 -------------------------------------------------------------
    topic_files = [shared / f"topics.web.{r}.txt" for r in ("1-50", "51-100", "101-150", "151-200")]
    qrel_files = [shared / "prels.web.1-50.txt"] + [shared / f"qrels.web.{r}.txt" for r in ("51-100", "101-150", "151-200")]
    queries, aspects = [], []
    for f in topic_files:
        q, a = parse_topics(f)
        queries += q
        aspects += a
    qrels = [r for f in qrel_files for r in parse_adhoc_qrels(f)]
    corpus, starter_qrels, starter_files, stats = load_starter()
    qrels, dup = dedup(qrels + starter_qrels)
    qrels, unknown = drop_unknown_aspects(qrels, aspects)
    covered = sorted({r["query_id"] for r in starter_qrels}, key=QUICKSTART_ORDER.index)
    notes = (
        "Document-level qrels are the TREC ad-hoc judgements (2009: statAP prels, relevance column; "
        "2010-2012: graded qrels, negative grades kept as given). Aspect-level qrels exist only for the "
        f"starter corpus documents. {dup} duplicate judgement rows and {unknown} rows naming unknown subtopics were dropped. "
        f"Subtopics with no text in the NIST file were left out: {', '.join(EMPTY_SUBTOPICS) or 'none'}."
    )
    card = {
        "id": "webtrack-2009-2012",
        "version": "1.0.0",
        "name": "TREC Web Track 2009-2012 (diversity topics)",
        "description": (
            "The 200 TREC Web Track 2009-2012 topics, with their subtopics as the aspects a complete "
            "answer should cover (the setting of the ICAT paper). ClueWeb09 text is not redistributable; "
            f"the task ships a hand-written starter corpus of {stats['documents']} documents for {len(covered)} "
            "topics with aspect-level labels, so ICAT-M/S/A run offline. Point --corpus or --lucene-index at "
            "your own ClueWeb09 index for the paper's setting."
        ),
        "source": {"name": "TREC Web Track 2009-2012, NIST", "url": "https://trec.nist.gov/data/webmain.html", "notes": notes},
        "license": LICENSE,
        "citation": CITATIONS["2009-2012"],
        "metrics": ["icat"],
        "splits": ["test"],
        "instruction": (
            "Write a comprehensive, factually accurate answer to the following question or search request. "
            "Cover its different aspects in a few paragraphs."
        ),
        "corpus": {
            "kind": "table",
            "label": f"groundcover starter corpus v1 (hand-written, {stats['documents']} documents for {len(covered)} topics, "
            f"{stats['contradicting']} of them contradict a common claim; not ClueWeb)",
            "covers_queries": covered,
        },
        "provenance": {"script": "scripts/convert_webtrack.py", "inputs": [], "notes": "starter corpus sources: scripts/starter_corpus/*.yaml"},
        "tags": ["web", "diversity", "aspects", "icat"],
    }
    write_task(
        out_root / "webtrack-2009-2012",
        card,
        {
            "queries": (queries, ("query_id",)),
            "aspects": (aspects, ("query_id", "aspect_id")),
            "qrels": (qrels, ("query_id", "doc_id", "aspect_id")),
            "corpus": (corpus, ("doc_id",)),
        },
        topic_files + qrel_files + starter_files,
        shared,
    )
    print(f"webtrack-2009-2012: {len(queries)} queries, {len(aspects)} aspects, {len(qrels)} qrels, {len(corpus)} starter documents")

    # ---- 2013–2014 -------------------------------------------------------------
    topic_files = [shared / "topics.web.201-250.txt", shared / "topics.web.251-300.txt"]
    adhoc_files = [shared / "qrels.web.201-250.txt", shared / "qrels.web.251-300.txt"]
    nd_files = [shared / "qrels.web.201-250.ndeval.txt", shared / "qrels.web.251-300.ndeval.txt"]
    queries, aspects = [], []
    for f in topic_files:
        q, a = parse_topics(f)
        queries += q
        aspects += a
    qrels = [r for f in adhoc_files for r in parse_adhoc_qrels(f)] + [r for f in nd_files for r in parse_ndeval_qrels(f)]
    qrels, dup = dedup(qrels)
    qrels, unknown = drop_unknown_aspects(qrels, aspects)
    card = {
        "id": "webtrack-2013-2014",
        "version": "1.0.0",
        "name": "TREC Web Track 2013-2014",
        "description": (
            "The 100 TREC Web Track 2013-2014 topics (201-300) with subtopics as aspects, document-level "
            "ad-hoc qrels and subtopic-level diversity qrels (ndeval). Topics of type 'single' have no "
            "subtopics. The task ships no corpus: ClueWeb12 text is not redistributable; pass --corpus or "
            "--lucene-index."
        ),
        "source": {
            "name": "TREC Web Track 2013-2014, NIST",
            "url": "https://trec.nist.gov/data/webmain.html",
            "notes": (
                f"Subtopic-level rows come from the ndeval qrels. {dup} duplicate rows and {unknown} rows naming a "
                "subtopic that the topic file does not define (e.g. subtopic 0 for single-facet topics) were dropped."
            ),
        },
        "license": LICENSE.split(";")[0],
        "citation": CITATIONS["2013-2014"],
        "metrics": ["icat"],
        "splits": ["test"],
        "instruction": card["instruction"],
        "corpus": {"kind": "none", "label": "none shipped (ClueWeb12 is not redistributable); bring your own with --corpus or --lucene-index"},
        "provenance": {"script": "scripts/convert_webtrack.py", "inputs": []},
        "tags": ["web", "diversity", "aspects", "icat"],
    }
    write_task(
        out_root / "webtrack-2013-2014",
        card,
        {"queries": (queries, ("query_id",)), "aspects": (aspects, ("query_id", "aspect_id")), "qrels": (qrels, ("query_id", "doc_id", "aspect_id"))},
        topic_files + adhoc_files + nd_files,
        shared,
    )
    print(f"webtrack-2013-2014: {len(queries)} queries, {len(aspects)} aspects, {len(qrels)} qrels ({unknown} unknown-subtopic rows dropped)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data" / "trec-web")
    ap.add_argument("--out", type=Path, default=REPO / "tasks")
    args = ap.parse_args(argv)
    if not args.shared.exists():
        print(f"error: {args.shared} does not exist", file=sys.stderr)
        return 2
    convert(args.shared.resolve(), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
