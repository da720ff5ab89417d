"""The family-agnostic scoring loop: which queries, checkpoints, item keys, aggregation.

Queries are scored a few at a time (models see batches) and each finished one is appended
to the traces file, which is the checkpoint: a killed run resumes where it stopped and,
model calls being cached by content hash, produces identical results.  Aggregation is a
macro-average per score with a seeded bootstrap interval; a failed query is counted, never
averaged in as zero.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from tqdm.auto import tqdm

from benchmark.core import stats
from benchmark.core.checkpoint import JsonlCheckpoint, exclusive
from benchmark.core.errors import IncompleteResults, InputError, rel
from benchmark.core.repeats import mean_ci_repeats, noise_share
from benchmark.core.results import (
    JudgeRepeats,
    ModelInfo,
    QueryScores,
    QuerySet,
    Score,
    Statistics,
    TaskInfo,
    TaskResult,
    bootstrap_score,
    now_iso,
    read_result,
    result_path,
    run_info,
    traces_path,
    write_result,
)
from benchmark.families.base import (
    FamilySettings,
    Item,
    MetricFamily,
    Prepared,
    QueryTrace,
    ScoringInputs,
    curves,
    prepare,
    queries_of,
    score_batch,
)
from benchmark.judging.stack import JudgeStack
from benchmark.models import example_copies
from benchmark.models.cache import asked_afresh, content_hash, judge_repeat
from benchmark.models.cards import load_card
from benchmark.models.structured import watch_unreachable
from benchmark.scoring.human_labels import correct_scores, read_human_labels, require_ppi
from benchmark.scoring.options import RunOptions
from benchmark.tasks import Task

log = logging.getLogger(__name__)


class BatchPool(Protocol):
    """Workers that score batches elsewhere (``--ray``: :class:`benchmark.scoring.ray_shards.RayPool`),
    typed here so that the runner does not import the module that imports it."""

    def score(
        self,
        key: str,
        family: MetricFamily,
        task: Task,
        inputs: ScoringInputs,
        settings: FamilySettings,
        batches: Sequence[list[tuple[str, str, str]]],
        *,
        stats: Any = None,
        repeats: int = 1,
        afresh: bool = False,
    ) -> Iterator[tuple[list[str], list[dict[str, Any]]]]: ...


def queries_to_score(task: Task, answered: Sequence[str], scorable: Sequence[str] | None) -> list[str]:
    """The answered queries that can be scored, in the task's (or ``scorable``'s, the family's
    list; ``None``: all) order.  An unknown query is an error; one outside ``scorable`` is left out."""
    all_ids = list(task.table("queries")["query_id"])
    unknown = sorted(set(answered) - set(all_ids))
    if unknown:
        raise InputError.at(
            f"answers for task {task.id}", f"unknown query id(s) {unknown[:10]}", field="query_id"
        )
    answered_set = set(answered)
    order = list(scorable) if scorable is not None else all_ids
    ids = [q for q in order if q in answered_set]
    left_out = len(answered_set) - len(ids)
    if left_out:
        log.warning("%s: %d answered queries cannot be scored here and are left out", task.id, left_out)
    if not ids:
        shown = ", ".join(list(scorable)[:20]) if scorable is not None else "all"
        why = (
            f"none of the {len(answered_set)} answered queries can be scored on this corpus; the scorable "
            f"queries are: {shown}. Answer those (`benchmark tasks export-lm-eval` exports only them by "
            "default), or pass --corpus / --lucene-index for the others"
        )
        raise InputError.at(f"answers for task {task.id}", why)
    return ids


def keys(
    family: MetricFamily,
    task: Task,
    answers: dict[str, str],
    qids: Sequence[str],
    judges: JudgeStack,
    prepared: Prepared,
    settings: FamilySettings,
) -> tuple[str, dict[str, str]]:
    """The run key — everything but the answer that decides a trace — and each query's item
    key, which a checkpointed trace must carry to be kept."""
    run_key = content_hash(
        family.id,
        judges.profile.resolved(),
        task.card.version,
        task.data_fingerprint,
        prepared.corpus_id,
        settings.model_dump(mode="json"),
        prepared.run_key,
    )
    return run_key, {q: content_hash(run_key, answers[q]) for q in qids}


def score_task(
    family: MetricFamily,
    task: Task,
    answers: dict[str, str],
    judges: JudgeStack,
    *,
    model: ModelInfo,
    results_root: Path,
    inputs: ScoringInputs | None = None,
    settings: FamilySettings | None = None,
    options: RunOptions | None = None,
    pool: BatchPool | None = None,
) -> tuple[TaskResult, Path]:
    """Score ``answers`` (query id -> answer text); write the result and traces files.  With a
    ``pool`` (``--ray``) its workers score the batches; the files are the same."""
    inputs = inputs or ScoringInputs()
    settings = settings or family.settings_model()
    opts = options or RunOptions()
    started, t0 = now_iso(), time.perf_counter()
    if opts.human_labels is not None:
        read_human_labels(opts.human_labels)  # a bad labels file fails before any model is asked
        require_ppi()
    qids = queries_to_score(task, list(answers), queries_of(family, task, inputs))
    out_file = result_path(results_root, model, judges.profile.id, task.id, family.id)
    with watch_unreachable() as unreachable:
        prepared = prepare(family, task, judges, inputs, settings)
    if unreachable:
        # what a family prepares is shared by every query (EXAM's gold articles, aspects):
        # prepared from a judge that was down, it would mar every score that follows
        why = f"the judge could not be reached while {family.title} was preparing ({unreachable[0]})"
        raise IncompleteResults([(rel(out_file), [why])], written=False)
    t_prepare = time.perf_counter() - t0

    refuse_to_overwrite(out_file, judges.profile.resolved(), settings)
    with exclusive(out_file, what="this result"):
        checkpoint = JsonlCheckpoint(traces_path(out_file), id_field="query_id")
        done = checkpoint.load()
        run_key, item_keys = keys(family, task, answers, qids, judges, prepared, settings)
        todo, retried = due_queries(qids, done, item_keys, opts)
        log.info(
            "%s %s: %d queries to score (%d already done, %d of them asked again: --retry-failed)",
            family.id,
            task.id,
            len(todo) + len(retried),
            len(qids) - len(todo),
            len(retried),
        )
        texts = task.query_texts()
        # one key per (job, family): a worker prepares again for the next job, whose inputs
        # (the evidence a RAG answer was given) differ though the run key does not
        job_key = content_hash(run_key, str(out_file))

        def scored(queries: list[str], afresh: bool) -> Iterator[tuple[list[str], list[dict[str, Any]]]]:
            if not queries:
                return iter(())
            items = item_batches(queries, texts, answers, opts.query_batch)
            if pool is None:  # each batch here, in order, as one score_batch call
                return (
                    (
                        [q for q, _, _ in b],
                        score_repeats(family, prepared, settings, b, opts.judge_repeats, afresh),
                    )
                    for b in items
                )
            return pool.score(
                job_key,
                family,
                task,
                inputs,
                settings,
                items,
                stats=judges.cache.stats,
                repeats=opts.judge_repeats,
                afresh=afresh,
            )

        bar = tqdm(
            total=len(qids),
            initial=len(qids) - len(todo) - len(retried),
            desc=f"{family.title} {task.id}",
            unit="query",
            disable=not opts.progress,
            file=sys.stderr,
        )
        # each batch's traces checkpointed as soon as it comes back (in process or from a worker)
        for batch, rows in itertools.chain(scored(todo, False), scored(retried, True)):
            for q, row in zip(batch, rows, strict=True):
                row["item_key"] = item_keys[q]
                checkpoint.append(row)
                done[q] = row
            bar.update(len(batch))
        bar.close()
        t_scored = time.perf_counter()
        ordered = [family.trace_model.model_validate(done[q]) for q in qids]
        checkpoint.rewrite([done[q] for q in qids])
        result = aggregate(
            family,
            task,
            ordered,
            model,
            judges.profile.resolved(),
            prepared.corpus_id,
            settings,
            opts,
            prepared.notes,
        )
        result.run = run_info(
            seed=opts.seed,
            started=started,
            durations={
                "prepare": round(t_prepare, 3),
                "score": round(t_scored - t0 - t_prepare, 3),
                "aggregate": round(time.perf_counter() - t_scored, 3),
                "total": round(time.perf_counter() - t0, 3),
            },
            cache=judges.cache.stats.as_dict(),
            command=opts.command,
            max_failure_rate=opts.max_failure_rate,
        )
        write_result(result, out_file)
    return result, out_file


def due_queries(
    qids: Sequence[str], done: dict[str, Any], item_keys: dict[str, str], opts: RunOptions
) -> tuple[list[str], list[str]]:
    """What a run scores (and a dry run plans): the queries not checkpointed under their item
    key, whose judge was not reached, or judged another number of times than ``--judge-repeats``
    (the repeats already asked come back from the cache); and, with ``--retry-failed``, the
    checkpointed ones a judge failed on, to be asked afresh (their cached replies are the failures)."""
    todo = [
        q
        for q in qids
        if done.get(q, {}).get("item_key") != item_keys[q]
        or done[q].get("unreachable")
        or len(done[q].get("repeat_scores") or ()) != opts.judge_repeats - 1
    ]
    pending = set(todo)
    retried = [q for q in qids if q not in pending and done[q].get("failures")] if opts.retry_failed else []
    return todo, retried


def item_batches(
    queries: Sequence[str], texts: dict[str, str], answers: dict[str, str], size: int
) -> list[list[Item]]:
    """The ``--query-batch`` slices of ``queries`` as items, in order."""
    return [[(q, texts[q], answers[q]) for q in queries[i : i + size]] for i in range(0, len(queries), size)]


def score_items(
    family: MetricFamily, prepared: Any, settings: FamilySettings, items: list[Item]
) -> list[dict[str, Any]]:
    """One batch as one ``score_batch`` call (in this process or on a Ray worker), each trace
    marked ``unreachable`` when it has failures and the judge gave no reply during the batch."""
    with watch_unreachable() as unreachable:
        traces = score_batch(family, prepared, items)
    rows = [t.model_dump(mode="json") for t in traces]
    for row in rows:
        row["unreachable"] = bool(unreachable) and bool(row.get("failures"))
    return rows


def stats_delta(
    before: dict[str, list[float]], after: dict[str, list[float]]
) -> dict[str, tuple[int, int, float]]:
    """Per "stage/namespace", the (hits, misses, seconds) added to a cache's counts since ``before``."""
    out = {}
    for key, (hits, misses, seconds) in after.items():
        old = before.get(key, [0, 0, 0.0])
        if (hits, misses, seconds) != tuple(old):
            out[key] = (int(hits - old[0]), int(misses - old[1]), seconds - old[2])
    return out


