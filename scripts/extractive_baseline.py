"""A retrieve-and-copy RAG baseline: each answer is the top BM25 passages of the task corpus.

Why it exists: the offline default model writes generic text that scores ~0, which on its
own cannot tell a reader whether the scorer works.  This baseline is the opposite
extreme — every sentence is copied from the knowledge corpus the judges ground against —
so its S_fact is a ceiling check of the grounding stage, and its coverage shows what
a few well-chosen passages cover of a topic's aspects.  It is a reference point on the
leaderboard (like Lead-3 in summarisation), not an achievement: with the starter corpus
it reads the very documents it is judged against.

The passages come from distinct documents (the first passage of each of the top
``--docs`` documents), in BM25 rank order, searched with the query text and its
description.  The outputs file has the harness's schema, so ``benchmark submit`` and
``benchmark score`` treat it like any model's answers.

    .venv/bin/python scripts/extractive_baseline.py --task webtrack-2009-2012 --out outputs/
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmark import retrieval
from benchmark.answers import OutputRow, write_outputs
from benchmark.board.submissions import required_queries
from benchmark.core.results import now_iso
from benchmark.models.cache import content_hash
from benchmark.models.profiles import DEFAULT_PROFILE, load_profile
from benchmark.tasks import load_task

MODEL = "groundcover/bm25-extractive-top3"
REVISION = "v1"


def extractive_answers(task_id: str, docs: int = 3, depth: int = 50) -> dict[str, str]:
    """Answer per scored query: the best passage of each of the top ``docs`` documents."""
    task = load_task(task_id)
    profile = load_profile(DEFAULT_PROFILE)
    spec = profile.retriever.model_copy(update={"kind": "bm25"})
    corpus = task.table("corpus").to_dict("records")
    passages = retrieval.chunk_corpus(corpus, size=spec.chunk_words, overlap=spec.chunk_overlap)
    bm25 = retrieval.build_retriever(spec, profile.embedder, passages)
    queries = task.table("queries").set_index("query_id")
    _, qids = required_queries(task_id)  # exactly what a submission must answer
    texts = [f"{queries.at[q, 'text']} {queries.at[q, 'description'] or ''}".strip() for q in qids]
    answers = {}
    for qid, hits in zip(qids, bm25.search(texts, k=depth), strict=True):
        chosen: dict[str, str] = {}
        for hit in hits:
            if hit.doc_id not in chosen:
                chosen[hit.doc_id] = hit.text
            if len(chosen) == docs:
                break
        answers[qid] = "\n\n".join(chosen.values())
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--task", default="webtrack-2009-2012")
    parser.add_argument("--docs", type=int, default=3, help="documents copied per answer")
    parser.add_argument("--out", default="outputs", help="outputs folder (a sub-folder per model)")
    args = parser.parse_args()

    answers = extractive_answers(args.task, docs=args.docs)
    generation = {"retriever": "bm25 (pyserini)", "documents": args.docs, "query": "text + description"}
    path = Path(args.out) / MODEL.replace("/", "__") / f"{args.task}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        OutputRow(
            query_id=qid,
            answer=answer,
            model=MODEL,
            revision=REVISION,
            backend="scripts/extractive_baseline.py",
            generation=generation,
            task=args.task,
            created=now_iso(),
            item_key=content_hash({"task": args.task, "query_id": qid, "generation": generation}),
        )
        for qid, answer in answers.items()
    ]
    write_outputs(rows, path)
    print(f"wrote {len(answers)} answers to {path}")


if __name__ == "__main__":
    main()
