"""``benchmark meta-eval``: a metric against human judgements, or against another metric."""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark import meta_eval
from benchmark.cli import add_command
from benchmark.errors import InputError, Problem, rel
from benchmark.families import REGISTRY
from benchmark.leaderboard import Entry, load_entries
from benchmark.untrusted import load_json

Scores = dict[str, dict[str, float | None]]  # system -> query id -> score


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "meta-eval",
        help="correlate a metric with human judgements, or two metrics' leaderboards",
        description=(
            "Query-level and system-level Pearson, Spearman and Kendall correlation (scipy, with "
            "p-values) between a metric's per-query scores and human scores, and the leaderboard rank "
            "correlation of the two, with systems within a standard error tied and ties broken at random "
            "over 10 seeded repetitions (as in the EXAM paper). --human is CSV (header) or JSONL with "
            "system, query_id, score per row; systems are result model labels or model ids. "
            "--against compares two metrics of the same results instead."
        ),
        examples=[
            "benchmark meta-eval --metric icat:icat_m --human my_judgements.csv",
            "benchmark meta-eval --metric icat:icat_m --against icat:s_fact",
            "benchmark meta-eval --metric decompscore:decompscore --against decompscore:decompscore_nli",
        ],
    )
    p.add_argument("--metric", required=True, help="family:score, e.g. icat:icat_m")
    p.add_argument("--human", help="human judgements (CSV or JSONL: system, query_id, score)")
    p.add_argument("--against", help="another family:score of the same results")
    p.add_argument("--results-dir", default="leaderboard/results", help="default: the published results")
    p.add_argument("--task", help="only results on this task id")
    p.add_argument("--judge-profile", help="only results of this judge profile (name@version)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random tie-breaking")
    p.set_defaults(func=run)


def parse_measure(text: str, flag: str) -> tuple[str, str]:
    family, _, key = text.partition(":")
    if family not in REGISTRY or not key or REGISTRY[family].column(key) is None:
        known = ", ".join(f"{f}:{c.key}" for f, fam in REGISTRY.items() for c in fam.columns)
        raise InputError(
            Problem("command line", f"{text!r} is not a family:score; known: {known}", field=flag)
        )
    return family, key


def metric_scores(entries: list[Entry], family: str, key: str) -> tuple[Scores, dict[str, str]]:
    """Per-query scores of ``key`` per system label, and each system's model id."""
    scores: Scores = {}
    ids: dict[str, str] = {}
    for e in entries:
        if e.result.metric_family != family:
            continue
        scores[e.model_label] = {q.query_id: q.scores.get(key) for q in e.result.per_query}
        ids[e.model_label] = e.result.model.id
    return scores, ids


def read_human(path: Path) -> dict[str, dict[str, list[float]]]:
    """system -> query id -> the scores given (several assessors kept, averaged later)."""
    if not path.is_file():
        raise InputError(Problem(rel(path), "no such file", field="--human"))
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append((n, load_json(line)))
                except ValueError as exc:
                    raise InputError(Problem(rel(path), f"not JSON: {exc}", line=n)) from exc
    else:
        rows = list(enumerate(csv.DictReader(io.StringIO(text)), start=2))
    out: dict[str, dict[str, list[float]]] = {}
    problems = []
    for n, row in rows:
        if not isinstance(row, dict):
            problems.append(Problem(rel(path), "each row must be an object", line=n))
            continue
        missing = [f for f in ("system", "query_id", "score") if row.get(f) in (None, "")]
        if missing:
            problems.append(Problem(rel(path), "missing", line=n, field=missing[0]))
            continue
        try:
            score = float(row["score"])
        except (TypeError, ValueError):
            problems.append(Problem(rel(path), f"not a number: {row['score']!r}", line=n, field="score"))
            continue
        out.setdefault(str(row["system"]), {}).setdefault(str(row["query_id"]), []).append(score)
    if problems:
        raise InputError(problems)
    return out