def score_repeats(
    family: MetricFamily,
    prepared: Any,
    settings: FamilySettings,
    items: list[Item],
    repeats: int,
    afresh: bool = False,
) -> list[dict[str, Any]]:
    """One batch judged ``repeats`` times (``--judge-repeats``): repeat 0 is the trace;
    repeats 1 .. N-1 ask the judge again under their own seed and cache entries
    (:func:`benchmark.models.cache.judge_repeat`) and leave their scores in ``repeat_scores``.
    ``afresh`` (``--retry-failed``) bypasses the cached replies."""
    with asked_afresh() if afresh else contextlib.nullcontext():
        rows = score_items(family, prepared, settings, items)
        for r in range(1, repeats):
            with judge_repeat(r):
                again = score_items(family, prepared, settings, items)
            for row, other in zip(rows, again, strict=True):
                row.setdefault("repeat_scores", []).append(other["scores"])
                row["unreachable"] = row["unreachable"] or other["unreachable"]
    return rows


def refuse_to_overwrite(path: Path, profile: dict[str, Any], settings: FamilySettings) -> None:
    """A result is never replaced by one computed under another profile or settings with the
    same name (an edited profile that kept its version, another β)."""
    if not path.exists():
        return
    try:
        old = read_result(path)
    except (ValueError, OSError):
        return  # unreadable: nothing trustworthy to protect; it is rewritten
    if old.judge_profile != profile or old.settings != settings.model_dump(mode="json"):
        what = "judge profile" if old.judge_profile != profile else "settings"
        why = (
            f"holds a result computed with another {what} under the same name; pass another --results-dir "
            "(or bump the profile's version), or delete the file to replace it"
        )
        raise InputError.at(rel(path), why)


