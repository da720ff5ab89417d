"""Meta-evaluation across systems: a metric's per-query scores per system, human or
reference scores aligned to the same systems, and their correlation at query and system
level.  ``benchmark meta-eval`` parses flags into these calls and prints the tables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchmark.board.leaderboard import Entry
from benchmark.core.errors import InputError, Problem, rel, usage_error
from benchmark.core.results import ModelInfo
from benchmark.core.untrusted import read_rows
from benchmark.families import REGISTRY
from benchmark.families.base import hook
from benchmark.metaeval.reference import Scores

if TYPE_CHECKING:  # imported where used: it loads scipy.stats
    from benchmark.metaeval import measures as meta_eval


def metric_scores(entries: list[Entry], family: str, key: str) -> tuple[Scores, dict[str, ModelInfo]]:
    """Per-query scores of ``key`` per system label, and each system's model."""
    mine = [e for e in entries if e.result.metric_family == family]
    scores: Scores = {
        e.model_label: {q.query_id: q.scores.get(key) for q in e.result.per_query} for e in mine
    }
    return scores, {e.model_label: e.result.model for e in mine}


def read_human(path: Path) -> dict[str, dict[str, list[float]]]:
    """system -> query id -> the scores given (several assessors kept, averaged later)."""
    out: dict[str, dict[str, list[float]]] = {}
    for row in checked_rows(path, "--human", ("system", "query_id", "score"), "score"):
        system = out.setdefault(str(row["system"]), {})
        system.setdefault(str(row["query_id"]), []).append(float(row["score"]))  # type: ignore[arg-type]
    return out


def checked_rows(path: Path, flag: str, fields: tuple[str, ...], number: str) -> list[dict[str, object]]:
    """Rows with every field present and ``number`` a number; every problem named."""
    out, problems = [], []
    rows = read_rows(path, flag)
    objects = [row for _, row in rows if isinstance(row, dict)]
    absent = [f for f in fields if not any(f in row for row in objects)]
    if rows and absent:  # another kind of file: one line saying so, not one per row
        raise InputError.at(
            rel(path), f"has no {absent[0]!r} column: expected {', '.join(fields)} per row", field=flag
        )
    for n, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(rel(path), "each row must be an object", line=n))
            continue
        if missing := [f for f in fields if row.get(f) in (None, "")]:
            problems.append(Problem(rel(path), "missing", line=n, field=missing[0]))
            continue
        try:
            out.append({**row, number: float(row[number])})  # type: ignore[arg-type]
        except (TypeError, ValueError):
            problems.append(Problem(rel(path), f"not a number: {row[number]!r}", line=n, field=number))
    if problems:
        raise InputError(problems)
    return out


def read_ratings(path: Path, judge: str) -> dict[str, tuple[dict[str, dict[str, float]], dict[str, float]]]:
    """dimension -> (human rater -> item -> rating, judge item -> rating); and item texts."""
    rows = checked_rows(path, "--ratings", ("item", "dimension", "rater", "rating"), "rating")
    out: dict[str, tuple[dict[str, dict[str, float]], dict[str, float]]] = {}
    for r in rows:
        humans, judged = out.setdefault(str(r["dimension"]), ({}, {}))
        if str(r["rater"]) == judge:
            judged[str(r["item"])] = float(r["rating"])  # type: ignore[arg-type]
        else:
            humans.setdefault(str(r["rater"]), {})[str(r["item"])] = float(r["rating"])  # type: ignore[arg-type]
    if not any(j for _, j in out.values()):
        raise InputError.at(rel(path), f"no ratings by the judge rater {judge!r}", field="rater")
    return out


def item_lengths(path: Path) -> dict[str, float]:
    """Words in each item's text (the length baseline's input)."""
    return {
        str(r["item"]): float(len(str(r.get("text") or "").split()))
        for _, r in read_rows(path, "--ratings")
        if isinstance(r, dict)
    }


