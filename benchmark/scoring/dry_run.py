"""Know the cost before the run: ``benchmark score|evaluate … --dry-run``.

A dry run is the real run with nothing computed: the same runner picks the same queries,
the same families build the same requests in the same batches, and the content-hash cache's
:class:`Planner` answers what it cannot with placeholders instead of calling a model.  No
weights load (the LLM's tokenizer does, to count prompt tokens) and no index opens.  Until a
stage has seen a placeholder its counts are *exact*; after one they are an *estimate* (an
uncached search returns ``k`` distinct passages, an uncached entailment check supports its
claim, an uncached embedding is a neutral vector, what depends on an uncached LLM reply is
not counted).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmark.core.checkpoint import JsonlCheckpoint
from benchmark.core.results import result_path, traces_path
from benchmark.families.base import ScoringInputs, prepare, queries_of, score_batch
from benchmark.judging.stack import JudgeStack
from benchmark.models import local_models
from benchmark.models.cache import asked_afresh, current_stage, judge_repeat
from benchmark.models.llm import NAMESPACE as LLM_NAMESPACE
from benchmark.models.llm import PENDING_REPLY
from benchmark.models.profiles import JudgeProfile, Price
from benchmark.retrieval import CorpusRef
from benchmark.retrieval.cached import (
    CANDIDATES,
    CachedRetriever,
    PlannedRetriever,
    placeholder_documents,
    placeholder_hits,
)
from benchmark.retrieval.cached import NAMESPACE as RETRIEVE
from benchmark.scoring.run import Job, applicable
from benchmark.scoring.runner import (
    RunOptions,
    due_queries,
    item_batches,
    keys,
    queries_to_score,
    stats_delta,
)

log = logging.getLogger(__name__)

KINDS = {
    LLM_NAMESPACE: "LLM calls",
    "entail": "entailment pairs",
    "embed": "embeddings",
    RETRIEVE: "retrieval queries",
    CANDIDATES: "candidate searches",
}
#: characters per token where the judge's tokenizer is not local (an estimate, marked as one)
CHARS_PER_TOKEN = 4


@dataclass
class StageRow:
    """What one stage of one family asks one kind of model, for one scoring job."""

    task: str
    model: str
    family: str
    stage: str
    namespace: str
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0  # at most: max_new_tokens per uncached request
    retries: int = 0  # at most this many more requests for replies that need repair
    pending: int = 0  # uncached LLM replies whose later stages are not counted
    exact: bool = True
    tokens_counted: bool = True  # False: estimated from characters (no local tokenizer)
    cost: float | None = None

    @property
    def kind(self) -> str:
        """What is counted; a row with no namespace is a stage the plan never reached."""
        return KINDS.get(self.namespace, self.namespace) if self.namespace else "not reached"

    @property
    def to_compute(self) -> int:
        return self.requests - self.cached


@dataclass
class DryRun:
    rows: list[StageRow] = field(default_factory=list)
    #: (task, model, family) -> how many queries a run will score, and how many are checkpointed
    queries: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    judge: str = ""
    priced: bool = False

    def total(self, namespace: str) -> tuple[int, int]:
        rows = [r for r in self.rows if r.namespace == namespace]
        return sum(r.requests for r in rows), sum(r.to_compute for r in rows)

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "queries": [
                {"task": t, "model": m, "family": f, "to_score": n, "checkpointed": done}
                for (t, m, f), (n, done) in self.queries.items()
            ],
            "stages": [{**dataclasses.asdict(r), "kind": r.kind} for r in self.rows],
            "skipped": self.skipped,
            "cost_usd": sum(r.cost for r in self.rows if r.cost is not None) if self.priced else None,
        }


class TokenCounter:
    """Prompt tokens of a chat request under the judge's own tokenizer (its chat template
    applied) where it is local, else estimated from characters."""

    def __init__(self, llm: Any) -> None:
        self.tokenizer: Any = None
        getter = getattr(llm, "tokenizer", None)
        spec = getattr(llm, "spec", None)
        try:
            if callable(getter):
                self.tokenizer = getter()
            elif spec is not None:  # a served judge: its tokenizer where a local copy of the model has one
                from transformers import AutoTokenizer

                path, _ = local_models.resolve(spec.model)
                self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        except Exception as exc:  # no local tokenizer: the count is an estimate, and says so
            log.info("no local tokenizer for the judge (%s); prompt tokens are estimated", exc)
        self.exact = self.tokenizer is not None

    def __call__(self, messages: list[dict[str, str]]) -> int:
        if self.tokenizer is None:
            return math.ceil(sum(len(m["content"]) for m in messages) / CHARS_PER_TOKEN)
        if getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            return len(ids["input_ids"] if hasattr(ids, "keys") else ids)  # a BatchEncoding in newer versions
        text = "\n".join(f"{m['role']}: {m['content']}" for m in messages)
        return len(self.tokenizer(text)["input_ids"])


class Planner:
    """Stands in for every model in a dry run (see the module docstring for the placeholders)."""

    def __init__(self, judges: JudgeStack, count_tokens: TokenCounter) -> None:
        self.judges = judges
        self.count_tokens = count_tokens
        self.tokens: dict[str, list[int]] = {}  # "stage/namespace" -> [prompt, completion, pending]
        self.estimated: set[str] = set()
        self.order: dict[str, None] = {}  # "stage/namespace" in the order the pipeline first asked
        self.guessed: set[str] = set()  # stages answered by a placeholder (their later stages may not run)
        self._after_placeholder = False
        self._dimension: int | None = None
        self._planned: dict[str, Any] = {}  # cache key -> the placeholder it was answered with
        self._recalled = False

    def start_family(self) -> None:
        """A new (job, family): its rows start from nothing (what it planned stays remembered)."""
        self.tokens.clear()
        self.estimated.clear()
        self.order.clear()
        self.guessed.clear()

    def new_batch(self) -> None:
        """Each batch of queries starts from what the cache knows again."""
        self._after_placeholder = False

    def seen(self, namespace: str) -> None:
        key = f"{current_stage()}/{namespace}"
        self.order.setdefault(key)
        if self._after_placeholder:
            self.estimated.add(key)
        if self._recalled:
            self._recalled = False
            self._guessed_here()

    def recall(self, keys: list[str]) -> dict[str, Any]:
        """Requests this plan already answered with a placeholder: the run will have cached them."""
        found = {k: self._planned[k] for k in keys if k in self._planned}
        self._recalled = bool(found)  # placeholders all the same: what follows is an estimate
        return found

    def missed(self, namespace: str, model: str, requests: dict[str, Any]) -> dict[str, Any]:
        """A placeholder for each uncached request (by cache key), counted and remembered."""
        values = self._placeholders(namespace, model, list(requests.values()))
        self._planned.update(zip(requests, values, strict=True))
        return dict(zip(requests, values, strict=True))

    def _guessed_here(self) -> None:
        self._after_placeholder = True
        self.guessed.add(current_stage())

    def _placeholders(self, namespace: str, model: str, payloads: list[Any]) -> list[Any]:
        key = f"{current_stage()}/{namespace}"
        self._guessed_here()
        if namespace == LLM_NAMESPACE:
            entry = self.tokens.setdefault(key, [0, 0, 0])
            for p in payloads:
                entry[0] += self.count_tokens(p["messages"])
                entry[1] += int(p.get("max_new_tokens") or 0)
                entry[2] += 1
            return [PENDING_REPLY] * len(payloads)
        if namespace == "entail":
            return [1.0] * len(payloads)
        if namespace == RETRIEVE:
            return [placeholder_hits(p) for p in payloads]
        if namespace == CANDIDATES:
            return [placeholder_documents(p) for p in payloads]
        if namespace == "embed":
            unit = np.zeros(self.dimension(model), dtype=np.float32)
            unit[0] = 1.0
            return [unit] * len(payloads)
        raise RuntimeError(f"a dry run cannot stand in for {namespace!r} calls")

    def dimension(self, model: str) -> int:
        """The embedder's vector size: from a cached vector, else the model's config file."""
        if self._dimension is None:
            cached = self.judges.cache.any_value("embed", model)
            if cached is not None:
                self._dimension = int(np.asarray(cached).shape[-1])
            else:
                path, _ = local_models.resolve(self.judges.profile.embedder.model)
                try:
                    config = json.loads((Path(path) / "config.json").read_text())
                    self._dimension = int(config["hidden_size"])
                except (OSError, ValueError, KeyError):
                    self._dimension = 1
        return self._dimension


def planning_stack(profile: JudgeProfile) -> JudgeStack:
    """A judge stack for a dry run: the profile's models unloaded, retrievers with no index."""
    from benchmark.retrieval.retrievers import planned_identity

    judges = JudgeStack.load(profile, progress=False, preflight=False)  # plans only: no endpoint needed

    def factory(corpus: CorpusRef, task: Any, spec: Any) -> Any:
        return CachedRetriever(
            PlannedRetriever(planned_identity(corpus, task, spec, profile.embedder, judges.cache)),
            judges.cache,
        )

    judges.retriever_factory = factory
    return judges


