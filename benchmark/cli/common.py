"""Options and steps shared by ``evaluate`` and ``score``.

Every registered metric family adds its own option group; ``--metrics`` picks families
(default: the task card's list).  Everything a run needs is checked — profile, families,
family settings, corpus — before any model loads, so a typo fails in a second, not after
a model download.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from benchmark import families
from benchmark.core import figures, paths
from benchmark.core.errors import IncompleteResults, InputError, Problem
from benchmark.core.paths import check_writable, check_writable_file
from benchmark.core.results import MAX_FAILURE_RATE, ModelInfo, TaskResult
from benchmark.families import REGISTRY, families_for
from benchmark.families.base import FamilySettings, MetricFamily, ScoringInputs
from benchmark.models.profiles import (
    DEFAULT_PROFILE,
    JUDGE_MODEL_ENV,
    JUDGE_URL_ENV,
    JudgeProfile,
    list_profiles,
    load_profile,
    with_judge,
)
from benchmark.tasks import Task

if TYPE_CHECKING:
    from benchmark.generation.rag import CitedSentence
    from benchmark.scoring.ray_shards import RayPool
    from benchmark.scoring.runner import RunOptions


def add_scoring_args(p: argparse.ArgumentParser, *, ray: bool = True, dry_run: bool = True) -> None:
    g = p.add_argument_group("scoring")
    g.add_argument(
        "--judge-profile",
        default=DEFAULT_PROFILE,
        help=f"judge profile name or YAML path (shipped: {', '.join(list_profiles())}; default {DEFAULT_PROFILE})",
    )
    g.add_argument(
        "--judge-url",
        help=f"serve the profile's LLM judge from this OpenAI-compatible endpoint, e.g. http://127.0.0.1:8001/v1 "
        f"(or ${JUDGE_URL_ENV}); several, comma-separated, are a fleet of one model (requests spread by least "
        "outstanding, retries move to another server); the profile stays the same judge",
    )
    g.add_argument(
        "--judge-model",
        help=f"the LLM judge's model name at that endpoint (or ${JUDGE_MODEL_ENV}); another model is another "
        "judge: results carry the profile version +llm:<model> and get boards of their own",
    )
    g.add_argument(
        "--metrics",
        help=f"comma-separated metric families (registered: {', '.join(REGISTRY)}; default: the task card's list)",
    )
    g.add_argument("--results-dir", default="results", help="where result files go (default: results/)")
    g.add_argument(
        "--corpus",
        help="your own knowledge corpus: .jsonl(.gz) or .parquet with doc_id and text (MS MARCO v2.1 "
        "segment files as they are), or irds:<ir_datasets id> for looking up cited documents",
    )
    g.add_argument(
        "--lucene-index", help="an existing Lucene index dir, or prebuilt:<name> (pyserini, needs internet)"
    )
    g.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals (default 0)")
    g.add_argument("--query-batch", type=int, default=4, help="queries scored together so models see batches")
    g.add_argument("--no-progress", action="store_true", help="hide progress bars")
    g.add_argument(
        "--max-failure-rate",
        type=float,
        default=MAX_FAILURE_RATE,
        metavar="SHARE",
        help="the share of queries, per score, on which the judge may go unreached (down, timed out) before "
        f"the result is incomplete: written, kept off boards, exit status 3, completed by re-running "
        f"(default {MAX_FAILURE_RATE})",
    )
    if dry_run:
        g.add_argument(
            "--dry-run",
            nargs="?",
            const=True,
            metavar="JSON",
            help="compute nothing: print, per family and stage, the LLM calls (prompt tokens by the judge's "
            "tokenizer, completion at most), entailment pairs and retrieval queries the run will make, how many "
            "are cached, and the money where the profile prices its LLM; with a path, also write the plan as JSON",
        )
    for fam in REGISTRY.values():
        fam.add_arguments(p.add_argument_group(f"{fam.title} ({fam.id})"))
    if not ray:
        return
    r = p.add_argument_group("sharded scoring on Ray (the `ray` extra)")
    r.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="score query batches on Ray workers: alone, a new local Ray instance; 'auto' or ray://host:10001 "
        "joins a running cluster. Same checkpoints and result files as one process",
    )
    r.add_argument(
        "--ray-workers", type=int, help="workers (default: as many as the cluster's CPUs/GPUs hold)"
    )
    r.add_argument("--ray-cpus-per-worker", type=float, default=1.0, help="CPUs per worker (default 1)")
    r.add_argument(
        "--ray-gpus-per-worker", type=float, default=0.0, help="GPUs per worker, e.g. 1 or 0.5 (default 0)"
    )


def scoring_inputs(args: argparse.Namespace, evidence: dict[str, list[str]] | None = None) -> ScoringInputs:
    return ScoringInputs(
        corpus=args.corpus,
        lucene_index=args.lucene_index,
        files={
            i.name: getattr(args, i.dest)
            for f in REGISTRY.values()
            for i in f.inputs
            if hasattr(args, i.dest)
        },
        evidence=evidence,
    )


#: what is scored: the task, answers by query id, the model, and (RAG) each answer's evidence ids
Job = tuple[Task, dict[str, str], ModelInfo, dict[str, list[str]] | None]


def requested_metrics(args: argparse.Namespace) -> list[str] | None:
    if args.metrics is None:
        return None
    ids = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if not ids:
        raise InputError(Problem("command line", "name at least one metric family", field="--metrics"))
    return ids


def scorable_queries(args: argparse.Namespace, task: Task) -> list[str]:
    """The queries the requested families can score on ``task`` with the given inputs."""
    return families.scorable_queries(task, scoring_inputs(args), requested_metrics(args))


def check_corpus(path: str) -> None:
    """Read ``--corpus`` whole (every bad row named) before anything is generated or loaded;
    retrieval then takes the documents from :func:`~benchmark.retrieval.load_corpus`'s cache."""
    from benchmark.retrieval import load_corpus

    try:
        load_corpus(path)
    except InputError as exc:
        raise InputError(
            [Problem(p.file, p.message, p.line, p.field or "--corpus") for p in exc.problems]
        ) from None
    except (OSError, ValueError) as exc:  # a parquet file that is not one, say
        raise InputError(Problem(path, f"cannot be read as a corpus ({exc})", field="--corpus")) from None