def _align(human: dict[str, dict[str, list[float]]], labels: dict[str, str]) -> Scores:
    """Human scores keyed by result label (a human row may name the label or the model id)."""
    by_id = {mid: label for label, mid in labels.items()}
    out: Scores = {}
    for system, per_query in human.items():
        label = system if system in labels else by_id.get(system)
        if label is not None:
            out[label] = {q: sum(v) / len(v) for q, v in per_query.items()}
    return out


def _table(title: str, rows: dict[str, meta_eval.Correlation]) -> Table:
    table = Table(title=Text(title))
    for col in ("level", "n", "Pearson r", "p", "Spearman ρ", "p", "Kendall τ", "p"):
        table.add_column(col, justify="left" if col == "level" else "right")
    fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    for level, c in rows.items():
        table.add_row(
            level,
            str(c.n),
            *(fmt(v) for v in (c.pearson, c.pearson_p, c.spearman, c.spearman_p, c.kendall, c.kendall_p)),
        )
    return table


def compare(a: Scores, b: Scores) -> dict[str, meta_eval.Correlation]:
    systems = sorted(set(a) & set(b))
    pairs = [(a[s][q], b[s][q]) for s in systems for q in sorted(set(a[s]) & set(b[s]))]
    means_a = [meta_eval.mean_and_se(list(a[s].values()))[0] for s in systems]
    means_b = [meta_eval.mean_and_se(list(b[s].values()))[0] for s in systems]
    return {
        "query": meta_eval.correlate([p[0] for p in pairs], [p[1] for p in pairs]),
        "system": meta_eval.correlate(means_a, means_b),
    }


def run(args: argparse.Namespace) -> int:
    family, key = parse_measure(args.metric, "--metric")
    if bool(args.human) == bool(args.against):
        raise InputError(
            Problem("command line", "give --human FILE or --against family:score", field="--human")
        )
    entries, _ = load_entries(args.results_dir)
    entries = [
        e
        for e in entries
        if (args.task is None or e.result.task.id == args.task)
        and (args.judge_profile is None or e.result.profile_id == args.judge_profile)
    ]
    boards = {e.board_id for e in entries if e.result.metric_family == family}
    if len(boards) > 1:
        raise InputError(
            Problem(
                args.results_dir,
                f"{len(boards)} boards hold {family} results: pick one with --task and --judge-profile",
            )
        )
    a, labels = metric_scores(entries, family, key)
    if args.human:
        b, other = _align(read_human(Path(args.human)), labels), f"human ({Path(args.human).name})"
    else:
        fam_b, key_b = parse_measure(args.against, "--against")
        b, other = metric_scores(entries, fam_b, key_b)[0], args.against
    if not set(a) & set(b):
        raise InputError(Problem("command line", f"no system has both {args.metric} and {other}"))
    console = Console()
    console.print(_table(f"{args.metric} vs {other}", compare(a, b)))
    summary = {s: meta_eval.mean_and_se(list(v.values())) for s, v in a.items()}
    summary_b = {s: meta_eval.mean_and_se(list(v.values())) for s, v in b.items()}
    agree = meta_eval.rank_correlation(
        {s: (m, e) for s, (m, e) in summary.items() if m is not None},
        {s: (m, e) for s, (m, e) in summary_b.items() if m is not None},
        seed=args.seed,
    )
    if agree.kendall_mean is None:
        console.print("leaderboard rank correlation: fewer than 2 common systems")
    else:
        console.print(
            f"leaderboard rank correlation over {agree.systems} systems (ties within a standard error, broken "
            f"at random, {agree.repetitions} repetitions, seed {agree.seed}): Kendall τ {agree.kendall_mean:.3f} "
            f"[{agree.kendall_min:.3f}, {agree.kendall_max:.3f}], Spearman ρ {agree.spearman_mean:.3f}"
        )
    return 0