def plan_jobs(
    jobs: Sequence[Job],
    judges: JudgeStack,
    *,
    results_root: Path,
    inputs: ScoringInputs | None = None,
    options: RunOptions | None = None,
) -> DryRun:
    """What scoring ``jobs`` will ask of every model, stage by stage (nothing is computed)."""
    opts = options or RunOptions()
    planner = Planner(judges, TokenCounter(judges.llm))
    price = judges.profile.llm.price
    plan = DryRun(judge=judges.profile.id, priced=price is not None)
    judges.cache.planner = planner
    try:
        for job, job_inputs, family, settings, reason in applicable(jobs, inputs):
            if reason is not None:
                plan.skipped.append(f"{family.title} · {job.task.id} · {job.model.label}: {reason}")
                continue
            qids = queries_to_score(job.task, list(job.answers), queries_of(family, job.task, job_inputs))
            prepared = prepare(family, job.task, judges, job_inputs, settings)
            out_file = result_path(results_root, job.model, judges.profile.id, job.task.id, family.id)
            done = JsonlCheckpoint(traces_path(out_file), id_field="query_id").load(repair=False)
            _, item_keys = keys(family, job.task, job.answers, qids, judges, prepared, settings)
            todo, retried = due_queries(qids, done, item_keys, opts)
            plan.queries[(job.task.id, job.model.label, family.id)] = (
                len(todo) + len(retried),
                len(qids) - len(todo) - len(retried),
            )
            before = {k: list(v) for k, v in judges.cache.stats.by_stage.items()}
            planner.start_family()
            texts = job.task.query_texts()
            for queries, afresh in ((todo, False), (retried, True)):
                for items in item_batches(queries, texts, job.answers, opts.query_batch):
                    # as score_repeats asks: each repeat under its own seed and cache keys (a
                    # deterministic judge's calls keep theirs, so a repeat finds them planned)
                    for r in range(opts.judge_repeats):
                        planner.new_batch()
                        with judge_repeat(r), asked_afresh() if afresh else contextlib.nullcontext():
                            score_batch(family, prepared, items)
            plan.rows += _rows(job, family.id, judges, planner, before)
            plan.rows += _not_reached(job, family.id, family.stages, planner)
    finally:
        judges.cache.planner = None
    if price is not None:
        price_rows(plan.rows, price)
    return plan