def check_outputs(args: argparse.Namespace, *, ray: bool = True) -> None:
    """What a scoring run writes or needs outside ``--results-dir``, checked before any
    planning, model load or generation: the ``--dry-run`` plan file, the groundcover home
    (model-call cache, indexes), and Ray where ``--ray`` asks for it."""
    if isinstance(getattr(args, "dry_run", None), str):
        check_writable_file(args.dry_run, "--dry-run")
    check_writable(paths.home(), "GROUNDCOVER_HOME")
    if ray and getattr(args, "ray", None) is not None:
        from benchmark.scoring.ray_shards import check_address

        check_address(None if args.ray == "local" else args.ray)


def judge_profile(args: argparse.Namespace) -> JudgeProfile:
    """The profile ``--judge-profile`` names, with ``--judge-url`` / ``--judge-model`` applied."""
    return with_judge(
        load_profile(args.judge_profile),
        model=getattr(args, "judge_model", None),
        url=getattr(args, "judge_url", None),
    )


def plan(
    args: argparse.Namespace, tasks: list[Task]
) -> tuple[JudgeProfile, dict[str, list[tuple[MetricFamily, FamilySettings]]]]:
    """Check everything a scoring run needs; nothing is loaded yet."""
    run_options(args)  # --query-batch, --max-failure-rate: refused here, before anything loads
    check_writable(args.results_dir, "--results-dir")
    check_outputs(args)
    if getattr(args, "corpus", None) and not args.corpus.startswith("irds:"):
        check_corpus(args.corpus)
    profile = judge_profile(args)
    requested, inputs = requested_metrics(args), scoring_inputs(args)
    chosen = {}
    for task in tasks:
        chosen[task.id] = []
        for fam in families_for(task, requested):
            # resolves the corpus and the family's files: fails early
            if fam.scorable_queries(task, inputs) == []:
                nothing_to_score(fam, task, explicit=bool(requested))
                continue
            chosen[task.id].append((fam, fam.settings_from_args(args)))
        if not chosen[task.id]:
            raise InputError(
                Problem(
                    f"tasks/{task.id}/task.yaml",
                    "none of the families its card lists can score a query with these inputs (see the "
                    "notes above)",
                    field="metrics",
                )
            )
    return profile, chosen


def nothing_to_score(family: MetricFamily, task: Task, *, explicit: bool) -> None:
    """A family with no scorable query on ``task`` (nuggets on a task that ships none, say):
    an error when ``--metrics`` asked for it; otherwise a note, and the card's other
    families are scored, so listing a family a user completes with a file is no trap."""
    needs = (
        "pass " + " or ".join(f"{i.flag} FILE" for i in family.inputs)
        if family.inputs
        else f"it needs the table(s) {list(family.required_tables)}"
    )
    message = f"{family.id} can score no query of task {task.id} with these inputs; {needs}"
    if explicit:
        raise InputError(Problem("--metrics", message))
    Console(stderr=True).print(f"[yellow]note:[/] {message}. Skipped; the card's other families are scored.")


