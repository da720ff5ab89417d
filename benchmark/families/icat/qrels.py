"""ICAT-M's aspect-level qrels: a user's file in the TREC diversity format (``--aspect-qrels``)."""

from __future__ import annotations

import os
from pathlib import Path

from benchmark.core.errors import InputError, Problem, rel
from benchmark.tasks import Task


def load_aspect_qrels(path: str | os.PathLike[str], task: Task) -> dict[tuple[str, str], set[str]]:
    """Aspect-level qrels in the TREC diversity format (NIST's ``qrels.*.ndeval.txt``: ``topic
    subtopic docid grade``), checked against the task's queries and aspects; grades <= 0 are left out."""
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError.at(where, "aspect qrels file does not exist", field="--aspect-qrels")
    known_q = set(task.table("queries")["query_id"].astype(str))
    known_a: set[tuple[str, str]] = set()
    if task.has_table("aspects"):
        aspects = task.table("aspects")
        known_a = set(zip(aspects["query_id"], aspects["aspect_id"].astype(str), strict=True))
    out: dict[tuple[str, str], set[str]] = {}
    problems: list[Problem] = []

    def bad(n: int, message: str, field: str | None = None) -> None:
        problems.append(Problem(where, message, n, field))

    with open(p, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) != 4:
                bad(n, f"expected 4 columns 'topic subtopic docid grade', got {len(parts)}")
                continue
            topic, subtopic, doc, grade = parts
            try:
                g = int(grade)
            except ValueError:
                bad(n, f"grade {grade[:20]!r} is not an integer", "grade")
                continue
            if topic not in known_q:
                bad(n, f"topic {topic[:20]!r} is not a query of task {task.id}", "topic")
            elif (topic, subtopic) not in known_a:
                bad(n, f"subtopic {subtopic[:20]!r} is not an aspect of topic {topic}", "subtopic")
            elif g > 0:
                out.setdefault((topic, doc), set()).add(subtopic)
            if len(problems) >= 50:
                break
    if problems:
        raise InputError(problems)
    if not out:
        raise InputError.at(where, "no positive aspect-level judgements in the file", field="--aspect-qrels")
    return out


def task_aspect_qrels(task: Task) -> dict[tuple[str, str], set[str]]:
    """(query_id, doc_id) -> aspects the document is relevant to, from the task's own
    qrels table: aspect-level rows with grade > 0 only (webtrack-2013-2014 ships grade-0
    aspect rows; counting them would inflate ICAT-M's coverage several-fold)."""
    if not task.has_table("qrels"):
        return {}
    df = task.table("qrels")
    df = df[df["aspect_id"].notna() & (df["relevance"] > 0)]
    out: dict[tuple[str, str], set[str]] = {}
    for q, d, a in zip(df["query_id"], df["doc_id"], df["aspect_id"], strict=True):
        out.setdefault((q, d), set()).add(a)
    return out