def price_rows(rows: Sequence[StageRow], price: Price) -> None:
    """The most each stage's uncached LLM calls cost: prompt tokens, and completions at their cap."""
    for row in rows:
        if row.namespace == LLM_NAMESPACE:
            row.cost = (row.prompt_tokens * price.prompt + row.completion_tokens * price.completion) / 1e6


def _not_reached(
    job: Job, family: str, stages: dict[str, tuple[str, ...]], planner: Planner
) -> list[StageRow]:
    """The family's stages the plan never entered although one they depend on was answered
    by a placeholder (or was itself not reached): the run may ask them."""
    reached = {key.rsplit("/", 1)[0] for key in planner.order}
    unknown = set(planner.guessed)
    rows = []
    for name, after in stages.items():
        if name not in reached and unknown.intersection(after):
            unknown.add(name)
            rows.append(StageRow(job.task.id, job.model.label, family, name, "", exact=False))
    return rows


def _rows(
    job: Job, family: str, judges: JudgeStack, planner: Planner, before: dict[str, list[float]]
) -> list[StageRow]:
    rows = []
    added = stats_delta(before, judges.cache.stats.by_stage)
    retries = judges.profile.llm.max_retries
    for key in planner.order:
        hits, misses, _ = added.get(key, (0, 0, 0.0))
        if not hits and not misses:
            continue
        stage, namespace = key.rsplit("/", 1)
        prompt, completion, pending = planner.tokens.get(key, [0, 0, 0])
        is_llm = namespace == LLM_NAMESPACE
        rows.append(
            StageRow(
                task=job.task.id,
                model=job.model.label,
                family=family,
                stage=stage,
                namespace=namespace,
                requests=hits + misses,
                cached=hits,
                prompt_tokens=prompt,
                completion_tokens=completion,
                retries=misses * retries if is_llm else 0,
                pending=pending,
                exact=key not in planner.estimated,
                tokens_counted=planner.count_tokens.exact or not is_llm,
            )
        )
    return rows


