"""Reference measures meta-evaluation compares a metric with, as ``system -> query -> score``:
ROUGE-1 F1 against the gold articles (EXAM's baseline) and trec_eval measures of TREC runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel, usage_error

Scores = dict[str, dict[str, float | None]]  # system -> query id -> score
TREC_MEASURES = {"Rprec": "Rprec", "P@R": "Rprec", "MAP": "AP", "AP": "AP", "nDCG@20": "nDCG@20"}


@cache
def _scorer() -> Any:
    from rouge_score import rouge_scorer, tokenizers
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    class NoStopwords(tokenizers.Tokenizer):
        def __init__(self) -> None:
            self.inner = tokenizers.DefaultTokenizer(use_stemmer=False)
            self.stem = tokenizers.DefaultTokenizer(use_stemmer=True)

        def tokenize(self, text: str) -> list[str]:
            kept = " ".join(t for t in self.inner.tokenize(text) if t not in ENGLISH_STOP_WORDS)
            return self.stem.tokenize(kept)

    return rouge_scorer.RougeScorer(["rouge1"], tokenizer=NoStopwords())


def rouge1_f1(candidate: str, reference: str) -> float:
    """ROUGE-1 F1 of ``candidate`` against ``reference`` (0 when either has no content word)."""
    return float(_scorer().score(reference, candidate)["rouge1"].fmeasure)


def rouge1_scores(answers: Mapping[str, Mapping[str, str]], gold: Mapping[str, str]) -> Scores:
    """Per system and query, ROUGE-1 F1 of its answer against the query's gold article."""
    return {
        system: {q: rouge1_f1(text, gold[q]) if q in gold else None for q, text in per_query.items()}
        for system, per_query in answers.items()
    }


def read_runs(paths: Iterable[Path]) -> dict[str, dict[str, dict[str, float]]]:
    """TREC run files (``qid Q0 docid rank score tag``) -> system (the file's stem) -> qid ->
    doc -> score.  Strict, every problem named: six columns, a finite score (a ``NaN`` would
    rank anywhere), each document once per query."""
    import math

    from benchmark.core.untrusted import read_text

    runs: dict[str, dict[str, dict[str, float]]] = {}
    problems: list[Problem] = []
    for path in paths:
        where = rel(path)
        if not path.is_file():
            problems.append(Problem(where, "no such run file", field="--runs"))
            continue
        run = runs.setdefault(path.stem, {})
        first: dict[tuple[str, str], int] = {}
        for n, line in enumerate(read_text(path, field="--runs").split("\n"), start=1):
            cols = line.split()
            if not cols:
                continue
            if len(cols) != 6:
                problems.append(
                    Problem(
                        where, f"not a TREC run line (qid Q0 docid rank score tag): {len(cols)} columns", n
                    )
                )
                continue
            qid, _, doc, _, text, _ = cols
            try:
                score = float(text)
            except ValueError:
                problems.append(Problem(where, f"not a number: {text!r}", n, "score"))
                continue
            if not math.isfinite(score):
                problems.append(Problem(where, f"{text} is not a finite score", n, "score"))
                continue
            if (qid, doc) in first:
                problems.append(
                    Problem(
                        where,
                        f"{doc} ranked twice for query {qid} (first on line {first[qid, doc]})",
                        n,
                        "docid",
                    )
                )
                continue
            first[qid, doc] = n
            run.setdefault(qid, {})[doc] = score
    if problems:
        raise InputError(problems)
    return runs


def trec_scores(
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    measure: str,
) -> Scores:
    """Per system and judged query, ``measure`` (Rprec / AP / nDCG@20) by ir_measures."""
    import ir_measures

    if (name := TREC_MEASURES.get(measure)) is None:
        raise usage_error(
            f"unknown trec_eval measure {measure!r}; known: {', '.join(TREC_MEASURES)}", "--against"
        )
    m = ir_measures.parse_measure(name)
    out: Scores = {}
    for system, run in runs.items():
        values = {r.query_id: float(r.value) for r in m.iter_calc(qrels, run)}
        out[system] = {q: values.get(q, 0.0) for q in qrels}  # a judged query the run skipped scores 0
    return out
