"""RAArg, ConQRet's reference pipeline: BM25 → listwise LLM reranking → cited argument.

``benchmark evaluate --rag bm25 --rerank stance|generic``: BM25 retrieves ``--rerank-depth``
whole documents for the topic; the model under evaluation reranks them listwise (RankGPT's
sliding window, bottom up) with a generic or a stance-conditioned instruction; the top
``--rag-k``, trimmed to the evidence budget, go into ``raarg-argument@1``.  The outputs are
ordinary RAG outputs; :func:`ranking_quality` reports P@10 and nDCG@10 per stance.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd
from tqdm import tqdm

from benchmark.core.text import trim_proportionally
from benchmark.models.llm import Messages
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured
from benchmark.retrieval import Hit

log = logging.getLogger(__name__)

RERANK_PROMPT = "raarg-rerank@1"
ARGUMENT_PROMPT = "raarg-argument@1"
#: chunk size that keeps every document whole (RAArg retrieves documents, not passages)
WHOLE_DOCUMENT = 10**9
SIDES = {"pro": "in favour", "con": "against"}


def parse_ranking(text: str, n: int) -> list[int]:
    """A ``[3] > [1] > [2]`` (or bare ``3 > 1 > 2``) reply as a 0-based order of all ``n``
    documents: out-of-range numbers and repeats ignored, documents left out kept after the
    ranked ones in their order (as RankGPT does); a reply that names none is unusable."""
    nums = [int(m) for m in re.findall(r"\[(\d+)\]", text)]
    if not nums and (chain := re.search(r"\d+(?:\s*>\s*\d+)+", text)):
        nums = [int(m) for m in re.findall(r"\d+", chain.group(0))]
    order: list[int] = []
    for num in nums:
        if 1 <= num <= n and num - 1 not in order:
            order.append(num - 1)
    if not order:
        raise ValueError('no document numbers in the ranking; expected e.g. "[2] > [1] > [3]"')
    return order + [i for i in range(n) if i not in order]


def rerank_messages(topic: str, stance: str, docs: Sequence[str], instruction: str) -> Messages:
    prompt = load_prompt(RERANK_PROMPT)
    n = len(docs)
    text = prompt.meta["instructions"][instruction].format(n=n, stance=stance, side=SIDES.get(stance, stance))
    block = "\n\n".join(f"[{i}] {' '.join(d.split())}" for i, d in enumerate(docs, start=1))
    return prompt.render(instruction=text, documents=block, topic=topic, n=n)


@dataclass
class Reranked:
    hits: list[list[Hit]]
    failures: dict[int, list[str]] = field(default_factory=dict)  # query position -> failed windows


def rerank(
    llm: Any,
    queries: Sequence[tuple[str, str]],
    hits: Sequence[Sequence[Hit]],
    instruction: str,
    *,
    window: int = 10,
    step: int = 5,
    max_words: int = 100,
    max_retries: int = 2,
    progress: bool = False,
) -> Reranked:
    """Listwise reranking of every query's list by sliding a ``window`` up it in ``step``s, all
    queries' windows at one position in one batch, documents cut to ``max_words``.  A window
    whose reply stays unusable keeps its order, and the failure is recorded."""
    if instruction not in ("generic", "stance"):
        raise ValueError(f"unknown rerank instruction {instruction!r}")
    lists = [list(h) for h in hits]
    failures: dict[int, list[str]] = {}
    longest = max((len(h) for h in lists), default=0)
    starts = list(range(max(longest - window, 0), -1, -step))
    if starts and starts[-1] != 0:
        starts.append(0)
    for start in tqdm(starts, desc="rerank windows", unit="window", disable=not progress, file=sys.stderr):
        todo = [i for i, h in enumerate(lists) if len(h) > start + 1]
        if not todo:
            continue
        reqs, sizes = [], []
        for i in todo:
            docs = lists[i][start : start + window]
            sizes.append(len(docs))
            topic, stance = queries[i]
            reqs.append(
                rerank_messages(
                    topic, stance, [" ".join(d.text.split()[:max_words]) for d in docs], instruction
                )
            )
        parsers = [lambda r, n=n: parse_ranking(r, n) for n in sizes]
        outcomes = run_structured(
            llm,
            reqs,
            parsers,
            max_retries=max_retries,
            max_new_tokens=load_prompt(RERANK_PROMPT).meta.get("max_new_tokens"),
        )
        for i, out in zip(todo, outcomes, strict=True):
            docs = lists[i][start : start + window]
            if out.ok:
                lists[i][start : start + window] = [docs[j] for j in out.value]
            else:
                failures.setdefault(i, []).append(f"window at {start + 1}: {out.error}")
    ranked = [[replace(h, rank=r) for r, h in enumerate(hs, start=1)] for hs in lists]
    return Reranked(ranked, failures)


def evidence(hits: Sequence[Hit], k: int, max_words: int) -> list[Hit]:
    """The top ``k`` documents, trimmed proportionally to ``max_words`` together."""
    top = list(hits[:k])
    texts = trim_proportionally([h.text for h in top], max_words)
    return [replace(h, text=t) for h, t in zip(top, texts, strict=True)]


def ranking_quality(
    runs: dict[str, dict[str, list[str]]],
    qrels: pd.DataFrame,
    stances: pd.DataFrame | None,
    query_stance: dict[str, str],
) -> pd.DataFrame:
    """P@10 and nDCG@10 of each ranker's lists, per stance, with ``ir_measures``: ``own stance``
    counts only documents labelled with the query's stance relevant, ``any stance`` every one."""
    import ir_measures
    from ir_measures import Qrel, ScoredDoc, nDCG

    measures = [ir_measures.P @ 10, nDCG @ 10]
    labelled = {(r.query_id, r.doc_id): r.stance for r in stances.itertuples()} if stances is not None else {}
    rows = []
    for name, run in runs.items():
        scored = [ScoredDoc(q, d, float(len(ds) - i)) for q, ds in run.items() for i, d in enumerate(ds)]
        views: list[tuple[str, Callable[[Any], bool]]] = [("any stance", lambda r: True)]
        if labelled:
            views.insert(
                0,
                (
                    "own stance",
                    lambda r: labelled.get((r.query_id, r.doc_id)) in (query_stance[r.query_id], "both"),
                ),
            )
        for view, keep in views:
            for group in ("pro", "con", "all"):
                qids = {q for q in run if group == "all" or query_stance.get(q) == group}
                rel = [
                    Qrel(r.query_id, r.doc_id, int(r.relevance) if keep(r) else 0)
                    for r in qrels.itertuples()
                    if r.query_id in qids
                ]
                if not any(q.relevance > 0 for q in rel):
                    continue
                agg = ir_measures.calc_aggregate(measures, rel, [s for s in scored if s.query_id in qids])
                rows.append(
                    {
                        "ranker": name,
                        "qrels": view,
                        "queries": group,
                        "n": len(qids),
                        "P@10": agg[ir_measures.P @ 10],
                        "nDCG@10": agg[nDCG @ 10],
                    }
                )
    return pd.DataFrame(rows)


class BackendLLM:
    """The model under evaluation behind the LLM protocol that structured output expects,
    so the system reranks with the same backend (and cache) it generates with."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def generate(
        self, requests: Sequence[Messages], *, max_new_tokens: int | None = None, **_: Any
    ) -> list[str]:
        """Greedy replies, whatever ``temperature`` or ``seed`` is asked (the system's own setting)."""
        gen = {"max_gen_toks": max_new_tokens or 80, "do_sample": False, "temperature": 0.0, "until": []}
        return self.backend.generate([list(r) for r in requests], gen)