def card_verdicts(family: MetricFamily, profile_id: str, primary: str) -> dict[str, str]:
    """What the profile's judge card said of the judges the ranked score depends on."""
    card = load_card(profile_id)
    roles = family.judged_by.get(primary, ())
    if card is None or not roles:
        return {"card": "none"} if roles else {}
    return {"card": card.created, **{r: rc.verdict for r in roles if (rc := card.role(r)) is not None}}


def aggregate(
    family: MetricFamily,
    task: Task,
    traces: Sequence[QueryTrace],
    model: ModelInfo,
    profile: dict[str, Any],
    corpus_id: str | None,
    settings: FamilySettings,
    opts: RunOptions,
    notes: list[str],
) -> TaskResult:
    """One :class:`TaskResult` from the traces, the same way for every family (no model is
    called: a published result can be recomputed from its traces)."""
    per_query = [
        QueryScores(
            query_id=t.query_id,
            scores=repeat_means(repeats) if (repeats := repeat_values(t)) else t.scores,
            counts=t.counts,
            failures=t.failures,
            failed=t.failed,
            unreachable=t.unreachable,
            repeats=repeats,
        )
        for t in traces
    ]
    scores = score_summaries(family, per_query, opts)
    noisy = {k: s.judge_repeats for k, s in scores.items() if s.judge_repeats is not None}
    if noisy:
        shares = ", ".join(
            f"{family.label(k)} {'n/a' if j.noise_share is None else f'{j.noise_share:.0%}'}"
            for k, j in noisy.items()
        )
        n = max(j.repeats for j in noisy.values())
        notes = [
            *notes,
            f"judge repeats: each judgement asked {n} times; intervals resample queries, then repeats; the "
            f"judge's noise makes this share of each mean's variance: {shares}",
        ]
    if opts.human_labels is not None:
        # after the raw summaries, never instead of them: the corrected figure stands beside
        notes = [
            *notes,
            *correct_scores(family, task.id, traces, read_human_labels(opts.human_labels), scores),
        ]
    failed = [f for pq in per_query for f in pq.failures]
    failures = Counter(f.split(":", 1)[0] for f in failed)
    copies = Counter(f.split(":", 1)[0] for f in failed if example_copies.COPY_ERROR in f)
    counts: Counter[str] = Counter()
    for pq in per_query:
        counts.update({k: int(v) for k, v in pq.counts.items()})
    withhold_scores(family, scores, per_query, opts.max_failure_rate)
    primary = family.primary_for(task.card.main_score, scores)
    return TaskResult(
        model=model,
        task=TaskInfo(
            id=task.id,
            version=task.card.version,
            data=task.data_fingerprint,
            corpus=corpus_id,
            queries=QuerySet.of(t.query_id for t in traces),
        ),
        judge_profile=profile,
        metric_family=family.id,
        primary=primary,
        settings=settings.model_dump(mode="json"),
        board_settings=settings.board_key(),
        statistics=Statistics(
            ci_level=stats.CI_LEVEL,
            bootstrap_resamples=opts.bootstrap_resamples,
            seed=opts.seed,
            bca_min_n=stats.BCA_MIN_N,
        ),
        scores=scores,
        curves=curves(family, traces, settings),
        per_query=per_query,
        failures=dict(failures),
        example_copies=dict(copies),
        judge_card=card_verdicts(family, f"{profile.get('name')}@{profile.get('version')}", primary),
        failed_queries=[pq.query_id for pq in per_query if pq.failed],
        counts=dict(counts),
        notes=notes,
        incomplete=incomplete_reasons(family, primary, scores, per_query, opts.max_failure_rate),
        run=run_info(seed=opts.seed, started=now_iso(), durations={}, cache={}, command=None),
    )


