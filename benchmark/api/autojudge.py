"""TREC AutoJudge, both ways: :func:`autojudge_judge` scores an AutoJudge task's runs as
``benchmark score`` does and writes the leaderboard AutoJudge takes; :func:`autojudge_card` puts an
AutoJudge judge's leaderboard on a ranking card (docs/meta-evaluation.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.answers import read_answers
from benchmark.api.answers import answer_jobs
from benchmark.api.config import ScoringConfig
from benchmark.api.results import Results
from benchmark.api.run import FamilySettingsArg, score_all
from benchmark.core.errors import InputError, rel
from benchmark.metaeval import autojudge as aj
from benchmark.metaeval import rankings
from benchmark.scoring.options import RunOptions
from benchmark.tasks import Task

#: the file name stem groundcover's judgement files get unless told (AutoJudge's ``filebase``)
FILEBASE = "groundcover"


@dataclass
class AutoJudgeJudgement:
    """What :func:`autojudge_judge` wrote and measured."""

    leaderboard: Path
    measures_file: Path
    #: measure -> run -> topic -> score, as written
    boards: dict[str, dict[str, dict[str, float]]]
    #: the measure of each family's primary score
    primary: dict[str, str]
    results: Results
    task: Task
    notes: list[str] = field(default_factory=list)


def build_task(topics: str | os.PathLike[str], out_dir: Path, metrics: list[str]) -> Task:
    """The AutoJudge requests as a task folder listing ``metrics`` (the family's other inputs,
    nuggets say, come as its input files, as AutoJudge hands them to a judge beside the task)."""
    queries = [
        {"query_id": r.request_id, "text": r.title, "description": r.problem_statement or r.title}
        for r in aj.read_requests(topics)
    ]
    # the id carries the requests' checksum: result files and checkpoints are keyed by task
    # id, and two tracks' topics.jsonl must never resume from each other's
    digest = hashlib.sha256(Path(topics).read_bytes()).hexdigest()[:8]
    stem = re.sub(r"[^a-z0-9-]+", "-", Path(topics).stem.lower()).strip("-") or "topics"
    return Task.from_records(
        f"autojudge-{stem}-{digest}",
        queries=queries,
        out_dir=out_dir,
        metrics=metrics,
        name="AutoJudge requests",
        description=f"TREC AutoJudge requests read from {rel(Path(topics))}",
        source=f"file:{rel(Path(topics))}",
        license="unknown",
        force=True,
        script="benchmark autojudge judge",
    )


def autojudge_judge(
    topics: str | os.PathLike[str],
    runs: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    config: ScoringConfig,
    options: RunOptions | None = None,
    settings: FamilySettingsArg | None = None,
    fmt: str = "ir_measures",
    filebase: str = FILEBASE,
) -> AutoJudgeJudgement:
    """Judge an AutoJudge task with ``config``'s families and profile and write its leaderboard
    ``out/{filebase}.eval.txt`` (the task built from the requests goes to ``out/task``)."""
    metrics = list(config.metrics or ())
    if not metrics:
        raise InputError.at("--metrics", "name the families that judge the runs (e.g. the nugget family)")
    out_dir = Path(out)
    task = build_task(topics, out_dir / "task", metrics)
    sets = [found for path in aj.run_files(runs) for found in read_answers(path, task, trec_rag_run=True)]
    opts = options or RunOptions(results_dir=out_dir / "results")
    results = score_all(answer_jobs(sets), config, opts, settings=settings)
    # a result's model is the run's (``team/run``): its run id is what the leaderboard names
    run_of = {s.model.label: s.run.run_id for s in sets if s.run is not None}
    boards: dict[str, dict[str, dict[str, float]]] = {}
    primary: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    for r in results:
        primary[r.metric_family] = aj.measure_name(r.metric_family, r.primary)
        for q in r.per_query:
            for score, value in q.scores.items():
                if value is None or value != value:  # a failed query has no score, never a 0
                    continue
                m = aj.measure_name(r.metric_family, score)
                boards.setdefault(m, {}).setdefault(run_of[r.model.label], {})[q.query_id] = float(value)
                descriptions[m] = f"groundcover {r.metric_family} {score} ({r.profile_id})"
    path = out_dir / f"{filebase}.eval.txt"
    leaderboard, measures = aj.write_leaderboard(path, boards, fmt=fmt, descriptions=descriptions)
    notes = aj.check_runs_cover(boards, list(task.query_texts()), rel(path))
    return AutoJudgeJudgement(leaderboard, measures, boards, primary, results, task, notes)


@dataclass
class AutoJudgeCard:
    """A ranking card of an AutoJudge judge's leaderboard."""

    card: dict[str, Any]
    judge: rankings.Agreement
    baselines: list[rankings.Agreement]
    path: Path | None = None

    @property
    def verdict(self) -> str:
        return str(self.card["verdict"])


def autojudge_card(
    judge: str | os.PathLike[str],
    human: str | os.PathLike[str],
    *,
    judge_measure: str | None = None,
    human_measure: str | None = None,
    judge_format: str = "ir_measures",
    human_format: str = "ir_measures",
    runs: str | os.PathLike[str] | None = None,
    top_k: int = rankings.TOP_K,
    resamples: int = rankings.RESAMPLES,
    seed: int = 0,
    autojudge_python: str | None = None,
    out: str | os.PathLike[str] | None = None,
    command: str = "",
) -> AutoJudgeCard:
    """A ranking card for the AutoJudge leaderboard ``judge`` against ``human`` (means recomputed
    over the shared topics, as every ranking card does), with answer length as the baseline when
    the ``runs`` are given; written as YAML to ``out`` if given."""
    started = time.perf_counter()
    jm, jboard = aj.read_leaderboard(judge, judge_format).board(judge_measure, "--judge-measure")
    hm, hboard = aj.read_leaderboard(human, human_format).board(human_measure, "--human-measure")
    tau_ap = rankings.tau_ap_provider(autojudge_python)
    kw: dict[str, Any] = {"k": top_k, "resamples": resamples, "seed": seed, "tau_ap": tau_ap}
    measured = rankings.agreement(f"{Path(judge).name}: {jm}", jboard, hboard, **kw)
    baselines = []
    if runs is not None:
        baselines.append(
            rankings.agreement("answer length (words)", aj.word_board(run_answers(runs)), hboard, **kw)
        )
    set_info = {"id": "autojudge", "source": f"file:{rel(Path(judge))}", "human": f"file:{rel(Path(human))}"}
    card = rankings.card(
        set_info, measured, baselines, command, time.perf_counter() - started, resamples=resamples
    )
    card["human_leaderboard"] = f"{hm} from {rel(Path(human))} (AutoJudge leaderboard, {human_format})"
    path = rankings.write_yaml(card, out) if out else None
    return AutoJudgeCard(card, measured, baselines, path)


def run_answers(runs: str | os.PathLike[str]) -> dict[str, dict[str, str]]:
    """run id -> topic -> answer text of an AutoJudge runs folder (the TREC RAG run reader's rules)."""
    from benchmark.answers.trec_rag_run import read_trec_rag_run

    out: dict[str, dict[str, str]] = {}
    for path in aj.run_files(runs):
        for run in read_trec_rag_run(str(path), year=None, topics=None):
            out.setdefault(run.run_id, {}).update({t: topic.answer for t, topic in run.topics.items()})
    return out