def align_systems(scores: Scores, models: dict[str, ModelInfo]) -> Scores:
    """Scores keyed by result label, where the source names a system by its label, its
    submission folder's name (``org__name[__<setting>]``) or a model id only one system has."""
    from benchmark.core.results import model_dir_name

    names = {
        model_dir_name(m.id) + ("" if m.rag is None else f"__{m.setting}"): lb for lb, m in models.items()
    }
    shared = [m.id for m in models.values()]
    names |= {m.id: label for label, m in models.items() if shared.count(m.id) == 1}
    return {label: v for s, v in scores.items() if (label := s if s in models else names.get(s)) is not None}


def rouge_against_gold(entries: list[Entry], family: str, task_id: str | None) -> Scores:
    """ROUGE-1 F1 of each system's answers (from its result traces) against the gold articles."""

    from benchmark.core.results import read_traces
    from benchmark.metaeval.reference import rouge1_scores
    from benchmark.tasks import load_task

    chosen = [e for e in entries if e.result.metric_family == family and e.path is not None]
    tasks = {e.result.task.id for e in chosen}
    if len(tasks) != 1:
        raise usage_error("pick one task with --task for ROUGE-1", "--task")
    (tid,) = tasks
    task = load_task(task_id or tid)
    gold = next((found(task) for fam in REGISTRY.values() if (found := hook(fam, "reference_texts"))), {})
    if not gold:
        raise InputError.at(task.where(), "the task has no gold articles", field="data.tables")
    answers: dict[str, dict[str, str]] = {}
    for e in chosen:
        rows = read_traces(e.path)  # type: ignore[arg-type]
        answers[e.model_label] = {str(r["query_id"]): str(r.get("answer", "")) for r in rows}
    return rouge1_scores(answers, gold)


def trec_against_runs(
    runs: list[str] | None, qrels_file: str | None, task_id: str | None, measure: str
) -> Scores:
    """A trec_eval measure of each run file, per judged query (qrels: ``qrels_file`` or the task's)."""
    from benchmark.metaeval.reference import read_runs, trec_scores
    from benchmark.tasks import load_task

    if not runs:
        raise usage_error("trec measures need --runs FILE...", "--runs")
    files = [f for p in map(Path, runs) for f in (sorted(p.iterdir()) if p.is_dir() else [p])]
    if qrels_file:
        import ir_measures

        qrels: dict[str, dict[str, int]] = {}
        for q in ir_measures.read_trec_qrels(qrels_file):
            qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
    elif task_id:
        table = load_task(task_id).table("qrels")
        table = table[table["aspect_id"].isna()] if "aspect_id" in table else table
        qrels = {}
        for row in table.itertuples():
            qrels.setdefault(str(row.query_id), {})[str(row.doc_id)] = int(row.relevance)
    else:
        raise usage_error("give --qrels FILE or --task", "--qrels")
    return trec_scores(read_runs(files), qrels, measure)


def align_human(human: dict[str, dict[str, list[float]]], labels: dict[str, ModelInfo]) -> Scores:
    """Human scores keyed by result label, several assessors of one answer averaged."""
    return align_systems({s: {q: sum(v) / len(v) for q, v in pq.items()} for s, pq in human.items()}, labels)


def summarise(scores: Scores) -> dict[str, tuple[float, float]]:
    """Each system's mean and standard error over its queries (systems with no score left out)."""
    from benchmark.metaeval import measures as meta_eval

    found = {system: meta_eval.mean_and_se(list(per_query.values())) for system, per_query in scores.items()}
    return {system: (m, se) for system, (m, se) in found.items() if m is not None and se is not None}


def compare(
    a: Scores, b: Scores, sa: dict[str, tuple[float, float]], sb: dict[str, tuple[float, float]]
) -> dict[str, meta_eval.Correlation]:
    """Query- and system-level correlation of two measures' scores (``sa``, ``sb``: :func:`summarise`)."""
    from benchmark.metaeval import measures as meta_eval

    systems = sorted(set(a) & set(b))
    pairs = [(a[s][q], b[s][q]) for s in systems for q in sorted(set(a[s]) & set(b[s]))]
    return {
        "query": meta_eval.correlate([p[0] for p in pairs], [p[1] for p in pairs]),
        "system": meta_eval.correlate(
            [sa[s][0] if s in sa else None for s in systems], [sb[s][0] if s in sb else None for s in systems]
        ),
    }