def repeat_values(trace: QueryTrace) -> dict[str, list[float | None]] | None:
    """Per score, its value in each repeat of the judge (repeat 0 first); ``None`` without repeats."""
    if not trace.repeat_scores:
        return None
    keys = sorted({k for s in (trace.scores, *trace.repeat_scores) for k in s})
    return {k: [s.get(k) for s in (trace.scores, *trace.repeat_scores)] for k in keys}


def repeat_means(repeats: dict[str, list[float | None]]) -> dict[str, float | None]:
    """A query's score over its repeats: the mean of the repeats that have one."""
    out: dict[str, float | None] = {}
    for k, values in repeats.items():
        known = [v for v in values if v is not None]
        out[k] = sum(known) / len(known) if known else None
    return out


def score_summaries(
    family: MetricFamily, per_query: Sequence[QueryScores], opts: RunOptions
) -> dict[str, Score]:
    """Each score's mean and interval over the queries that have it, with the queries its
    judges failed on counted beside it (``failed``; ``unreachable`` of those when no reply
    came at all).  A query with failures and no value is undetermined; one with no failure
    and no value is one the score does not apply to (no vital nugget).  A score no query
    has is left out: it cannot be told from one that does not apply."""
    keys = [c.key for c in family.columns]
    keys += sorted({k for pq in per_query for k in pq.scores} - set(keys))
    out = {}
    for k in keys:
        values = [pq.scores.get(k) for pq in per_query]
        if all(v is None for v in values):
            continue
        undetermined = [pq for pq in per_query if pq.failures and pq.scores.get(k) is None]
        repeats = {pq.query_id: pq.repeats[k] for pq in per_query if pq.repeats and k in pq.repeats}
        if repeats:
            # the interval holds the judge's own noise: queries resampled, then their repeats
            ci = mean_ci_repeats(repeats, seed=opts.seed, n_resamples=opts.bootstrap_resamples)
            score = Score(value=ci.value, ci_low=ci.low, ci_high=ci.high, n=ci.n, ci_method=ci.method)
            score.judge_repeats = JudgeRepeats(
                repeats=max(len(v) for v in repeats.values()), noise_share=noise_share(repeats)
            )
        else:
            score = bootstrap_score(values, seed=opts.seed, n_resamples=opts.bootstrap_resamples)
        score.failed = len(undetermined)
        score.unreachable = sum(pq.unreachable for pq in undetermined)
        out[k] = score
    return out