def score_answers(
    args: argparse.Namespace,
    jobs: list[Job],
    *,
    show: bool = True,
    split: Sequence[dict[str, list[CitedSentence]] | None] | None = None,
) -> list[TaskResult]:
    """Score the (task, answers, model, evidence) jobs a command built, under the families
    and settings its flags chose, through :func:`benchmark.scoring.run.score_jobs`;
    ``split`` gives, per job, its answers' sentences as their input split them (TREC RAG runs)."""
    split = list(split) if split is not None else [None] * len(jobs)
    from benchmark.board.report import print_results
    from benchmark.judging.stack import JudgeStack
    from benchmark.scoring import run

    profile, chosen = plan(args, [job[0] for job in jobs])
    if getattr(args, "dry_run", None):
        dry_run(args, profile, [
            run.Job(task, answers, model, evidence, chosen[task.id], sentences=sentences)
            for (task, answers, model, evidence), sentences in zip(jobs, split, strict=True)
        ])  # fmt: skip
        return []
    judges = JudgeStack.load(profile, progress=not args.no_progress)
    pool = ray_pool(args, profile)
    console = Console(stderr=True)

    def written(family: MetricFamily, result: TaskResult, path: Path) -> None:
        plots = save_figures(family, result, path)
        console.print(
            f"wrote {path} (traces: {path.stem}.traces.jsonl{', plots: ' if plots else ''}"
            f"{', '.join(p.name for p in plots)})"
        )

    def skipped(family: MetricFamily, job: run.Job, reason: str) -> None:
        console.print(f"{family.title} · {job.task.id} · {job.model.label}: not applicable ({reason})")

    try:
        scored = run.score_jobs(
            [
                run.Job(task, answers, model, evidence, chosen[task.id], sentences=sentences)
                for (task, answers, model, evidence), sentences in zip(jobs, split, strict=True)
            ],
            judges,
            results_root=Path(args.results_dir),
            inputs=scoring_inputs(args),
            options=run_options(args),
            on_result=written,
            on_skip=skipped,
            pool=pool,
        )
    finally:
        if pool is not None:
            pool.close()
    results = [result for result, _ in scored]
    if show:
        print_results(results)
    incomplete = [(str(path), result.incomplete) for result, path in scored if result.incomplete]
    if incomplete:
        raise IncompleteResults(incomplete)
    return results


def dry_run(args: argparse.Namespace, profile: JudgeProfile, jobs: list[Any]) -> None:
    """``--dry-run``: the plan of what scoring ``jobs`` asks, printed (and written as JSON)."""
    import json

    from benchmark.scoring.dry_run import plan_jobs, planning_stack, print_plan

    found = plan_jobs(
        jobs,
        planning_stack(profile),
        results_root=Path(args.results_dir),
        inputs=scoring_inputs(args),
        options=run_options(args),
    )
    console = Console()
    print_plan(found, console if console.is_terminal else Console(width=200))
    if isinstance(args.dry_run, str):
        Path(args.dry_run).write_text(json.dumps(found.as_dict(), indent=2) + "\n")
        Console(stderr=True).print(f"wrote {args.dry_run}")


def ray_pool(args: argparse.Namespace, profile: JudgeProfile) -> RayPool | None:
    """The Ray workers ``--ray`` asks for (started on the first batch), or ``None``."""
    if getattr(args, "ray", None) is None:
        return None
    from benchmark.scoring.ray_shards import RayOptions, RayPool

    options = RayOptions(
        address=None if args.ray == "local" else args.ray,
        workers=args.ray_workers,
        cpus_per_worker=args.ray_cpus_per_worker,
        gpus_per_worker=args.ray_gpus_per_worker,
    )
    return RayPool(profile, options)


def run_options(args: argparse.Namespace) -> RunOptions:
    """The runner's options from the shared flags, with the command line recorded in results."""
    from benchmark.scoring.runner import RunOptions

    return RunOptions(
        seed=args.seed,
        query_batch=args.query_batch,
        progress=not args.no_progress,
        command=shlex.join(["benchmark", *sys.argv[1:]]),
        max_failure_rate=getattr(args, "max_failure_rate", MAX_FAILURE_RATE),
    )


def save_figures(family: MetricFamily, result: TaskResult, path: Path) -> list[Path]:
    """The family's figures for one result, as PNGs beside the result file."""
    import re

    out = []
    for title, fig in family.figures([result]).items():
        target = path.with_name(f"{path.stem}.{re.sub(r'[^a-z0-9]+', '_', title.lower()).strip('_')}.png")
        fig.savefig(target, dpi=120)
        figures.pyplot().close(fig)
        out.append(target)
    return out
