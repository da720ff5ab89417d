"""Score a model's answers on a task with ICAT-M, ICAT-S and ICAT-A.

This module wires the pure scoring functions (:mod:`benchmark.icat`,
:mod:`benchmark.coverage`) to the models (:mod:`benchmark.judges`,
:mod:`benchmark.grounding`, :mod:`benchmark.retrieval`) and to disk
(:mod:`benchmark.checkpoint`, :mod:`benchmark.results`).

Work is done a few queries at a time so every model sees batches: claims of several
answers are extracted in one LLM batch, all their claims are retrieved and checked for
entailment in one batch, and so on.  Each finished query is written to the traces file
(which doubles as the checkpoint) before the next batch starts, so a killed run resumes
where it stopped and — because every model call is cached by content hash — produces
identical results.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from benchmark import icat
from benchmark.cache import ModelCallCache, content_hash, default_cache
from benchmark.checkpoint import JsonlCheckpoint
from benchmark.claims import claim_messages, number_claims, parse_claims, sentence_claims
from benchmark.coverage import (
    Aspect,
    alignment_messages,
    alignment_to_ids,
    aspect_messages,
    manual_alignment,
    parse_alignment,
    parse_aspects,
)
from benchmark.errors import InputError, Problem
from benchmark.profiles import JudgeProfile
from benchmark.results import (
    ModelInfo,
    QueryScores,
    TaskInfo,
    TaskResult,
    bootstrap_score,
    now_iso,
    result_path,
    run_info,
    traces_path,
    write_result,
)
from benchmark.tasks import Task

log = logging.getLogger(__name__)

VARIANTS = ("m", "s", "a")
SCORE_KEYS = ("s_fact", "s_coverage_m", "icat_m", "s_coverage_s", "icat_s", "s_coverage_a", "icat_a")
PASSAGE_TEXT_CHARS = 600  # passage text kept in traces (enough to read the evidence)


@dataclass
class ICATOptions:
    variants: tuple[str, ...] = VARIANTS
    beta: float = 1.0
    betas: tuple[float, ...] = icat.DEFAULT_BETAS
    seed: int = 0
    query_batch: int = 4
    bootstrap_resamples: int = 1000
    progress: bool = True


@dataclass
class Judges:
    """The loaded models of a judge profile (loaded once, shared by all tasks)."""

    profile: JudgeProfile
    llm: Any
    entailment: Any
    cache: ModelCallCache
    retrievers: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, profile: JudgeProfile, cache: ModelCallCache | None = None) -> Judges:
        from benchmark.grounding import load_entailment
        from benchmark.judges import load_llm

        cache = cache or default_cache()
        llm = load_llm(profile.llm, cache=cache)
        entailment = load_entailment(
            profile.entailment, embedder_model=profile.embedder.model, llm=llm, cache=cache
        )
        return cls(profile=profile, llm=llm, entailment=entailment, cache=cache)

    def retriever_for(self, task: Task, corpus: str | None, lucene_index: str | None) -> tuple[Any, str]:
        """Retriever over the task's (or the user's) corpus, and the corpus identity."""
        from benchmark import retrieval

        key = f"{task.id}|{corpus}|{lucene_index}"
        if key not in self.retrievers:
            spec = task.card.corpus
            passages = None
            index = lucene_index
            if corpus is None and index is None:
                if spec.kind == "table":
                    docs = task.table("corpus").to_dict("records")
                elif spec.kind in ("jsonl", "parquet"):
                    docs = retrieval.load_corpus(str(task.root / (spec.path or "")))
                elif spec.kind in ("lucene", "pyserini-prebuilt"):
                    docs, index = None, (spec.path if spec.kind == "lucene" else f"prebuilt:{spec.path}")
                else:
                    raise InputError(
                        Problem(
                            f"tasks/{task.id}/task.yaml",
                            "this task ships no corpus; pass --corpus (JSONL/parquet) or --lucene-index",
                            field="corpus",
                        )
                    )
            else:
                docs = retrieval.load_corpus(corpus) if corpus else None
            if docs is not None:
                passages = retrieval.chunk_corpus(
                    docs,
                    size=self.profile.retriever.chunk_words,
                    overlap=self.profile.retriever.chunk_overlap,
                )
            retriever = retrieval.build_retriever(
                self.profile.retriever, self.profile.embedder, passages, lucene_index=index, cache=self.cache
            )
            self.retrievers[key] = retriever
        retriever = self.retrievers[key]
        return retriever, content_hash(retriever.identity)


def _uses_task_corpus(task: Task, corpus: str | None, lucene_index: str | None) -> bool:
    return corpus is None and lucene_index is None and task.card.corpus.kind != "none"


def queries_to_score(
    task: Task,
    answers: dict[str, str],
    *,
    corpus: str | None,
    lucene_index: str | None,
    warn: bool = True,
) -> list[str]:
    """Query ids to score: those answered, restricted to the corpus's queries if it has a list.

    ``warn`` logs how many were left out, so that a user scoring all 200 topics against
    the starter corpus learns why only a few got scores.
    """
    known = set(task.table("queries")["query_id"])
    unknown = sorted(set(answers) - known)
    if unknown:
        raise InputError(
            Problem(f"answers for task {task.id}", f"unknown query id(s) {unknown[:10]}", field="query_id")
        )
    ids = [q for q in task.table("queries")["query_id"] if q in answers]
    covers = task.card.corpus.covers_queries
    if covers is not None and _uses_task_corpus(task, corpus, lucene_index):
        skipped = [q for q in ids if q not in set(covers)]
        if skipped and warn:
            log.warning(
                "%s: %d queries are not covered by the task's corpus (%s) and are not scored",
                task.id,
                len(skipped),
                task.card.corpus.label,
            )
        # the corpus's own order: its first queries are the ones a quick run should use
        ids = [q for q in covers if q in set(ids)]
    return ids


def evaluate_icat(
    task: Task,
    answers: dict[str, str],
    judges: Judges,
    *,
    model: ModelInfo,
    results_root: Path,
    corpus: str | None = None,
    lucene_index: str | None = None,
    options: ICATOptions | None = None,
    command: str | None = None,
) -> tuple[TaskResult, Path]:
    """Score ``answers`` (query id -> answer text) and write the result + traces files."""
    opts = options or ICATOptions()
    started, t0 = now_iso(), time.perf_counter()
    profile = judges.profile
    qids = queries_to_score(task, answers, corpus=corpus, lucene_index=lucene_index)
    if not qids:
        raise InputError(
            Problem(f"answers for task {task.id}", "no answered query can be scored on this corpus")
        )
    retriever, corpus_id = judges.retriever_for(task, corpus, lucene_index)
    t_index = time.perf_counter() - t0
    variants = tuple(v for v in opts.variants if v in VARIANTS)
    aspect_qrels = task.aspect_qrels() if _uses_task_corpus(task, corpus, lucene_index) else {}
    notes: list[str] = []
    if "m" in variants and not aspect_qrels:
        notes.append("ICAT-M not computed: the corpus has no aspect-level relevance judgements")
        variants = tuple(v for v in variants if v != "m")

    out_file = result_path(results_root, model, profile.name, task.id)
    checkpoint = JsonlCheckpoint(traces_path(out_file), id_field="query_id")
    done = checkpoint.load()
    run_key = content_hash(
        profile.resolved(), task.card.version, task.data_fingerprint, corpus_id, variants, opts.beta
    )
    item_keys = {q: content_hash(run_key, answers[q]) for q in qids}
    todo = [q for q in qids if done.get(q, {}).get("item_key") != item_keys[q]]
    log.info("%s: %d queries to score (%d already done)", task.id, len(todo), len(qids) - len(todo))

    queries = task.table("queries").set_index("query_id")
    bar = tqdm(
        total=len(qids),
        initial=len(qids) - len(todo),
        desc=f"ICAT {task.id}",
        unit="query",
        disable=not opts.progress,
        file=sys.stderr,
    )
    for start in range(0, len(todo), opts.query_batch):
        batch = todo[start : start + opts.query_batch]
        texts = {q: str(queries.at[q, "text"]) for q in batch}
        traces = _score_batch(task, batch, texts, answers, judges, retriever, aspect_qrels, variants, opts)
        for q, trace in zip(batch, traces, strict=True):
            trace["item_key"] = item_keys[q]
            checkpoint.append(trace)
            done[q] = trace
        bar.update(len(batch))
    bar.close()

    ordered = [done[q] for q in qids]
    checkpoint.rewrite(ordered)
    result = _aggregate(task, ordered, model, profile, corpus_id, variants, opts, notes)
    result.run = run_info(
        seed=opts.seed,
        started=started,
        durations={"index": round(t_index, 3), "total": round(time.perf_counter() - t0, 3)},
        cache=judges.cache.stats.as_dict(),
        command=command,
    )
    write_result(result, out_file)
    return result, out_file


def _score_batch(
    task: Task,
    qids: Sequence[str],
    query_text: dict[str, str],
    answers: dict[str, str],
    judges: Judges,
    retriever: Any,
    aspect_qrels: dict[tuple[str, str], set[str]],
    variants: tuple[str, ...],
    opts: ICATOptions,
) -> list[dict[str, Any]]:
    """Run every stage for a few queries, each stage batched across them."""
    from benchmark.grounding import ground_claims
    from benchmark.judges import run_structured

    llm, prof = judges.llm, judges.profile
    retries = prof.llm.max_retries
    traces: dict[str, dict[str, Any]] = {
        q: {
            "query_id": q,
            "query": query_text[q],
            "answer": answers[q],
            "claims": [],
            "aspects": [],
            "generated_aspects": [],
            "failures": [],
            "scores": {},
            "counts": {},
        }
        for q in qids
    }

    # 1. AC(y): atomic claims (empty answers have none and cost no call)
    need = [q for q in qids if answers[q].strip()]
    claims: dict[str, list[Any]] = {q: [] for q in qids}
    if prof.claim_extractor == "sentences":
        for q in need:
            claims[q] = number_claims(sentence_claims(answers[q]))
    else:
        outcomes = run_structured(
            llm,
            [claim_messages(query_text[q], answers[q], prof.prompts["claims"]) for q in need],
            parse_claims,
            max_retries=retries,
        )
        for q, out in zip(need, outcomes, strict=True):
            if out.ok:
                claims[q] = number_claims(out.value)
            else:
                traces[q]["failures"].append(f"claims: {out.error}")
                traces[q]["raw_claims_output"] = out.raw
    ok_q = [q for q in qids if not any(f.startswith("claims:") for f in traces[q]["failures"])]

    # 2. CG(C; K): retrieval + entailment, one batch for all claims of the batch
    flat = [(f"{q}:{c.claim_id}", c.text) for q in ok_q for c in claims[q]]
    groundings = (
        {g.claim_id: g for g in ground_claims(flat, retriever, judges.entailment, k=prof.retriever.k)}
        if flat
        else {}
    )

    # 3. aspects: ground truth (M, S) and generated (A)
    gold = {q: [Aspect(str(a["aspect_id"]), str(a["text"])) for a in task.aspects(q)] for q in qids}
    generated: dict[str, list[Aspect] | None] = {q: None for q in qids}
    if "a" in variants and ok_q:
        gen = run_structured(
            llm,
            [aspect_messages(query_text[q], prof.prompts["aspects"]) for q in ok_q],
            parse_aspects,
            max_retries=retries,
        )
        for q, out in zip(ok_q, gen, strict=True):
            if out.ok:
                generated[q] = out.value
            else:
                traces[q]["failures"].append(f"aspects_a: {out.error}")

    # 4. alignment: M from qrels; S and A by the LLM over grounded claims only
    align: dict[str, dict[str, dict[str, list[str]]]] = {q: {} for q in qids}
    llm_jobs: list[tuple[str, str, list[Aspect], list[Any]]] = []
    for q in ok_q:
        grounded = [c for c in claims[q] if groundings[f"{q}:{c.claim_id}"].grounded]
        if "m" in variants:
            first = {
                c.claim_id: (g.first_supporting.doc_id if g.first_supporting else None)
                for c in claims[q]
                for g in [groundings[f"{q}:{c.claim_id}"]]
                if g.grounded
            }
            align[q]["m"] = manual_alignment(q, first, aspect_qrels)
        for v, aspects in (("s", gold[q]), ("a", generated[q])):
            if v not in variants or aspects is None:
                continue
            if grounded and aspects:
                llm_jobs.append((q, v, aspects, grounded))
            else:
                align[q][v] = {}
    if llm_jobs:
        msgs = [
            alignment_messages(query_text[q], aspects, [c.text for c in cl], prof.prompts["alignment"])
            for q, _, aspects, cl in llm_jobs
        ]
        parsers = [_alignment_parser(len(aspects), len(cl)) for _, _, aspects, cl in llm_jobs]
        outs = run_structured(llm, msgs, parsers, max_retries=retries)
        for (q, v, aspects, cl), out in zip(llm_jobs, outs, strict=True):
            if out.ok:
                align[q][v] = alignment_to_ids(out.value, [c.claim_id for c in cl], aspects)
            else:
                traces[q]["failures"].append(f"alignment_{v}: {out.error}")

    # 5. scores and traces
    for q in qids:
        tr = traces[q]
        tr["aspects"] = [{"aspect_id": a.aspect_id, "text": a.text} for a in gold[q]]
        tr["generated_aspects"] = [{"aspect_id": a.aspect_id, "text": a.text} for a in (generated[q] or [])]
        if q not in ok_q:
            tr["scores"] = dict.fromkeys(SCORE_KEYS)
            continue
        usable = [c for c in claims[q] if not groundings[f"{q}:{c.claim_id}"].failed]
        n_failed = len(claims[q]) - len(usable)
        if n_failed:
            tr["failures"].append(f"entailment: {n_failed} claim(s) could not be judged")
        grounded_ids = [c.claim_id for c in usable if groundings[f"{q}:{c.claim_id}"].grounded]
        fact = icat.s_fact(len(grounded_ids), len(usable)) if usable or not claims[q] else None
        scores: dict[str, float | None] = {"s_fact": fact}
        counts = {"claims": len(claims[q]), "grounded": len(grounded_ids), "aspects": len(gold[q])}
        for v in VARIANTS:
            aspects = gold[q] if v in ("m", "s") else generated[q]
            if v not in variants or aspects is None or v not in align[q]:
                scores[f"s_coverage_{v}"] = scores[f"icat_{v}"] = None
                continue
            covered = icat.covered_aspects(align[q][v], grounded_ids, [a.aspect_id for a in aspects])
            cov = icat.s_coverage(len(covered), len(aspects))
            scores[f"s_coverage_{v}"] = cov
            scores[f"icat_{v}"] = icat.icat_beta(fact, cov, opts.beta)
            counts[f"covered_{v}"] = len(covered)
        tr["scores"], tr["counts"] = scores, counts
        tr["claims"] = [
            _claim_trace(
                c,
                groundings[f"{q}:{c.claim_id}"],
                {v: align[q].get(v, {}).get(c.claim_id, []) for v in VARIANTS},
            )
            for c in claims[q]
        ]
    return [traces[q] for q in qids]


def _alignment_parser(n_aspects: int, n_claims: int) -> Any:
    return lambda text: parse_alignment(text, n_aspects, n_claims)


def _claim_trace(claim: Any, grounding: Any, aspects: dict[str, list[str]]) -> dict[str, Any]:
    return {
        "claim_id": claim.claim_id,
        "text": claim.text,
        "grounded": bool(grounding.grounded),
        "failed": bool(grounding.failed),
        "first_supporting": grounding.first_supporting.passage_id if grounding.first_supporting else None,
        "passages": [
            {
                "passage_id": p.passage_id,
                "doc_id": p.doc_id,
                "rank": p.rank,
                "retrieval_score": p.retrieval_score,
                "support": p.support,
                "supported": p.supported,
                "text": (getattr(p, "text", "") or "")[:PASSAGE_TEXT_CHARS],
            }
            for p in grounding.passages
        ],
        **{f"aspects_{v}": a for v, a in aspects.items()},
    }


def _aggregate(
    task: Task,
    traces: list[dict[str, Any]],
    model: ModelInfo,
    profile: JudgeProfile,
    corpus_id: str,
    variants: tuple[str, ...],
    opts: ICATOptions,
    notes: list[str],
) -> TaskResult:
    per_query = [
        QueryScores(
            query_id=t["query_id"], scores=t["scores"], counts=t.get("counts", {}), failures=t["failures"]
        )
        for t in traces
    ]
    scores = {
        k: bootstrap_score(
            [pq.scores.get(k) for pq in per_query], seed=opts.seed, n_resamples=opts.bootstrap_resamples
        )
        for k in SCORE_KEYS
        if k == "s_fact" or k[-1] in variants
    }
    curves = {
        f"icat_{v}_beta": icat.beta_sweep(
            [pq.scores.get("s_fact") for pq in per_query],
            [pq.scores.get(f"s_coverage_{v}") for pq in per_query],
            opts.betas,
        )
        for v in variants
    }
    failures: dict[str, int] = {}
    for pq in per_query:
        for f in pq.failures:
            kind = f.split(":", 1)[0]
            failures[kind] = failures.get(kind, 0) + 1
    return TaskResult(
        model=model,
        task=TaskInfo(id=task.id, version=task.card.version, data=task.data_fingerprint, corpus=corpus_id),
        judge_profile=profile.resolved(),
        metric_family="icat",
        scores=scores,
        curves=curves,
        per_query=per_query,
        failures=failures,
        notes=notes,
        run=run_info(seed=opts.seed, started=now_iso(), durations={}, cache={}, command=None),
    )
