"""Retrieval-augmented generation in the harness: evidence in the prompt, citations parsed back.

``benchmark evaluate --rag bm25|dense|hybrid --rag-k N`` numbers the ``N`` best passages of
each query in the prompt (``rag-answer@1``), retrieved with grounding's chunking and
retrievers, and asks for citations as ``[1]``.  The setting
(:class:`~benchmark.core.results.RAGSetting`) is part of the model's identity: a closed-book
run and a RAG run of one model are two leaderboard entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from benchmark.core.errors import InputError, usage_error
from benchmark.core.results import RAGSetting
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import JudgeProfile
from benchmark.models.prompts import load_prompt
from benchmark.retrieval import Hit

DEFAULT_PROMPT = "rag-answer@1"
KINDS = ("bm25", "dense", "hybrid")


def render_passages(texts: Sequence[str]) -> str:
    return "\n\n".join(f"[{i}] {' '.join(t.split())}" for i, t in enumerate(texts, start=1))


def rag_prompt(
    instruction: str, query: str, passages: Sequence[str], prompt_ref: str = DEFAULT_PROMPT, **extra: Any
) -> str:
    """The whole prompt as one text: what the harness sends and what lm-eval exports."""
    messages = load_prompt(prompt_ref).render(
        instruction=instruction, passages=render_passages(passages), query=query, **extra
    )
    if len(messages) != 1 or messages[0]["role"] != "user":
        raise ValueError(f"prompt {prompt_ref} must be a single user turn (lm-eval exports it as one text)")
    return messages[0]["content"]


def parse_settings(value: str, k: int) -> list[RAGSetting | None]:
    """``--rag none,bm25`` -> [None, bm25 setting without corpus]; validated, in order."""
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise usage_error("name at least one setting: none, bm25, dense, hybrid", "--rag")
    bad = [v for v in items if v not in ("none", *KINDS)]
    if bad:
        raise usage_error(f"unknown setting(s) {bad}; use none, bm25, dense or hybrid", "--rag")
    if not 1 <= k <= 50:
        raise usage_error("must be between 1 and 50", "--rag-k")
    return [
        None if v == "none" else RAGSetting(retriever=v, k=k, prompt=DEFAULT_PROMPT, corpus="") for v in items
    ]  # type: ignore[arg-type]


@dataclass
class RAGContext:
    """A setting and, per query, the passages its prompt numbers."""

    setting: RAGSetting
    hits: dict[str, list[Hit]]
    #: RAArg: each ranker's document lists by query (for P@10 / nDCG@10), and rerank failures
    rankings: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    failures: dict[str, list[str]] = field(default_factory=dict)
    #: sub-question-augmented RAG: each query's core sub-questions, listed in the prompt
    prompt_subqs: dict[str, list[str]] = field(default_factory=dict)

    def prompt(self, instruction: str, query_id: str, query: str) -> str:
        extra = {}
        if self.setting.sub_questions in ("prompt", "all"):
            extra["subquestions"] = "\n".join(f"- {q}" for q in self.prompt_subqs.get(query_id, []))
        return rag_prompt(
            instruction, query, [h.text for h in self.hits[query_id]], self.setting.prompt, **extra
        )

    def passage_ids(self, query_id: str) -> list[str]:
        return [h.passage_id for h in self.hits[query_id]]


def prepare(
    task: Any,
    setting: RAGSetting,
    query_ids: Sequence[str],
    *,
    profile: JudgeProfile,
    corpus: str | None = None,
    lucene_index: str | None = None,
    cache: ModelCallCache | None = None,
    progress: bool = True,
    rerank_llm: Any = None,
    max_evidence_words: int = 1500,
) -> RAGContext:
    """Retrieve the ``k`` passages of every query with the profile's chunking and embedder.
    With ``setting.rerank`` (RAArg), whole documents ``setting.depth`` deep, reranked by
    ``rerank_llm``, the top ``k`` trimmed together to ``max_evidence_words``."""
    from benchmark.generation import raarg
    from benchmark.retrieval import open_retriever, resolve_corpus

    ref = resolve_corpus(task, corpus, lucene_index)
    spec = profile.retriever.model_copy(update={"kind": setting.retriever})
    if setting.rerank:
        spec = spec.model_copy(update={"chunk_words": raarg.WHOLE_DOCUMENT, "chunk_overlap": 0})
    retriever = open_retriever(ref, task, spec, profile.embedder, cache=cache, progress=progress)
    queries = task.table("queries").set_index("query_id")
    full = setting.model_copy(
        update={
            "corpus": ref.label,
            "chunking": (spec.chunk_words, spec.chunk_overlap),
            "embedder": None if setting.retriever == "bm25" else profile.embedder.model,
        }
    )
    if setting.sub_questions:
        return sub_question_context(task, full, retriever, query_ids, profile, cache)
    if not setting.rerank:
        hits = retriever.search([str(queries.at[q, "text"]) for q in query_ids], setting.k)
        return RAGContext(full, dict(zip(query_ids, hits, strict=True)))
    topics = [(str(queries.at[q, "topic"]), str(queries.at[q, "stance"])) for q in query_ids]
    found = retriever.search([t for t, _ in topics], setting.depth or 20)
    found = [[replace(h, passage_id=h.doc_id) for h in hs] for hs in found]
    reranked = raarg.rerank(rerank_llm, topics, found, setting.rerank, progress=progress)
    hits = [raarg.evidence(hs, setting.k, max_evidence_words) for hs in reranked.hits]
    lists = {
        setting.retriever: {q: [h.doc_id for h in hs] for q, hs in zip(query_ids, found, strict=True)},
        f"{setting.retriever} + {setting.rerank} rerank": {
            q: [h.doc_id for h in hs] for q, hs in zip(query_ids, reranked.hits, strict=True)
        },
    }
    failures = {query_ids[i]: f for i, f in reranked.failures.items()}
    return RAGContext(full, dict(zip(query_ids, hits, strict=True)), lists, failures)


# -- sub-question-augmented RAG (Xie et al., 2024) ----------------------------------------

SUBQ_PROMPT = "rag-answer-subq@1"
SUBQ_POOL = 4  # candidates per retrieval list, in multiples of k, that reranking chooses from


def core_sub_questions(task: Any, query_ids: Sequence[str]) -> dict[str, list[str]]:
    """Each query's core sub-questions, from the task's ``sub_questions`` table."""
    if not task.has_table("sub_questions"):
        raise InputError.at(
            task.where(), "--rag-subq needs the task's sub_questions table", field="data.tables"
        )
    table = task.table("sub_questions")
    core = table[table["type"] == "core"]
    out = {q: [str(t) for t in core[core["query_id"].astype(str) == q]["text"]] for q in query_ids}
    missing = [q for q, v in out.items() if not v]
    if missing:
        raise InputError.at(task.where("sub_questions"), f"no core sub-question for queries {missing[:5]}")
    return out


def interleave(lists: Sequence[Sequence[Hit]]) -> list[Hit]:
    """Round-robin over ranked lists, first list first, each passage once."""
    out: list[Hit] = []
    seen: set[str] = set()
    for rank in range(max((len(x) for x in lists), default=0)):
        for hits in lists:
            if rank < len(hits) and hits[rank].passage_id not in seen:
                seen.add(hits[rank].passage_id)
                out.append(hits[rank])
    return out


def sub_question_context(
    task: Any,
    setting: RAGSetting,
    retriever: Any,
    query_ids: Sequence[str],
    profile: JudgeProfile,
    cache: Any,
) -> RAGContext:
    """Core sub-questions in retrieval (a list per sub-question, interleaved with the query's),
    in reranking (by best similarity to the query or a core sub-question), in the prompt, or all three."""
    from benchmark.models.embeddings import Embedder

    queries = task.table("queries").set_index("query_id")
    subqs = core_sub_questions(task, query_ids)
    texts = {q: str(queries.at[q, "text"]) for q in query_ids}
    k, mode = setting.k, setting.sub_questions
    depth = k * SUBQ_POOL if mode in ("rerank", "all") else k
    if mode in ("retrieval", "all"):
        flat = [(q, t) for q in query_ids for t in [texts[q], *subqs[q]]]
        found = retriever.search([t for _, t in flat], depth)
        per_query: dict[str, list[list[Hit]]] = {}
        for (q, _), hs in zip(flat, found, strict=True):
            per_query.setdefault(q, []).append(hs)
        pools = {q: interleave(per_query[q]) for q in query_ids}
    else:
        found = retriever.search([texts[q] for q in query_ids], depth)
        pools = dict(zip(query_ids, found, strict=True))
    if mode in ("rerank", "all"):
        probes = {q: [texts[q], *subqs[q]] for q in query_ids}
        unique = list(dict.fromkeys(t for q in query_ids for t in [*probes[q], *(h.text for h in pools[q])]))
        vecs = Embedder(profile.embedder, cache=cache).encode(unique, kind="query")  # one batch for all
        row = {t: vecs[i] for i, t in enumerate(unique)}
        for q in query_ids:
            best = [max(float(row[h.text] @ row[p]) for p in probes[q]) for h in pools[q]]
            order = sorted(range(len(pools[q])), key=lambda i: -best[i])
            pools[q] = [pools[q][i] for i in order]
    hits = {q: pools[q][:k] for q in query_ids}
    prompt_subqs = subqs if mode in ("prompt", "all") else {}
    return RAGContext(setting, hits, prompt_subqs=prompt_subqs)
