"""Build the argument tasks (``arguana-debates``, ``conqret``, ``touche2020``) from ``../shared/data``.

Each task's queries are (topic, stance) pairs: a system writes one argument for and one
against every controversial topic, as in ConQRet's RAArg setting.

* ``arguana-debates`` — the 1,406 ArguAna points (BEIR test queries; idebate.org) grouped by
  the debate their id names.  27 debates carry a motion written for this project from their
  points (ArguAna ships no debate titles); every point is in the evidence corpus, the points
  of a debate are its qrels with their stance, and the first two points of each side are the
  human reference argument that pairwise judges compare against.
* ``conqret`` — the 97 ConQRet topics (68 train / 29 test) with their interrogative titles
  and stance-labelled qrels.  The evidence web pages are not redistributable: no corpus.
* ``touche2020`` — the 49 Touché 2020 topics with their graded qrels (args.me corpus
  user-supplied).

Run ``python scripts/convert_arguments.py``; outputs are byte-stable.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
from task_files import Row, write_task

REPO = Path(__file__).resolve().parents[1]
SCRIPT = "scripts/convert_arguments.py"
STANCES = ("pro", "con")

# Motions written for groundcover from each debate's points (ArguAna has no debate titles).
MOTIONS: dict[str, str] = {
    "environment-aeghhgwpe": "Should people become vegetarian?",
    "environment-assgbatj": "Should animal testing be banned?",
    "economy-egecegphw": "Should Heathrow airport be expanded?",
    "economy-beplcpdffe": "Should online gambling be banned?",
    "culture-mmciahbans": "Should skin whitening creams be banned?",
    "culture-mthbah": "Does advertising do more harm than good?",
    "digital-freedoms-phwnaccpdt": "Should companies be banned from selling their customers' personal data?",
    "digital-freedoms-dfiphbgs": "Should governments switch to open-source software?",
    "education-egtuscpih": "Should universities offer their courses free online?",
    "free-speech-debate-magghbcrg": "Should community radio be supported to give people a voice?",
    "free-speech-debate-nshbbsbfb": "Was the BBC right to broadcast a show many Christians found offensive?",
    "health-hdond": "Should registered organ donors get priority for transplants?",
    "health-ppelfhwbpba": "Should partial-birth abortion be banned?",
    "international-gmehbisrip1b": "Should Israel withdraw to its 1967 borders?",
    "international-miasimyhw": "Is migration good for development in Africa?",
    "law-ilppppghb": "Should indigenous peoples have a right to self-determination?",
    "law-lgplhbssbco": "Is suicide morally wrong?",
    "philosophy-pppgshbsd": "Is socialism a spent political force?",
    "philosophy-elhbrd": "Should people have the right to end their own lives?",
    "politics-nlpdwhbusbuc": "Should the United States join the ban on cluster bombs?",
    "politics-oepghbrnsl": "Is strong leadership under Putin good for Russia?",
    "religion-frghbbgi": "Is it more rational to believe that God does not exist?",
    "science-ciidfaihwc": "Should governments block harmful content on the internet?",
    "society-tsmihwurpp": "Should airport security use passenger profiling by ethnicity?",
    "society-cpisydfphwj": "Should children be allowed to use Facebook?",
    "sport-aastshsrqsar": "Should South African rugby use racial quotas?",
    "sport-otshwbe2uuyt": "Should European leaders boycott Euro 2012 in Ukraine?",
}

CONQRET_CITATION = (
    "@inproceedings{dhole2025conqret,\n  title     = {{ConQRet}: Benchmarking Fine-Grained Evaluation of "
    "Retrieval Augmented Argumentation with {LLM} Judges},\n  author    = {Dhole, Kaustubh D. and Shu, Kai "
    "and Agichtein, Eugene},\n  year      = {2025}\n}\n"
)

INSTRUCTION = (
    "Write a persuasive argument on the controversial topic below, taking the stance given. "
    "State several conclusions, each followed by the premises that support it."
)

QUERIES = pa.schema(
    [
        ("query_id", pa.string()),
        ("text", pa.string()),
        ("topic_id", pa.string()),
        ("topic", pa.string()),
        ("stance", pa.string()),
        ("split", pa.string()),
    ]
)
QRELS = pa.schema(
    [
        ("query_id", pa.string()),
        ("doc_id", pa.string()),
        ("aspect_id", pa.string()),
        ("relevance", pa.int64()),
    ]
)
STANCE_TABLE = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("stance", pa.string())])
CORPUS = pa.schema([("doc_id", pa.string()), ("title", pa.string()), ("text", pa.string())])
REFERENCES = pa.schema([("query_id", pa.string()), ("argument_id", pa.string()), ("text", pa.string())])


def query_text(topic: str, stance: str) -> str:
    side = "in favour (pro)" if stance == "pro" else "against (con)"
    return f"{topic} Argue {side}."


def stance_queries(topics: list[tuple[str, str, str | None]]) -> list[Row]:
    """One query per (topic, stance): ``<topic_id>:pro`` and ``<topic_id>:con``."""
    return [
        {
            "query_id": f"{tid}:{s}",
            "text": query_text(title, s),
            "topic_id": tid,
            "topic": title,
            "stance": s,
            "split": split,
        }
        for tid, title, split in topics
        for s in STANCES
    ]


def _key(*parts: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in parts)


def arguana(shared: Path, out: Path) -> None:
    src = shared / "touche-arguana" / "topics.beir-v1.0.0-arguana.test.tsv.gz"
    points: dict[str, list[tuple[str, str, str, str]]] = defaultdict(list)
    corpus = []
    with gzip.open(src, "rt", encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            doc_id, _, text = line.rstrip("\n").partition("\t")
            m = re.fullmatch(r"test-(.+)-(pro|con)\d+a", doc_id)
            if not m or not text:
                raise SystemExit(f"{src}:{line_no}: unexpected ArguAna row {doc_id!r}")
            title, sep, body = text.partition("  ")  # BEIR joins a point's title and body with two spaces
            title, body = (title.strip(), body.strip()) if sep else ("", text.strip())
            corpus.append({"doc_id": doc_id, "title": title, "text": body})
            points[m.group(1)].append((doc_id, m.group(2), title, body))
    missing = sorted(set(MOTIONS) - set(points))
    if missing:
        raise SystemExit(f"debates with a motion but no points: {missing}")
    queries = stance_queries([(d, MOTIONS[d], "test") for d in MOTIONS])
    qrels, stances, refs = [], [], []
    for q in queries:
        debate = points[q["topic_id"]]
        for doc_id, stance, _, _ in debate:
            qrels.append({"query_id": q["query_id"], "doc_id": doc_id, "aspect_id": None, "relevance": 1})
            stances.append({"query_id": q["query_id"], "doc_id": doc_id, "stance": stance})
        own = sorted((p for p in debate if p[1] == q["stance"]), key=lambda p: p[0])[:2]
        refs.append(
            {
                "query_id": q["query_id"],
                "argument_id": "+".join(p[0] for p in own),
                "text": "\n\n".join(f"{t}. {b}" if t else b for _, _, t, b in own),
            }
        )
    card = {
        "id": "arguana-debates",
        "version": "1.0.0",
        "name": "ArguAna debates (pro and con arguments)",
        "description": (
            f"{len(MOTIONS)} idebate.org debates from ArguAna, each as two queries: write an argument for, and one "
            "against, the debate's motion. The 1,406 ArguAna points are the evidence corpus, so the "
            "argument family runs end to end offline; a debate's points are the query's qrels (with their "
            "stance), and the first two points of the query's side are the human reference argument. "
            "The motions were written by the groundcover developers from each debate's points, since "
            "ArguAna ships none."
        ),
        "source": {
            "name": "ArguAna (Wachsmuth, Syed and Stein, 2018) as distributed by BEIR v1.0.0",
            "url": "https://github.com/beir-cellar/beir",
            "notes": (
                f"{len(corpus)} points from topics.beir-v1.0.0-arguana.test.tsv.gz; the debate is the id "
                "without its stance and point number; title and body split at BEIR's double space."
            ),
        },
        "license": (
            "ArguAna's points come from idebate.org; BEIR distributes ArguAna under CC BY-SA 4.0. The "
            "motions are groundcover's own text (Apache-2.0)."
        ),
        "citation": (
            "@inproceedings{wachsmuth2018retrieval,\n  title     = {Retrieval of the Best Counterargument "
            "without Prior Topic Knowledge},\n  author    = {Wachsmuth, Henning and Syed, Shahbaz and Stein, "
            "Benno},\n  booktitle = {Proceedings of ACL 2018},\n  year      = {2018}\n}\n" + CONQRET_CITATION
        ),
        "metrics": ["arguments"],
        "main_score": {"arguments": "overall_quality"},
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {"kind": "table", "label": "ArguAna points (1,406, BEIR test queries)"},
        "provenance": {"script": SCRIPT, "notes": "Motions: MOTIONS in the script."},
        "tags": ["arguments", "stance", "conqret", "offline"],
    }
    write_task(
        out / "arguana-debates",
        card,
        {
            "queries": (queries, QUERIES, lambda r: (r["query_id"],)),
            "qrels": (qrels, QRELS, lambda r: (r["query_id"], r["doc_id"])),
            "stances": (stances, STANCE_TABLE, lambda r: (r["query_id"], r["doc_id"])),
            "corpus": (corpus, CORPUS, lambda r: (r["doc_id"],)),
            "reference_arguments": (refs, REFERENCES, lambda r: (r["query_id"],)),
        },
        [("shared/data/touche-arguana/" + src.name, src)],
    )


def conqret(shared: Path, out: Path) -> None:
    base = shared / "conqret"
    titles = json.loads((base / "interrogative_titles.json").read_text(encoding="utf-8"))
    topics, qrels, stances = [], [], []
    labelled: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for split in ("train", "test"):
        with open(base / f"{split}_queries.csv", encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                topics.append((row["qid"], titles.get(row["qid"], row["query"]).strip(), split))
        with open(base / f"{split}_qrels.csv", encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                labelled[row["qid"]].append((row["docno"], int(row["label"]), row["stance"].strip()))
    topics.sort(key=lambda t: _key(t[0]))
    queries = stance_queries(topics)
    for q in queries:
        # a document can be listed twice for a topic: cited on both sides (label 1, pro and
        # con: stance "both") or judged non-relevant twice; one row each, the highest label
        merged: dict[str, tuple[int, set[str]]] = {}
        for docno, label, stance in labelled[q["topic_id"]]:
            best, sides = merged.get(docno, (label, set()))
            merged[docno] = (max(best, label), sides | ({stance} if stance else set()))
        for docno, (label, sides) in merged.items():
            qrels.append({"query_id": q["query_id"], "doc_id": docno, "aspect_id": None, "relevance": label})
            if sides:
                stance = sides.pop() if len(sides) == 1 else "both"
                stances.append({"query_id": q["query_id"], "doc_id": docno, "stance": stance})
    card = {
        "id": "conqret",
        "version": "1.0.0",
        "name": "ConQRet controversial topics (pro and con)",
        "description": (
            "The 97 ConQRet topics from ProCon.org (68 train, 29 test), each as a pro and a con query, with "
            "ConQRet's stance-labelled document qrels. The evidence web pages are not redistributable: pass "
            "your copy of the ConQRet collection with --corpus (JSONL or parquet with doc_id and text) or "
            "--lucene-index."
        ),
        "source": {
            "name": "ConQRet (Dhole, Shu and Agichtein, 2025)",
            "url": "https://github.com/emory-irlab/conqret-rag",
            "notes": (
                "Titles from interrogative_titles.json (the csv query where missing); label 0 rows have no "
                "stance. 85 documents are listed for both stances of a topic: one qrels row, stance 'both'; "
                "18 non-relevant rows listed twice are kept once."
            ),
        },
        "license": "ConQRet topics and qrels: Apache-2.0 (see the LICENSE shipped with them).",
        "citation": CONQRET_CITATION,
        "metrics": ["arguments"],
        "main_score": {"arguments": "overall_quality"},
        "splits": ["test"],  # one table; its split column marks ConQRet's train and test topics
        "instruction": INSTRUCTION,
        "corpus": {"kind": "none", "label": "ConQRet evidence collection (user-supplied: --corpus)"},
        "provenance": {"script": SCRIPT},
        "tags": ["arguments", "stance", "conqret"],
    }
    inputs = [
        ("shared/data/conqret/" + n, base / n)
        for n in (
            "interrogative_titles.json",
            "train_queries.csv",
            "test_queries.csv",
            "train_qrels.csv",
            "test_qrels.csv",
            "LICENSE",
        )
    ]
    write_task(
        out / "conqret",
        card,
        {
            "queries": (queries, QUERIES, lambda r: (_key(r["topic_id"]), r["stance"] != "pro")),
            "qrels": (qrels, QRELS, lambda r: (r["query_id"], r["doc_id"])),
            "stances": (stances, STANCE_TABLE, lambda r: (r["query_id"], r["doc_id"])),
        },
        inputs,
    )


def touche(shared: Path, out: Path) -> None:
    base = shared / "touche-arguana"
    topics_file = base / "topics.beir-v1.0.0-webis-touche2020.test.tsv.gz"
    qrels_file = base / "qrels.beir-v1.0.0-webis-touche2020.test.txt"
    with gzip.open(topics_file, "rt", encoding="utf-8") as f:
        topics = [(tid, title.strip(), "test") for tid, title in (ln.rstrip("\n").split("\t") for ln in f)]
    judged: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for line in qrels_file.read_text(encoding="utf-8").splitlines():
        tid, _, docno, grade = line.split()
        judged[tid].append((docno, int(grade)))
    queries = stance_queries(topics)
    qrels = [
        {"query_id": q["query_id"], "doc_id": d, "aspect_id": None, "relevance": g}
        for q in queries
        for d, g in judged[q["topic_id"]]
    ]
    card = {
        "id": "touche2020",
        "version": "1.0.0",
        "name": "Touché 2020 argument retrieval topics (pro and con)",
        "description": (
            "The 49 Touché 2020 (Task 1) controversial questions, each as a pro and a con query, with the "
            "graded relevance judgements of BEIR's webis-touche2020 (v2). The args.me corpus is user-"
            "supplied: --corpus, or --lucene-index prebuilt:beir-v1.0.0-webis-touche2020.flat with internet."
        ),
        "source": {
            "name": "Touché 2020 Task 1 (Bondarenko et al.) as distributed by BEIR v1.0.0",
            "url": "https://touche.webis.de/",
            "notes": "Qrels grades kept as given; a topic's judgements apply to both its stance queries.",
        },
        "license": "Touché topics and judgements: CC BY 4.0 (Webis); args.me corpus not included.",
        "citation": (
            "@inproceedings{bondarenko2020overview,\n  title     = {Overview of {Touch\\'e} 2020: Argument "
            "Retrieval},\n  author    = {Bondarenko, Alexander and others},\n  booktitle = {CLEF 2020 "
            "Working Notes},\n  year      = {2020}\n}\n"
        ),
        "metrics": ["arguments"],
        "main_score": {"arguments": "overall_quality"},
        "splits": ["test"],
        "instruction": INSTRUCTION,
        "corpus": {"kind": "none", "label": "args.me corpus (user-supplied: --corpus or --lucene-index)"},
        "provenance": {"script": SCRIPT},
        "tags": ["arguments", "stance", "touche"],
    }
    write_task(
        out / "touche2020",
        card,
        {
            "queries": (queries, QUERIES, lambda r: (_key(r["topic_id"]), r["stance"] != "pro")),
            "qrels": (qrels, QRELS, lambda r: (r["query_id"], r["doc_id"])),
        },
        [("shared/data/touche-arguana/" + p.name, p) for p in (topics_file, qrels_file)],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data", help="shared data folder")
    ap.add_argument("--out", type=Path, default=REPO / "tasks", help="tasks folder to write into")
    args = ap.parse_args(argv)
    if not args.shared.is_dir():
        print(f"error: {args.shared} is not a folder", file=sys.stderr)
        return 2
    arguana(args.shared, args.out)
    conqret(args.shared, args.out)
    touche(args.shared, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
