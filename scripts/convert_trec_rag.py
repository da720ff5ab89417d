"""Build the sub-question tasks ``researchy-dev`` and ``trec-rag24`` from ``../shared/data/trec-rag``.

* ``researchy-dev`` — the 600 Researchy Questions of the TREC 2024 RAG Track's development
  topics (``topics.rag24.researchy-dev.txt``), the paper's source of open-ended questions;
* ``trec-rag24`` — the 301 TREC 2024 RAG Track test topics (``topics.rag24.test.txt``);
* ``trec-rag25`` — the 105 TREC 2025 RAG Track test topics (``topics.rag25.test.jsonl``,
  ``{"id", "title"}`` per line, the ids the track's narrative ids), for TREC RAG 2025 run
  files (``benchmark score --trec-rag-run FILE --tasks trec-rag25``): nuggets and
  attribution only, no sub-questions.

The first two carry the real query texts.  Their ``sub_questions`` table is written, not generated:
the groundcover developers wrote core / background / follow-up sub-questions for the first
20 queries of each file from the query text alone (``scripts/sub_questions/<task>.jsonl``,
every row saying who made it), as the exam questions were written; the first version of
these tasks held ones SmolLM2-135M generated, many off-topic or restating the query.  The
card says where they came from and how many, and its version changes whenever that file
does.  ``benchmark subq generate`` drafts such a file with a capable model.  Only queries
with sub-questions are scored.  Both list the ``nuggets`` family too, scored only when the
user passes a nugget file (``--nuggets``; without one it is skipped with a note), and the
``attribution`` family, which reads the cited segments from the user's corpus.  No corpus ships (MS MARCO v2.1 segments): RAG needs ``--corpus`` /
``--lucene-index``.

Run ``python scripts/convert_trec_rag.py``; outputs are byte-stable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
from task_files import Row, write_task

REPO = Path(__file__).resolve().parents[1]
SCRIPT = "scripts/convert_trec_rag.py"
SUBQ_DIR = REPO / "scripts" / "sub_questions"
QUERIES = pa.schema([("query_id", pa.string()), ("text", pa.string()), ("split", pa.string())])
SUB_QUESTIONS = pa.schema(
    [
        ("query_id", pa.string()),
        ("sub_question_id", pa.string()),
        ("text", pa.string()),
        ("type", pa.string()),
    ]
)
INSTRUCTION = (
    "Write a comprehensive, well-organised answer to the following question, covering what someone asking it "
    "needs to know."
)
CITATION = """@inproceedings{pradeep2024ragnarok,
  title     = {Ragnar{\\"o}k: A Reusable {RAG} Framework and Baselines for {TREC} 2024 Retrieval-Augmented Generation Track},
  author    = {Pradeep, Ronak and Thakur, Nandan and Sharifymoghaddam, Sahel and Zhang, Eric and Nguyen, Ryan and Campos, Daniel and Craswell, Nick and Lin, Jimmy},
  year      = {2024},
  journal   = {arXiv preprint arXiv:2406.16828}
}
@article{rosset2024researchy,
  title   = {Researchy Questions: A Dataset of Multi-Perspective, Decompositional Questions for {LLM} Web Agents},
  author  = {Rosset, Corby and Chung, Ho-Lam and Qin, Guanghui and Chau, Ethan C. and Feng, Zhuo and Awadallah, Ahmed and Neville, Jennifer and Rao, Nikhil},
  journal = {arXiv preprint arXiv:2402.17896},
  year    = {2024}
}
@article{xie2024subquestion,
  title   = {Do {RAG} Systems Cover What Matters? Evaluating and Optimizing Responses with Sub-Question Coverage},
  author  = {Xie, Kaige and Laban, Philippe and Choubey, Prafulla Kumar and Xiong, Caiming and Wu, Chien-Sheng},
  journal = {arXiv preprint arXiv:2410.15531},
  year    = {2024}
}"""
LICENSE = (
    "Query texts: TREC 2024 RAG Track topics (NIST), the development topics drawn from Microsoft's Researchy "
    "Questions, as distributed with Anserini/pyserini; no open-source licence is attached to them here, so cite "
    "the track and the dataset and check their terms before uses beyond research. The sub-questions are "
    "groundcover's own and distributed under Apache-2.0."
)
TASKS = {
    "researchy-dev": (
        "topics.rag24.researchy-dev.txt",
        "TREC 2024 RAG development topics (Researchy Questions)",
    ),
    "trec-rag24": ("topics.rag24.test.txt", "TREC 2024 RAG Track test topics"),
}


class ConversionError(Exception):
    pass


def read_topics(path: Path) -> list[Row]:
    rows, seen = [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        qid, sep, text = line.partition("\t")
        if not sep or not text.strip():
            raise ConversionError(f"{path}, line {n}: expected query id<TAB>text")
        if qid in seen:
            raise ConversionError(f"{path}, line {n}: query id {qid} repeated")
        seen.add(qid)
        rows.append({"query_id": qid.strip(), "text": " ".join(text.split()), "split": "test"})
    return rows


def read_sub_questions(path: Path, known: set[str]) -> tuple[list[Row], set[str]]:
    rows: list[Row] = []
    provenance: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["query_id"] not in known:
            raise ConversionError(f"{path}, line {n}: unknown query id {r['query_id']}")
        if r["type"] not in ("core", "background", "follow-up"):
            raise ConversionError(f"{path}, line {n}: type {r['type']!r}")
        rows.append({k: r[k] for k in ("query_id", "sub_question_id", "text", "type")})
        provenance.add(r["provenance"])
    return rows, provenance


def convert(task_id: str, shared: Path, out: Path) -> None:
    name, title = TASKS[task_id]
    queries = read_topics(shared / name)
    subq_file = SUBQ_DIR / f"{task_id}.jsonl"
    subqs, provenance = read_sub_questions(subq_file, {q["query_id"] for q in queries})
    covered = sorted({r["query_id"] for r in subqs}, key=[q["query_id"] for q in queries].index)
    counts = {t: sum(r["type"] == t for r in subqs) for t in ("core", "background", "follow-up")}
    written = all(p.startswith("written") for p in provenance)
    made = "written" if written else "generated"
    card: dict[str, Any] = {
        "id": task_id,
        # the version follows the data: listing a family (nuggets, attribution) changes none
        "version": "1.1.0" if written else "1.0.0",
        "name": f"{title} with {made} sub-questions",
        "description": (
            f"The {len(queries)} {title}, real query texts, for sub-question coverage (Xie et al., 2024). "
            f"Sub-questions are {made}, not {'generated' if written else 'written'}: {len(subqs)} for the first {len(covered)} queries "
            f"({counts['core']} core, {counts['background']} background, {counts['follow-up']} follow-up), "
            "and only those queries are scored. No corpus ships: pass MS MARCO v2.1 segments (or any corpus) "
            "with --corpus / --lucene-index for RAG and retrieval coverage. Nugget evaluation (the track's "
            "own measure) needs a nugget file in nuggetizer's format: --nuggets FILE (the track's assessor "
            "nuggets, nuggetizer's, or `benchmark nuggets generate --candidates FILE` on relevant segments); "
            "without one the nuggets family is skipped with a note. Attribution (are the citations right?) "
            "scores RAG answers and TREC RAG run files (`benchmark score --trec-rag-run FILE`) against the "
            "cited segments of the corpus given with --corpus / --lucene-index."
        ),
        "source": {
            "name": "TREC 2024 RAG Track topics",
            "url": "https://trec-rag.github.io/",
            "notes": (
                f"Sub-questions: {'; '.join(sorted(provenance))} (scripts/sub_questions/{task_id}.jsonl), "
                "typed core / background / follow-up as in Xie et al. (2024), for the first queries of the "
                "topics file. Version 1.0.0 held sub-questions SmolLM2-135M-Instruct generated (many off-topic "
                "or restating the query). They are not the paper's GPT-4 decompositions; `benchmark subq "
                "generate --queries <topics file> --limit N` drafts others with a capable LLM."
                if written
                else f"Sub-questions: {'; '.join(sorted(provenance))} (scripts/sub_questions/{task_id}.jsonl, made "
                "with `benchmark subq generate --queries <topics file> --limit N`). A 135M-parameter offline "
                "model wrote them: they are a working set for the pipeline, not the paper's GPT-4 "
                "decompositions; regenerate them with a capable LLM and bump this card's version."
            ),
        },
        "license": LICENSE,
        "citation": CITATION,
        "metrics": ["subq", "nuggets", "attribution"],
        "main_score": {"subq": "subq_hybrid", "nuggets": "vital_strict", "attribution": "citation_recall"},
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {
            "kind": "none",
            "label": "MS MARCO v2.1 segmented (user-supplied: --corpus or --lucene-index)",
            "covers_queries": covered,
        },
        "provenance": {"script": SCRIPT},
        "tags": ["rag", "sub-questions", "trec-rag"],
    }
    write_task(
        out / task_id,
        card,
        {
            "queries": (queries, QUERIES, lambda r: (r["query_id"],)),
            "sub_questions": (subqs, SUB_QUESTIONS, lambda r: (r["query_id"], r["sub_question_id"])),
        },
        [
            ("shared/data/trec-rag/" + name, shared / name),
            (f"scripts/sub_questions/{task_id}.jsonl", subq_file),
        ],
    )
    print(f"{task_id}: {len(queries)} queries, {len(subqs)} sub-questions for {len(covered)}")


RAG25 = "topics.rag25.test.jsonl"
RAG25_LICENSE = (
    "Topic texts: TREC 2025 RAG Track test topics (NIST), as distributed with Anserini "
    "(castorini/anserini-tools topics/topics.rag25.test.jsonl, commit 43add835e20bd66b48f9a640be9bad95a4762d82, "
    "byte-identical to the input named under provenance); no open-source licence is attached to them here, "
    "so cite the track and check its terms before uses beyond research."
)


def read_topics_jsonl(path: Path) -> list[Row]:
    """The 2025 topics: ``{"id", "title"}`` per line; the id is the run files' ``narrative_id``."""
    rows, seen = [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        r = json.loads(line)
        qid, text = str(r["id"]).strip(), str(r["title"])
        if not qid or not text.strip():
            raise ConversionError(f"{path}, line {n}: expected an id and a title")
        if qid in seen:
            raise ConversionError(f"{path}, line {n}: topic id {qid} repeated")
        seen.add(qid)
        rows.append({"query_id": qid, "text": " ".join(text.split()), "split": "test"})
    return rows


def convert_2025(shared: Path, out: Path) -> None:
    queries = read_topics_jsonl(shared / RAG25)
    card: dict[str, Any] = {
        "id": "trec-rag25",
        "version": "1.0.0",
        "name": "TREC 2025 RAG Track test topics",
        "description": (
            f"The {len(queries)} TREC 2025 RAG Track test topics (narratives of 2-3 sentences), query ids "
            "the track's narrative ids, for scoring TREC RAG 2025 run files as the track's checker reads "
            "them (`benchmark score --trec-rag-run FILE --tasks trec-rag25`; docs/conformance.md). No "
            "corpus ships: pass MS MARCO v2.1 segments with --corpus / --lucene-index for attribution (are "
            "the citations right?). Nugget evaluation (the track's own measure) needs a nugget file in "
            "nuggetizer's format: --nuggets FILE; without one the nuggets family is skipped with a note. "
            "No sub-questions."
        ),
        "source": {
            "name": "TREC 2025 RAG Track topics",
            "url": "https://trec-rag.github.io/",
            "notes": (
                "Topics file: topics.rag25.test.jsonl as distributed with Anserini (castorini/anserini-tools, "
                "topics/topics.rag25.test.jsonl), one {id, title} per line; the texts are kept as given "
                "(whitespace runs collapsed; none occur). Run files cite MS MARCO v2.1 segments."
            ),
        },
        "license": RAG25_LICENSE,
        "citation": CITATION.split("\n@article{rosset2024researchy")[0],
        "metrics": ["nuggets", "attribution"],
        "main_score": {"nuggets": "vital_strict", "attribution": "citation_recall"},
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {
            "kind": "none",
            "label": "MS MARCO v2.1 segmented (user-supplied: --corpus or --lucene-index)",
        },
        "provenance": {"script": SCRIPT},
        "tags": ["rag", "trec-rag"],
    }
    write_task(
        out / "trec-rag25",
        card,
        {"queries": (queries, QUERIES, lambda r: (r["query_id"],))},
        [("shared/data/trec-rag/" + RAG25, shared / RAG25)],
    )
    print(f"trec-rag25: {len(queries)} queries")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data" / "trec-rag")
    ap.add_argument("--out", type=Path, default=REPO / "tasks")
    args = ap.parse_args(argv)
    try:
        for task_id in TASKS:
            convert(task_id, args.shared.resolve(), args.out)
        convert_2025(args.shared.resolve(), args.out)
    except (ConversionError, FileNotFoundError, KeyError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
