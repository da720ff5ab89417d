"""Judge robustness (ConQRet, §5): do the scores fall when the evidence or the answer gets
worse?  ``irrelevant`` swaps a share of every search's hits for passages of other documents;
``contradictions`` inserts the judge LLM's rewrite of a sentence stating the opposite.  All is
seeded by the seed and the texts, so a re-run gives the same numbers (docs/judge-robustness.md).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats as st

from benchmark.core.text import sentences
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured
from benchmark.retrieval import Allowed, Hit, Passage, Retriever


def _rng(seed: int, *parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode("utf-8")).hexdigest()
    return random.Random(int(digest[:16], 16))


@dataclass
class IrrelevantHits:
    """A retriever whose hits are partly replaced by passages of other documents.

    ``fraction`` of each query's hits (rounded half up) are replaced, at seeded positions, by
    seeded passages of the ``pool`` from documents not among that query's hits: irrelevant to
    it, not merely another passage of a relevant document."""

    base: Retriever
    pool: Sequence[Passage]
    fraction: float
    seed: int = 0
    identity: dict[str, object] = field(init=False)

    def __post_init__(self) -> None:
        self.identity = {**dict(self.base.identity), "irrelevant_fraction": self.fraction, "seed": self.seed}  # type: ignore[arg-type]

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        out = []
        for query, hits in zip(queries, self.base.search(queries, k, allowed), strict=True):
            n = math.floor(self.fraction * len(hits) + 0.5)
            docs = {h.doc_id for h in hits}
            candidates = [p for p in self.pool if p.doc_id not in docs] if n else []
            if not candidates:
                out.append(hits)
                continue
            rng = _rng(self.seed, "irrelevant", query)
            swap = set(rng.sample(range(len(hits)), min(n, len(hits))))
            picked = iter(rng.sample(candidates, min(len(swap), len(candidates))))
            replaced = []
            for i, h in enumerate(hits):
                p = next(picked, None) if i in swap else None
                replaced.append(h if p is None else Hit(p.passage_id, p.doc_id, p.text, h.score, h.rank))
            out.append(replaced)
        return out


@dataclass
class Injected:
    """An answer with contradicting sentences inserted, and the injections that failed."""

    text: str
    injected: int
    failed: int


def inject_contradictions(
    answers: dict[str, str], k: int, llm: LLM, *, seed: int = 0, max_retries: int = 2
) -> dict[str, Injected]:
    """Each answer with ``k`` of its sentences (seeded) each followed by a rewrite stating the
    opposite; a rewrite unusable after retries is left out and counted, never faked."""
    if k == 0:
        return {q: Injected(a, 0, 0) for q, a in answers.items()}
    plan: dict[str, tuple[list[str], list[int]]] = {}
    for qid, answer in answers.items():
        sents = sentences(answer)
        order = list(range(len(sents)))
        _rng(seed, "contradict", qid).shuffle(order)
        plan[qid] = (sents, [order[i % len(order)] for i in range(k)] if order else [])
    prompt = load_prompt("contradict@1")
    prompts = [prompt.render(sentence=sents[i]) for sents, picks in plan.values() for i in picks]
    outcomes = iter(run_structured(llm, prompts, parse_rewrite, max_retries=max_retries))
    out = {}
    for qid, (sents, picks) in plan.items():
        after: dict[int, list[str]] = {}
        failed = 0
        for i in picks:
            res = next(outcomes)
            if res.ok and res.value:
                after.setdefault(i, []).append(res.value)
            else:
                failed += 1
        parts: list[str] = []
        for i, sentence in enumerate(sents):
            parts += [sentence, *after.get(i, [])]
        out[qid] = Injected(" ".join(parts) if sents else answers[qid], len(picks) - failed, failed)
    return out


def parse_rewrite(text: str) -> str:
    """One non-empty sentence; ``ValueError`` for anything else (an echo is not a rewrite)."""
    line = next((ln.strip().strip('"') for ln in text.strip().splitlines() if ln.strip()), "")
    if not line or len(line.split()) < 3:
        raise ValueError("reply with the rewritten sentence only")
    return line


@dataclass(frozen=True)
class Trend:
    levels: tuple[float, ...]
    values: tuple[float | None, ...]
    pearson: float | None
    pearson_p: float | None
    monotonic_decrease: bool | None


def trend(levels: Sequence[float], values: Sequence[float | None]) -> Trend:
    """Pearson's r of a score with the level, and whether it never rises (``None``: a level unscored)."""
    pairs = [(lv, v) for lv, v in zip(levels, values, strict=True) if v is not None]
    r = p = None
    if len(pairs) >= 3 and len({v for _, v in pairs}) > 1:
        res = st.pearsonr([lv for lv, _ in pairs], [v for _, v in pairs])
        r, p = float(res.statistic), float(res.pvalue)
    mono = None if len(pairs) < len(values) else all(b <= a for a, b in itertools.pairwise(values))  # type: ignore[operator]
    return Trend(tuple(levels), tuple(values), r, p, mono)


def check(
    judges: Any,
    *,
    score_jobs: Callable[[Any, dict[str, str], Path], Sequence[tuple[Any, Path]]],
    answers: dict[str, str],
    perturbations: dict[str, list[float]],
    results_root: Path,
    seed: int = 0,
) -> dict[str, tuple[list[float], dict[tuple[str, str], Trend], list[str]]]:
    """Score the answers at every level of every perturbation and fit each score's trend.

    ``score_jobs(stack, texts, folder)`` scores ``texts`` with ``stack`` into ``folder``.  Per
    kind: the levels, each (family, score label)'s :class:`Trend`, and notes on rewrites left out."""
    import dataclasses

    from benchmark.families import REGISTRY
    from benchmark.retrieval import build_retriever, corpus_passages

    out: dict[str, tuple[list[float], dict[tuple[str, str], Trend], list[str]]] = {}
    for kind, levels in perturbations.items():
        if not levels:
            continue
        values: dict[tuple[str, str], dict[float, float | None]] = {}
        notes: list[str] = []
        for level in levels:
            stack, texts = judges, answers
            if kind == "irrelevant":

                def factory(corpus: Any, t: Any, spec: Any, fraction: float = level / 100) -> Any:
                    passages = corpus_passages(corpus, t, spec)  # chunked once: index and pool
                    base = build_retriever(
                        spec, judges.profile.embedder, passages, cache=judges.cache, progress=False
                    )
                    return IrrelevantHits(base, passages, fraction, seed)

                stack = dataclasses.replace(judges, retriever_factory=factory, _retrievers={})
            else:
                injected = inject_contradictions(
                    answers, int(level), judges.llm, seed=seed, max_retries=judges.profile.llm.max_retries
                )
                texts = {q: i.text for q, i in injected.items()}
                if failed := sum(i.failed for i in injected.values()):
                    notes.append(f"level {level:g}: {failed} rewrite(s) unusable after retries, left out")
            for result, _ in score_jobs(stack, texts, results_root / f"{kind}-{level:g}"):
                family = REGISTRY[result.metric_family]
                for col in family.columns:
                    s = result.scores.get(col.key)
                    values.setdefault((family.id, col.label), {})[level] = s.value if s else None
        trends = {k: trend(levels, [v.get(x) for x in levels]) for k, v in values.items()}
        out[kind] = (levels, trends, notes)
    return out