def _causes(queries: Sequence[QueryScores]) -> str:
    """What the judge did on the failed ``queries``, in words: unreached, or replies that
    could not be used (those that copied the prompt's worked example counted apart)."""
    unreached = sum(pq.unreachable for pq in queries)
    copies = sum(
        1 for pq in queries if not pq.unreachable and any(example_copies.COPY_ERROR in f for f in pq.failures)
    )
    unusable = len(queries) - unreached - copies
    parts = [
        f"{unreached} unreached" if unreached else "",
        f"{unusable} with replies that could not be used" if unusable else "",
        f"{copies} with replies that copied the prompt's example" if copies else "",
    ]
    return ", ".join(p for p in parts if p)


def withhold_scores(
    family: MetricFamily, scores: dict[str, Score], per_query: Sequence[QueryScores], max_rate: float
) -> None:
    """The one failure policy, per score: a score whose judge failed (unreached, or an unusable
    reply) on more than ``max_rate`` of the queries is withheld (``Score.incomplete`` says why):
    its mean over the queries left would favour the entry whose judge failed on the hard ones."""
    total = len(per_query) or 1
    for k, s in scores.items():
        if s.failed / total > max_rate:
            failed = [pq for pq in per_query if pq.failures and pq.scores.get(k) is None]
            s.incomplete = (
                f"{family.label(k)}: the judge failed on {s.failed} of {total} queries ({_causes(failed)}; "
                f"{s.failed / total:.0%} > --max-failure-rate {max_rate:.0%})"
            )


def incomplete_reasons(
    family: MetricFamily,
    primary: str,
    scores: dict[str, Score],
    per_query: Sequence[QueryScores],
    max_rate: float,
) -> list[str]:
    """Why a result is not final (written, kept off every board, exit status 3): its ranked
    score is withheld, or has no value while its judge failed on more than ``max_rate`` of
    the queries, or that many queries have no score at all."""
    total = len(per_query) or 1
    failing = [pq for pq in per_query if pq.failures]
    lost = [pq for pq in per_query if pq.failed]
    ranked = scores.get(primary)
    out = []
    if len(lost) / total > max_rate:
        out.append(
            f"{len(lost)} of {total} queries have no score: the judge failed on them ({_causes(lost)})"
        )
    if ranked is not None and ranked.incomplete:
        out.append(f"{ranked.incomplete}; it is the ranked score")
    elif ranked is None and len(failing) / total > max_rate and len(failing) > len(lost):
        out.append(
            f"{family.label(primary)} (the ranked score) has no value on any query, and the judge failed on "
            f"{len(failing)} of {total} ({_causes(failing)})"
        )
    return out
