"""Convert TREC Web Track 2009–2014 topics and qrels into groundcover tasks.

Reads the original NIST files — topic XML with ``<subtopic>`` elements, ad-hoc qrels,
the 2009 statAP prels and the 2013–14 subtopic-level ``ndeval`` qrels — and writes:

* ``<out>/webtrack-2009-2012``: topics 1–200 with their subtopics as aspects, the
  document-level judgements, and the hand-written starter corpus
  (``scripts/starter_corpus/<topic>.yaml``) with its aspect-level labels, so that the
  ICAT pipeline can run end to end without ClueWeb09.
* ``<out>/webtrack-2013-2014``: topics 201–300 with subtopics as aspects, subtopic-level
  and document-level judgements; no corpus (ClueWeb12 text is not redistributable).

Every anomaly found in the inputs is counted and written into the card instead of being
fixed silently.  Rows are sorted and parquet is written with fixed settings, so running
the script twice gives byte-identical files; each card records the sha256 of every
input and output, so anyone holding the NIST files can check the data against them.

Usage (from the project root)::

    python scripts/convert_webtrack.py --shared ../shared/data/trec-web --out tasks
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import task_files
import yaml
from task_files import Row

REPO = Path(__file__).resolve().parents[1]
STARTER_DIR = REPO / "scripts" / "starter_corpus"
EXAM_DIR = REPO / "scripts" / "exam_bank"
SUBQ_FILE = REPO / "scripts" / "sub_questions" / "webtrack-2009-2012.jsonl"
NUGGET_FILE = REPO / "scripts" / "nuggets" / "webtrack-2009-2012.jsonl"
SCRIPT = "scripts/convert_webtrack.py"

# The order of ``corpus.covers_queries``: a quickstart runs the first ten, so the topics
# whose documents ground a short general-knowledge answer best come first.
QUICKSTART_ORDER = ["175", "182", "196", "117", "125", "154", "26", "75", "84", "173", "130", "45"]

# Arrow types mirror ``benchmark.tasks.SCHEMAS``: ids are strings, grades int64.
ARROW_SCHEMAS: dict[str, pa.Schema] = {
    "queries": pa.schema(
        [
            ("query_id", pa.string()),
            ("text", pa.string()),
            ("description", pa.string()),
            ("type", pa.string()),
            ("split", pa.string()),
        ]
    ),
    "aspects": pa.schema(
        [("query_id", pa.string()), ("aspect_id", pa.string()), ("text", pa.string()), ("type", pa.string())]
    ),
    "qrels": pa.schema(
        [
            ("query_id", pa.string()),
            ("doc_id", pa.string()),
            ("aspect_id", pa.string()),
            ("relevance", pa.int64()),
        ]
    ),
    "corpus": pa.schema(
        [("doc_id", pa.string()), ("title", pa.string()), ("text", pa.string()), ("url", pa.string())]
    ),
    "exam_questions": pa.schema(
        [
            ("query_id", pa.string()),
            ("question_id", pa.string()),
            ("question", pa.string()),
            ("kind", pa.string()),
            ("options", pa.list_(pa.string())),
            ("answer", pa.string()),
            ("facet_id", pa.string()),
            ("provenance", pa.string()),
        ]
    ),
    "sub_questions": pa.schema(
        [
            ("query_id", pa.string()),
            ("sub_question_id", pa.string()),
            ("text", pa.string()),
            ("type", pa.string()),
        ]
    ),
    "gold_articles": pa.schema(
        [("query_id", pa.string()), ("article_id", pa.string()), ("text", pa.string())]
    ),
    "nuggets": pa.schema(
        [
            ("query_id", pa.string()),
            ("nugget_id", pa.string()),
            ("text", pa.string()),
            ("importance", pa.string()),
            ("provenance", pa.string()),
        ]
    ),
}

CITATION_2009_2012 = """\
@inproceedings{clarke2009overview,
  title     = {Overview of the {TREC} 2009 Web Track},
  author    = {Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian},
  booktitle = {Proceedings of the Eighteenth Text REtrieval Conference (TREC 2009)},
  publisher = {NIST},
  year      = {2009}
}
@inproceedings{clarke2010overview,
  title     = {Overview of the {TREC} 2010 Web Track},
  author    = {Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian and Cormack, Gordon V.},
  booktitle = {Proceedings of the Nineteenth Text REtrieval Conference (TREC 2010)},
  publisher = {NIST},
  year      = {2010}
}
@inproceedings{clarke2011overview,
  title     = {Overview of the {TREC} 2011 Web Track},
  author    = {Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian and Voorhees, Ellen M.},
  booktitle = {Proceedings of the Twentieth Text REtrieval Conference (TREC 2011)},
  publisher = {NIST},
  year      = {2011}
}
@inproceedings{clarke2012overview,
  title     = {Overview of the {TREC} 2012 Web Track},
  author    = {Clarke, Charles L. A. and Craswell, Nick and Voorhees, Ellen M.},
  booktitle = {Proceedings of the Twenty-First Text REtrieval Conference (TREC 2012)},
  publisher = {NIST},
  year      = {2012}
}
@inproceedings{samarinas2025icat,
  title     = {Beyond Factual Accuracy: Evaluating Coverage of Diverse Factual Information in Long-form Text Generation},
  author    = {Samarinas, Chris and Krubner, Alexander and Salemi, Alireza and Kim, Youngwoo and Zamani, Hamed},
  year      = {2025}
}
"""

CITATION_2013_2014 = """\
@inproceedings{collinsthompson2013overview,
  title     = {{TREC} 2013 Web Track Overview},
  author    = {Collins-Thompson, Kevyn and Bennett, Paul and Diaz, Fernando and Clarke, Charles L. A. and Voorhees, Ellen M.},
  booktitle = {Proceedings of the Twenty-Second Text REtrieval Conference (TREC 2013)},
  publisher = {NIST},
  year      = {2013}
}
@inproceedings{collinsthompson2014overview,
  title     = {{TREC} 2014 Web Track Overview},
  author    = {Collins-Thompson, Kevyn and Macdonald, Craig and Bennett, Paul and Diaz, Fernando and Voorhees, Ellen M.},
  booktitle = {Proceedings of the Twenty-Third Text REtrieval Conference (TREC 2014)},
  publisher = {NIST},
  year      = {2014}
}
"""

NIST_LICENSE = (
    "Topics and relevance judgements are TREC data created by NIST and distributed free of charge from "
    "trec.nist.gov for research use; they carry no open-source licence, so cite the track overviews and "
    "check NIST's terms before other uses. The ClueWeb document collections they refer to are licensed "
    "separately by Carnegie Mellon University and are not included."
)
STARTER_LICENSE = (
    " The starter corpus (corpus table and its aspect-level qrels), the exam questions and the gold articles are "
    "original text written by the groundcover "
    "developers and is distributed with groundcover under Apache-2.0."
)
INSTRUCTION = (
    "Write a comprehensive, factually accurate answer to the following question. "
    "Cover its different aspects in a few paragraphs."
)
SOURCE_URL = "https://trec.nist.gov/data/webmain.html"
TAGS = ["web", "diversity", "aspects", "icat", "trec"]


class ConversionError(Exception):
    """An input file that cannot be converted as it stands; the message names it."""


@dataclass
class Notes:
    """Anomalies met while converting, written into the card so that none is silent."""

    lines: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.lines.append(text)
        print(f"  note: {text}")

    def text(self) -> str:
        return " ".join(self.lines)


# ---------------------------------------------------------------------------------
# Topics
# ---------------------------------------------------------------------------------

_DOCTYPE = re.compile(r"<!DOCTYPE\s+[\w.-]+\s*\[.*?\]\s*>", re.DOTALL)
# Defaults declared in the NIST DTDs; applied by hand because the DTD is stripped.
_DTD_DEFAULT_TOPIC_TYPE = "ambiguous"
_DTD_DEFAULT_SUBTOPIC_TYPE = "inf"
_SUBTOPIC_TYPES = ("inf", "nav")


def _xml_fromstring() -> Callable[[str], ET.Element]:
    """defusedxml where installed (defence in depth), else the standard library.

    The document handed over never has a DTD (see :func:`parse_topic_file`), so both
    parsers see the same input and give the same tree.
    """
    try:
        from defusedxml.ElementTree import fromstring
    except ImportError:  # not a project dependency; the stripped input is safe for ET too
        return ET.fromstring
    return fromstring  # type: ignore[no-any-return]


def normalise(text: str | None) -> str:
    """Collapse the line breaks and indentation of the XML into single spaces."""
    return " ".join((text or "").split())


def parse_topic_file(path: Path, notes: Notes) -> tuple[list[Row], list[Row], list[str]]:
    """Queries and aspects of one NIST topic file, plus the ids of topics with no subtopic.

    The files start with an internal DTD.  It declares only element structure and
    attribute defaults, so it is removed before parsing: that keeps entity expansion
    (and any external reference) out of reach of the parser, and files that declare
    entities are refused rather than parsed with them.
    """
    raw = path.read_text(encoding="utf-8")
    if "<!ENTITY" in raw or re.search(r"<!DOCTYPE[^>\[]*\b(SYSTEM|PUBLIC)\b", raw):
        raise ConversionError(f"{path}: declares entities or an external DTD; refusing to parse it")
    root = _xml_fromstring()(_DOCTYPE.sub("", raw, count=1))
    queries: list[Row] = []
    aspects: list[Row] = []
    without_subtopics: list[str] = []
    defaults = 0
    invalid_types: list[str] = []
    for topic in root.iter("topic"):
        qid = (topic.get("number") or "").strip()
        if not qid.isdigit():
            raise ConversionError(f"{path}: topic without a numeric 'number' attribute: {qid!r}")
        if topic.get("type") is None:
            defaults += 1
        queries.append(
            {
                "query_id": qid,
                "text": normalise(topic.findtext("query")),
                "description": normalise(topic.findtext("description")) or None,
                "type": topic.get("type", _DTD_DEFAULT_TOPIC_TYPE),
                "split": "test",
            }
        )
        subtopics = topic.findall("subtopic")
        if not subtopics:
            without_subtopics.append(qid)
        for sub in subtopics:
            sid = (sub.get("number") or "").strip()
            text = normalise(sub.text)
            if not text:
                notes.add(
                    f"{path.name}: topic {qid} subtopic {sid} has no text and was left out of the aspects."
                )
                continue
            if sub.get("type") is None:
                defaults += 1
            kind: str | None = sub.get("type", _DTD_DEFAULT_SUBTOPIC_TYPE)
            if kind not in _SUBTOPIC_TYPES:
                # the DTD allows only nav|inf; a typo cannot be resolved reliably, so the
                # type is left unknown rather than guessed
                invalid_types.append(f"{qid}/{sid} {kind!r}")
                kind = None
            aspects.append({"query_id": qid, "aspect_id": sid, "text": text, "type": kind})
    if invalid_types:
        notes.add(
            f"{path.name}: subtopic type outside the DTD's nav|inf, stored as null: {', '.join(invalid_types)}."
        )
    if defaults:
        notes.add(
            f"{path.name}: {defaults} topic/subtopic type attribute(s) missing; the DTD default was used."
        )
    return queries, aspects, without_subtopics


# ---------------------------------------------------------------------------------
# Judgements
# ---------------------------------------------------------------------------------


def parse_qrels(path: Path, *, aspect_level: bool = False) -> list[Row]:
    """Rows of a TREC qrels file.

    ``topic iteration docid grade`` for ad-hoc files (the iteration column is always 0
    and ignored), ``topic subtopic docid grade`` for the ndeval files, and
    ``topic docid grade method probability`` for the 2009 statAP prels, whose grade is
    the third column.  Grades are kept as given, negative ones (spam, -2) included.
    """
    rows: list[Row] = []
    prels = path.name.startswith("prels.")
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != (5 if prels else 4):
            raise ConversionError(
                f"{path}, line {lineno}: expected {5 if prels else 4} columns, got {len(parts)}"
            )
        if prels:
            topic, subtopic, docid, grade = parts[0], None, parts[1], parts[2]
        else:
            topic, subtopic, docid, grade = parts[0], parts[1], parts[2], parts[3]
        rows.append(
            {
                "query_id": topic,
                "doc_id": docid,
                "aspect_id": subtopic if aspect_level else None,
                "relevance": int(grade),
            }
        )
    return rows


def keep_topics(rows: list[Row], wanted: set[str], what: str, notes: Notes) -> list[Row]:
    """Drop (and report) judgements for topics outside the task."""
    kept = [r for r in rows if r["query_id"] in wanted]
    if len(kept) != len(rows):
        notes.add(f"{len(rows) - len(kept)} {what} rows for topics outside this task were dropped.")
    return kept


def drop_unknown_aspects(qrels: list[Row], aspects: list[Row], notes: Notes) -> list[Row]:
    """Aspect-level rows must name an aspect of their query; others are dropped and counted."""
    known = {(a["query_id"], a["aspect_id"]) for a in aspects}
    bad = Counter(
        (r["query_id"], r["aspect_id"])
        for r in qrels
        if r["aspect_id"] is not None and (r["query_id"], r["aspect_id"]) not in known
    )
    if bad:
        detail = ", ".join(
            f"{q}/{a}: {n}" for (q, a), n in sorted(bad.items(), key=lambda kv: (int(kv[0][0]), kv[0][1]))
        )
        notes.add(
            f"{sum(bad.values())} subtopic-level rows named a subtopic that the topic file does not define and were "
            f"dropped (topic/subtopic: rows) — {detail}."
        )
    return [r for r in qrels if r["aspect_id"] is None or (r["query_id"], r["aspect_id"]) in known]


def merge_duplicates(qrels: list[Row], notes: Notes) -> list[Row]:
    """One row per (query, doc, aspect); exact repeats are merged, conflicting grades refused."""
    seen: dict[tuple[str, str, str | None], Row] = {}
    repeats = 0
    for r in qrels:
        key = (r["query_id"], r["doc_id"], r["aspect_id"])
        if key in seen:
            if seen[key]["relevance"] != r["relevance"]:
                raise ConversionError(
                    f"conflicting grades for {key}: {seen[key]['relevance']} and {r['relevance']}"
                )
            repeats += 1
            continue
        seen[key] = r
    if repeats:
        notes.add(f"{repeats} exact duplicate judgement rows were merged.")
    return list(seen.values())


# ---------------------------------------------------------------------------------
# Starter corpus
# ---------------------------------------------------------------------------------


@dataclass
class Starter:
    corpus: list[Row]
    qrels: list[Row]
    files: list[Path]
    topics: list[str]
    contradicting: int


def load_starter(aspects: list[Row], directory: Path = STARTER_DIR) -> Starter:
    """Read ``<topic>.yaml`` files into corpus rows and aspect/document-level qrels.

    Labels are checked against the real subtopics so that a typo in a hand-written file
    fails here, with the file and document named, rather than in the task loader.
    """
    known = {(a["query_id"], a["aspect_id"]) for a in aspects}
    files = sorted(directory.glob("*.yaml"), key=lambda p: int(p.stem) if p.stem.isdigit() else -1)
    topics = [p.stem for p in files]
    if sorted(topics, key=int) != sorted(QUICKSTART_ORDER, key=int):
        raise ConversionError(
            f"{directory}: topic files {topics} do not match QUICKSTART_ORDER {QUICKSTART_ORDER}"
        )
    corpus: list[Row] = []
    qrels: list[Row] = []
    contradicting = 0
    for path in files:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        qid = str(spec.get("query_id"))
        if qid != path.stem:
            raise ConversionError(f"{path}: query_id {qid!r} does not match the file name")
        for doc in spec["documents"]:
            doc_id = f"gc-starter-{qid}-{doc['id']}"
            labels = {str(a): int(g) for a, g in (doc.get("aspects") or {}).items()}
            if not labels:
                raise ConversionError(f"{path}: document {doc['id']} has no aspect labels")
            for aid, grade in labels.items():
                if (qid, aid) not in known:
                    raise ConversionError(
                        f"{path}: document {doc['id']} names unknown subtopic {aid} of topic {qid}"
                    )
                if grade not in (1, 2):
                    raise ConversionError(
                        f"{path}: document {doc['id']} has grade {grade} for subtopic {aid}; use 1 or 2"
                    )
                qrels.append({"query_id": qid, "doc_id": doc_id, "aspect_id": aid, "relevance": grade})
            qrels.append(
                {"query_id": qid, "doc_id": doc_id, "aspect_id": None, "relevance": max(labels.values())}
            )
            if doc.get("contradicts") and not doc.get("note"):
                raise ConversionError(
                    f"{path}: document {doc['id']} is marked 'contradicts' without a 'note' saying what"
                )
            contradicting += bool(doc.get("contradicts"))
            corpus.append(
                {
                    "doc_id": doc_id,
                    "title": normalise(doc["title"]),
                    "text": normalise(doc["text"]),
                    "url": None,
                }
            )
    return Starter(corpus, qrels, files, QUICKSTART_ORDER, contradicting)


@dataclass
class ExamBank:
    questions: list[Row]
    articles: list[Row]
    files: list[Path]


def load_exam_bank(aspects: list[Row], topics: list[str], directory: Path = EXAM_DIR) -> ExamBank:
    """Read ``<topic>.yaml`` exam banks (hand-written multiple-choice questions with their
    keys, and one gold article) into the ``exam_questions`` and ``gold_articles`` tables.

    Every key must be one of its question's options and every facet a real subtopic, so
    that a slip in a hand-written file fails here with the file and question named.
    """
    known = {(a["query_id"], a["aspect_id"]) for a in aspects}
    files = sorted(directory.glob("*.yaml"), key=lambda p: int(p.stem) if p.stem.isdigit() else -1)
    if sorted(p.stem for p in files) != sorted(topics):
        raise ConversionError(
            f"{directory}: exam banks {[p.stem for p in files]} do not match topics {topics}"
        )
    questions: list[Row] = []
    articles: list[Row] = []
    for path in files:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        qid = str(spec.get("query_id"))
        if qid != path.stem:
            raise ConversionError(f"{path}: query_id {qid!r} does not match the file name")
        articles.append({"query_id": qid, "article_id": "gold", "text": normalise(spec["gold_article"])})
        seen: set[str] = set()
        for q in spec["questions"]:
            where = f"{path}: question {q.get('id')}"
            options = [normalise(str(o)) for o in q["options"]]
            answer = normalise(str(q["answer"]))
            if q["id"] in seen:
                raise ConversionError(f"{where} is repeated")
            seen.add(q["id"])
            if answer not in options:
                raise ConversionError(f"{where}: the answer {answer!r} is not one of its options")
            if len(set(options)) != len(options) or len(options) < 2:
                raise ConversionError(f"{where}: needs at least two distinct options")
            if (qid, str(q["aspect"])) not in known:
                raise ConversionError(f"{where} names unknown subtopic {q['aspect']} of topic {qid}")
            # the files list the key first; stored options follow an order drawn from a hash of
            # the question id, so no answer position is favoured (an LLM reader prefers "A")
            draw = {o: hashlib.sha256(f"{qid}/{q['id']}/{o}".encode()).hexdigest() for o in options}
            options = sorted(options, key=draw.__getitem__)
            questions.append(
                {
                    "query_id": qid,
                    "question_id": f"{qid}/{q['id']}",
                    "question": normalise(q["question"]),
                    "kind": "multiple-choice",
                    "options": options,
                    "answer": answer,
                    "facet_id": str(q["aspect"]),
                    "provenance": "written",
                }
            )
    return ExamBank(questions, articles, files)


def load_sub_questions(topics: list[str], path: Path = SUBQ_FILE) -> tuple[list[Row], list[str]]:
    """Sub-questions of the starter topics, and how they were made (each row says who wrote
    it, or names the model and prompt that generated it)."""
    rows: list[Row] = []
    made: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["query_id"] not in topics or r["type"] not in ("core", "background", "follow-up"):
            raise ConversionError(f"{path}, line {n}: query {r['query_id']!r} / type {r['type']!r}")
        rows.append({k: r[k] for k in ("query_id", "sub_question_id", "text", "type")})
        made.add(r["provenance"])
    return rows, sorted(made)


def load_nuggets(topics: list[str], path: Path = NUGGET_FILE) -> list[Row]:
    """The starter topics' nuggets for the TREC RAG nugget evaluation, each with its
    importance (vital / okay) and who wrote it."""
    rows: list[Row] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["query_id"] not in topics or r["importance"] not in ("vital", "okay"):
            raise ConversionError(
                f"{path}, line {n}: query {r['query_id']!r} / importance {r['importance']!r}"
            )
        rows.append({k: r[k] for k in ("query_id", "nugget_id", "text", "importance", "provenance")})
    return rows


# ---------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------


def _num(value: str | None) -> tuple[int, int, str]:
    """Sort key that puts None first and orders numeric ids as numbers."""
    if value is None:
        return (0, 0, "")
    return (1, int(value), value) if value.isdigit() else (2, 0, value)


SORT_KEYS: dict[str, Callable[[Row], tuple[Any, ...]]] = {
    "queries": lambda r: (_num(r["query_id"]),),
    "aspects": lambda r: (_num(r["query_id"]), _num(r["aspect_id"])),
    "qrels": lambda r: (_num(r["query_id"]), r["doc_id"], _num(r["aspect_id"])),
    "corpus": lambda r: (r["doc_id"],),
    "exam_questions": lambda r: (_num(r["query_id"]), r["question_id"]),
    "gold_articles": lambda r: (_num(r["query_id"]), r["article_id"]),
    "sub_questions": lambda r: (_num(r["query_id"]), r["sub_question_id"]),
    "nuggets": lambda r: (_num(r["query_id"]), int(r["nugget_id"].rsplit("/n", 1)[1])),
}


def display_path(path: Path, shared: Path) -> str:
    """Input paths as a reader of the card finds them: under ``shared/`` or the repo."""
    try:
        return "shared/data/trec-web/" + path.relative_to(shared).as_posix()
    except ValueError:
        return path.resolve().relative_to(REPO).as_posix()


def write_task(
    out: Path, card: dict[str, Any], tables: dict[str, list[Row]], inputs: list[Path], shared: Path
) -> None:
    task_files.write_task(
        out,
        card,
        {n: (rows, ARROW_SCHEMAS[n], SORT_KEYS[n]) for n, rows in tables.items()},
        [(display_path(p, shared), p) for p in inputs],
    )


def read_topics(files: list[Path], notes: Notes) -> tuple[list[Row], list[Row], list[str]]:
    queries: list[Row] = []
    aspects: list[Row] = []
    bare: list[str] = []
    for f in files:
        q, a, b = parse_topic_file(f, notes)
        queries += q
        aspects += a
        bare += b
    return queries, aspects, bare


# ---------------------------------------------------------------------------------
# The two tasks
# ---------------------------------------------------------------------------------


def convert_2009_2012(shared: Path, out: Path) -> None:
    notes = Notes()
    topic_files = [shared / f"topics.web.{r}.txt" for r in ("1-50", "51-100", "101-150", "151-200")]
    qrel_files = [shared / "prels.web.1-50.txt"] + [
        shared / f"qrels.web.{r}.txt" for r in ("51-100", "101-150", "151-200")
    ]
    queries, aspects, bare = read_topics(topic_files, notes)
    if bare:
        raise ConversionError(f"topics without subtopics in 2009-2012: {bare}")
    notes.add(
        "2009 has no graded qrels file; its document-level judgements are the grade column of the statAP "
        "prels (prels.web.1-50.txt). 2010-2012 grades are kept as given, including -2 (spam)."
    )
    adhoc = keep_topics(
        [r for f in qrel_files for r in parse_qrels(f)], {q["query_id"] for q in queries}, "ad-hoc", notes
    )
    judged = {r["query_id"] for r in adhoc}
    unjudged = sorted({q["query_id"] for q in queries} - judged, key=int)
    if unjudged:
        notes.add(
            f"Topics with no rows in the NIST judgement files (so no document-level qrels here): {', '.join(unjudged)}."
        )
    starter = load_starter(aspects)
    bank = load_exam_bank(aspects, starter.topics)
    subqs, subq_made = load_sub_questions(starter.topics)
    subq_topics = sorted({r["query_id"] for r in subqs}, key=starter.topics.index)
    nuggets = load_nuggets(starter.topics)
    vital = sum(r["importance"] == "vital" for r in nuggets)
    qrels = merge_duplicates(adhoc + starter.qrels, notes)
    qrels = drop_unknown_aspects(qrels, aspects, notes)
    n_docs, n_topics = len(starter.corpus), len(starter.topics)
    label = (
        f"groundcover starter corpus v1 (hand-written, {n_docs} documents for {n_topics} topics; not ClueWeb)"
    )
    card: dict[str, Any] = {
        "id": "webtrack-2009-2012",
        "version": "1.2.0",
        "name": "TREC Web Track 2009-2012 (diversity topics)",
        "description": (
            "The 200 TREC Web Track 2009-2012 topics with their subtopics as the aspects a complete answer should "
            "cover, as in the ICAT paper. Document-level qrels are the NIST ad-hoc judgements on ClueWeb09, whose "
            f"text cannot be shipped. Instead the task carries a hand-written starter corpus of {n_docs} documents "
            f"for {n_topics} topics (corpus.covers_queries), labelled with the subtopics each document is relevant "
            f"to; {starter.contradicting} of them deliberately contradict a common claim or another document, so "
            "that grounding has something to reject. Point --corpus at your own ClueWeb09 index for the paper's "
            f"setting. For EXAM, the same {n_topics} topics carry {len(bank.questions)} hand-written multiple-choice "
            "exam questions with answer keys (held out: never shown to the evaluated model) and one hand-written "
            f"gold article each, which normalises n-EXAM; {len(subq_topics)} of them carry {len(subqs)} written "
            "sub-questions (core / background / follow-up) for sub-question coverage, and "
            f"{len(nuggets)} written information nuggets ({vital} vital) for the TREC RAG nugget evaluation."
        ),
        "source": {"name": "TREC Web Track 2009-2012 (NIST)", "url": SOURCE_URL, "notes": notes.text()},
        "license": NIST_LICENSE + STARTER_LICENSE,
        "citation": CITATION_2009_2012,
        "metrics": ["icat", "exam", "subq", "nuggets", "attribution"],
        # the starter corpus has aspect-level qrels, and ICAT-M needs no LLM in the alignment
        "main_score": {
            "icat": "icat_m",
            "exam": "n_exam",
            "subq": "subq_hybrid",
            "nuggets": "vital_strict",
            "attribution": "citation_recall",
        },
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {"kind": "table", "label": label, "covers_queries": starter.topics},
        "provenance": {
            "script": SCRIPT,
            "inputs": [],
            "notes": (
                "Starter corpus: scripts/starter_corpus/<topic>.yaml, one file per topic; doc_id is "
                "gc-starter-<topic>-<nn>; each document gives aspect-level qrels (grade 1 or 2) and one "
                "document-level row whose grade is the maximum of its aspect grades. Exam bank: "
                "scripts/exam_bank/<topic>.yaml, written by the groundcover developers from the starter corpus's "
                "facts (question_id <topic>/q<n>, facet_id the subtopic it tests, provenance 'written'; options "
                "ordered by a hash of question id and option, so the key's position is not always the same); its gold "
                "article (article_id 'gold') states the answer to every question of the topic. Sub-questions: "
                f"scripts/sub_questions/webtrack-2009-2012.jsonl, {'; '.join(subq_made)}, typed core / "
                "background / follow-up (version 1.2.0; 1.1.0 held 25 that SmolLM2-135M generated, many "
                "restating the query); not the paper's GPT-4 decompositions. Nuggets: "
                "scripts/nuggets/webtrack-2009-2012.jsonl, written from each topic's starter documents (the facts "
                "its gold article states) and checked against its subtopics, vital when the topic's description "
                "asks for it, else okay (nugget_id <topic>/n<k>)."
            ),
        },
        "tags": TAGS,
    }
    tables = {
        "queries": queries,
        "aspects": aspects,
        "qrels": qrels,
        "corpus": starter.corpus,
        "exam_questions": bank.questions,
        "gold_articles": bank.articles,
        "sub_questions": subqs,
        "nuggets": nuggets,
    }
    inputs = topic_files + qrel_files + starter.files + bank.files + [SUBQ_FILE, NUGGET_FILE]
    write_task(out / "webtrack-2009-2012", card, tables, inputs, shared)
    print(
        f"webtrack-2009-2012: {len(queries)} queries, {len(aspects)} aspects, {len(qrels)} qrels, "
        f"{n_docs} starter documents for {n_topics} topics ({starter.contradicting} contradicting)"
    )


def convert_2013_2014(shared: Path, out: Path) -> None:
    notes = Notes()
    topic_files = [shared / "topics.web.201-250.txt", shared / "topics.web.251-300.txt"]
    adhoc_files = [shared / "qrels.web.201-250.txt", shared / "qrels.web.251-300.txt"]
    ndeval_files = [shared / "qrels.web.201-250.ndeval.txt", shared / "qrels.web.251-300.ndeval.txt"]
    queries, aspects, bare = read_topics(topic_files, notes)
    wanted = {q["query_id"] for q in queries}
    if bare:
        # 'single' topics have no <subtopic>; ndeval judges them under subtopic 0.  The
        # description is their one information need, so it becomes aspect 0 and those
        # judgements stay usable instead of being dropped.
        by_id = {q["query_id"]: q for q in queries}
        aspects += [
            {
                "query_id": q,
                "aspect_id": "0",
                "text": by_id[q]["description"] or by_id[q]["text"],
                "type": None,
            }
            for q in bare
        ]
        kinds = Counter(by_id[q]["type"] for q in bare)
        notes.add(
            f"{len(bare)} topics have no <subtopic> element ({', '.join(f'{n} of type {k}' for k, n in sorted(kinds.items()))}; "
            f"topics {', '.join(bare)}). The ndeval qrels judge them under subtopic 0, which the topic files do not "
            "define; the converter adds aspect 0 = the topic description (type null) for each of them so that every "
            "topic has an aspect and those judgements are kept."
        )
    notes.add(
        "Query types are kept as NIST gives them: faceted, ambiguous, and single (one-facet topics, 2013-14 only)."
    )
    adhoc = keep_topics([r for f in adhoc_files for r in parse_qrels(f)], wanted, "ad-hoc", notes)
    ndeval = keep_topics(
        [r for f in ndeval_files for r in parse_qrels(f, aspect_level=True)], wanted, "subtopic-level", notes
    )
    qrels = merge_duplicates(adhoc + ndeval, notes)
    qrels = drop_unknown_aspects(qrels, aspects, notes)
    if not any("named a subtopic" in line for line in notes.lines):
        notes.add(
            "No subtopic-level row names a subtopic outside the (extended) aspect table; none were dropped."
        )
    card: dict[str, Any] = {
        "id": "webtrack-2013-2014",
        "version": "1.0.0",
        "name": "TREC Web Track 2013-2014 (risk-sensitive and diversity topics)",
        "description": (
            "The 100 TREC Web Track 2013-2014 topics (201-300) with their subtopics as aspects, the NIST ad-hoc "
            "judgements (aspect_id null) and the subtopic-level diversity judgements (ndeval) on ClueWeb12. "
            "No corpus is shipped: ClueWeb12 text cannot be redistributed, so run it with --corpus pointing at "
            "your own collection or index."
        ),
        "source": {"name": "TREC Web Track 2013-2014 (NIST)", "url": SOURCE_URL, "notes": notes.text()},
        "license": NIST_LICENSE,
        "citation": CITATION_2013_2014,
        "metrics": ["icat"],
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {
            "kind": "none",
            "label": "none shipped: ClueWeb12 text is not redistributable; point --corpus at your own",
        },
        "provenance": {"script": SCRIPT, "inputs": []},
        "tags": TAGS,
    }
    tables = {"queries": queries, "aspects": aspects, "qrels": qrels}
    write_task(out / "webtrack-2013-2014", card, tables, topic_files + adhoc_files + ndeval_files, shared)
    n_aspect_rows = sum(r["aspect_id"] is not None for r in qrels)
    print(
        f"webtrack-2013-2014: {len(queries)} queries, {len(aspects)} aspects, {len(qrels)} qrels ({n_aspect_rows} subtopic-level)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--shared",
        type=Path,
        default=REPO.parent / "shared" / "data" / "trec-web",
        help="folder with the NIST files",
    )
    ap.add_argument("--out", type=Path, default=REPO / "tasks", help="tasks folder to write into")
    args = ap.parse_args(argv)
    shared = args.shared.resolve()
    if not shared.is_dir():
        print(f"error: {args.shared} is not a folder", file=sys.stderr)
        return 2
    try:
        convert_2009_2012(shared, args.out)
        convert_2013_2014(shared, args.out)
    except (ConversionError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