def print_plan(plan: DryRun, console: Any) -> None:
    """The plan as one table per scoring job, and the totals."""
    from rich.table import Table

    console.print(f"[bold]Dry run[/bold] — judge profile {plan.judge}; nothing was computed.")
    for line in plan.skipped:
        console.print(f"  not applicable: {line}")
    groups: dict[tuple[str, str], list[StageRow]] = {}
    for r in plan.rows:
        groups.setdefault((r.task, r.model), []).append(r)
    for (task, model), rows in groups.items():
        table = Table(title=f"{task} · {model}", title_justify="left")
        for col, just in (
            ("family", "left"), ("stage", "left"), ("what", "left"), ("requests", "right"),
            ("cached", "right"), ("to compute", "right"), ("prompt tokens", "right"),
            ("completion ≤", "right"), ("retries ≤", "right"), ("basis", "left"),
        ):  # fmt: skip
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        if plan.priced:
            table.add_column("USD ≤", justify="right")
        for r in rows:
            if not r.namespace:
                cells = [r.family, r.stage, "—", *[""] * 6, "not reached: depends on uncached replies"]
                table.add_row(*cells, *([""] if plan.priced else []))
                continue
            basis = "exact" if r.exact else "estimate"
            if r.pending:
                basis += f"; {r.pending} replies pending"
            tokens = f"{r.prompt_tokens:,}" + ("" if r.tokens_counted else " (est.)")
            cells = [
                r.family, r.stage, r.kind, f"{r.requests:,}", f"{r.cached:,}", f"{r.to_compute:,}",
                tokens if r.namespace == LLM_NAMESPACE else "",
                f"{r.completion_tokens:,}" if r.namespace == LLM_NAMESPACE else "",
                f"{r.retries:,}" if r.retries else "", basis,
            ]  # fmt: skip
            if plan.priced:
                cells.append(f"{r.cost:.4f}" if r.cost is not None else "")
            table.add_row(*cells)
        console.print(table)
    for (task, model, family), (n, done) in plan.queries.items():
        if not n:
            console.print(f"  {family} · {task} · {model}: all {done} queries already checkpointed")
    llm, llm_new = plan.total(LLM_NAMESPACE)
    pairs, pairs_new = plan.total("entail")
    searches, searches_new = plan.total(RETRIEVE)
    console.print(
        f"In all: {llm:,} LLM calls ({llm_new:,} to make), {pairs:,} entailment pairs ({pairs_new:,} to "
        f"compute), {searches:,} retrieval queries ({searches_new:,} to search)."
    )
    if plan.priced:
        cost = sum(r.cost for r in plan.rows if r.cost is not None)
        console.print(f"At most ${cost:.4f} for the judge LLM's uncached calls (retries not included).")
    if any(not r.exact for r in plan.rows):
        console.print(
            "'estimate' rows come after a request the cache could not answer: they assume every search "
            "returns k passages and every uncached entailment check supports its claim, and leave out "
            "what depends on pending LLM replies. A stage 'not reached' is asked, or not, for what those "
            "uncached replies say."
        )
