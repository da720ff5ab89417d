"""How the similarity answerer's ranking agreement on TREC DL 2019 depends on its threshold.

The ranking card ``benchmark/profiles/cards/rankings/dl19-offline-smollm2-minilm-sim-similarity.yaml``
measures the offline profile's similarity answerer at the EXAM family's default threshold
(cosine ≥ 0.5).  This script says why that reads "no better than chance" and what another
threshold would give, without passing a setting chosen on the test topics off as a card:

* per threshold and rank cut-off, Kendall τ against the human leaderboard (nDCG@10 from
  NIST grades) with its 95% bootstrap interval over topics, and the share of (run, topic)
  cells whose EXAM is 1.0 (a saturated reader ranks nothing);
* a two-fold cross-validation over topics (odd / even positions in the file): the
  threshold with the best τ on one half, measured on the other half — what choosing a
  threshold on DL19 would be worth on topics it was not chosen on.

Each (question, paragraph) cosine is computed once (the embedder's content-hash cache keeps
them across runs) and thresholded in memory.

    .venv/bin/python benchmarks/exam_similarity_thresholds.py [--data-dir DIR] [--resamples 1000]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

from benchmark.families.exam.bank import ExamQuestion
from benchmark.families.exam.exampp import read_bank, read_grades
from benchmark.families.exam.graded_boards import regrade
from benchmark.families.exam.judges import Reading, windows
from benchmark.judging.similarity import closest_windows
from benchmark.judging.stack import JudgeStack
from benchmark.metaeval import ranking_sets
from benchmark.metaeval.rankings import agreement, human_leaderboard
from benchmark.models.profiles import load_profile

THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
CUTOFFS = (20, 5)

Board = dict[str, dict[str, float]]


class Thresholded:
    """The similarity answerer's verdicts at one threshold, from cosines computed once."""

    def __init__(self, cosines: dict[tuple[str, str], float], threshold: float) -> None:
        self.identity = {"answerer": "similarity", "threshold": threshold}
        self.cosines = cosines
        self.threshold = threshold

    def read(self, items: Sequence[tuple[ExamQuestion, str]]) -> list[Reading]:
        out = []
        for q, text in items:
            hit = self.cosines[(q.question_id, text)] >= self.threshold
            out.append(Reading(answered=hit, correct=hit))
        return out


def restrict(board: Board, topics: set[str]) -> Board:
    return {s: {t: v for t, v in per.items() if t in topics} for s, per in board.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", help="a folder with dl19/<file> copies (else the cache, or a download)")
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    data = Path(args.data_dir) if args.data_dir else None
    paragraphs = read_grades(ranking_sets.fetch("dl19", data))
    bank = read_bank(ranking_sets.fetch("dl19", data, bank=True))
    topics = list(dict.fromkeys(p.query_id for p in paragraphs if bank.get(p.query_id)))
    wanted = set(topics)
    judges = JudgeStack.load(load_profile("offline-smollm2-minilm-sim"), progress=False)
    cut = max(CUTOFFS)
    ranked = [p for p in paragraphs if p.query_id in wanted and any(r <= cut for _, r in p.rankings)]
    items = [(q, p.text) for p in ranked for q in bank[p.query_id]]
    # the similarity answerer's own reading (closest window), unrounded, for every threshold
    best = closest_windows(judges.embedder(), [(windows(text), [q.question]) for q, text in items])
    cosines = {(q.question_id, text): b[0][0] for (q, text), b in zip(items, best, strict=True)}
    human = human_leaderboard([p for p in paragraphs if p.query_id in wanted])

    def board(threshold: float, cutoff: int) -> Board:
        return regrade(
            paragraphs, bank, Thresholded(cosines, threshold), "similarity",
            topics=topics, min_rating=3, rank_cutoff=cutoff,
        ).exam  # fmt: skip

    boards = {(t, cutoff): board(t, cutoff) for cutoff in CUTOFFS for t in THRESHOLDS}
    rows = []
    for (t, cutoff), exam in boards.items():
        a = agreement("", exam, human, resamples=args.resamples)
        cells = [v for per in exam.values() for v in per.values()]
        rows.append(
            [cutoff, t, f"{a.kendall.value:.3f} [{a.kendall.low:.2f}, {a.kendall.high:.2f}]",
             f"{a.per_topic_kendall.value:.3f}", f"{sum(v == 1.0 for v in cells) / len(cells):.2f}"]
        )  # fmt: skip
    print(f"TREC DL 2019: {len(topics)} topics, {len(items):,} (question, paragraph) cosines")
    print(tabulate(rows, ["top N", "cosine ≥", "Kendall τ [95%]", "per-topic τ", "cells at EXAM 1.0"]))

    folds = [set(topics[0::2]), set(topics[1::2])]
    deepest = {t: b for (t, cutoff), b in boards.items() if cutoff == max(CUTOFFS)}
    cv = []
    for dev, test in ((folds[0], folds[1]), (folds[1], folds[0])):
        on_dev = {
            t: agreement("", restrict(b, dev), restrict(human, dev), resamples=10).kendall.value
            for t, b in deepest.items()
        }
        best = max(on_dev, key=lambda t: on_dev[t])
        a = agreement("", restrict(deepest[best], test), restrict(human, test), resamples=args.resamples)
        cv.append(
            [len(dev), best, f"{on_dev[best]:.3f}", len(test),
             f"{a.kendall.value:.3f} [{a.kendall.low:.2f}, {a.kendall.high:.2f}]"]
        )  # fmt: skip
    print(f"\ntwo-fold cross-validation over topics (top {max(CUTOFFS)})")
    print(tabulate(cv, ["dev topics", "chosen cosine ≥", "τ on dev", "test topics", "τ on test [95%]"]))


if __name__ == "__main__":
    main()
