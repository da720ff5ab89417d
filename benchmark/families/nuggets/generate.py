"""Creating nuggets and labelling their importance with an LLM (``benchmark nuggets generate``),
as the TREC RAG track's AutoNuggetizer (Pradeep et al., 2024): relevant passages read in
windows, each reply the updated list; an unusable reply keeps the list as it was, and a topic
whose importance labels fail gets no nuggets rather than guessed ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

CREATE, IMPORTANCE = "nugget-create@1", "nugget-importance@1"
MAX_NUGGETS = 30  # as the track
WINDOW = 10  # passages per creation request


def parse_nugget_list(text: str, max_nuggets: int) -> list[str]:
    """The "- fact" lines of a reply (numbered lines too), each kept once, at most
    ``max_nuggets``; ``ValueError`` when there is none or one is not a short statement."""
    out: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)$", line)
        if not m:
            continue
        fact = " ".join(m.group(1).split())
        if len(fact.split()) < 3:
            raise ValueError(f"each fact must be a short sentence of three words or more, not {fact!r}")
        if fact.lower() not in {o.lower() for o in out}:
            out.append(fact)
    if not out:
        raise ValueError('no facts: start each line with "- "')
    return out[:max_nuggets]


def parse_importance(text: str, n: int) -> list[str]:
    """``n`` labels (vital / okay) from "<number>: <label>" lines numbered 1..n."""
    labels: dict[int, str] = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        m = re.match(r"^\s*(\d+)\s*[:.)-]\s*(vital|okay)\s*$", line.strip().lower())
        if not m:
            raise ValueError(
                f'every line must be "<number>: vital" or "<number>: okay", not {line.strip()[:60]!r}'
            )
        labels[int(m.group(1))] = m.group(2)
    if sorted(labels) != list(range(1, n + 1)):
        raise ValueError(f"give exactly one label for each of the {n} facts, numbered 1 to {n}")
    return [labels[i] for i in range(1, n + 1)]


@dataclass
class Made:
    """One topic's nuggets as generated, and what failed on the way."""

    query_id: str
    nuggets: list[str] = field(default_factory=list)
    importance: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def _listed(items: Sequence[str], bullet: bool) -> str:
    if not items:
        return "(none yet)"
    return "\n".join(f"- {x}" if bullet else f"{k}. {x}" for k, x in enumerate(items, start=1))


def generate_nuggets(
    llm: LLM,
    topics: Sequence[tuple[str, str, Sequence[str]]],
    *,
    window: int = WINDOW,
    max_nuggets: int = MAX_NUGGETS,
    max_retries: int = 2,
) -> list[Made]:
    """Nuggets with importance for ``(query_id, query, passages)`` topics, batched per round."""
    create, importance = load_prompt(CREATE), load_prompt(IMPORTANCE)
    made = [Made(qid) for qid, _, _ in topics]
    rounds = max((len(p) + window - 1) // window for _, _, p in topics) if topics else 0
    for r in range(rounds):
        todo = [(m, q, ps[r * window : (r + 1) * window]) for m, (_, q, ps) in zip(made, topics, strict=True)]
        todo = [(m, q, w) for m, q, w in todo if w]
        outs = run_structured(
            llm,
            [
                create.render(
                    query=q, nuggets=_listed(m.nuggets, True), max_nuggets=max_nuggets,
                    passages="\n".join(f"[{k}] {' '.join(p.split())}" for k, p in enumerate(w, start=1)),
                )
                for m, q, w in todo
            ],
            partial(parse_nugget_list, max_nuggets=max_nuggets),
            max_retries=max_retries,
            max_new_tokens=int(create.meta.get("max_new_tokens", 512)),
        )  # fmt: skip
        for (m, _, _), o in zip(todo, outs, strict=True):
            if o.ok:
                m.nuggets = list(o.value or [])
            else:
                m.failures.append(f"creation, passages {r * window + 1}-{r * window + window}: {o.error}")
    batch = int(importance.meta.get("batch", 10))
    requests, parsers, owners = [], [], []
    for m, (_, q, _) in zip(made, topics, strict=True):
        for start in range(0, len(m.nuggets), batch):
            chunk = m.nuggets[start : start + batch]
            requests.append(importance.render(query=q, nuggets=_listed(chunk, False)))
            parsers.append(partial(parse_importance, n=len(chunk)))
            owners.append(m)
    outs = (
        run_structured(
            llm, requests, parsers, max_retries=max_retries,
            max_new_tokens=int(importance.meta.get("max_new_tokens", 96)),
        )
        if requests
        else []
    )  # fmt: skip
    failed: set[str] = set()
    for m, o in zip(owners, outs, strict=True):
        if o.ok:
            m.importance += list(o.value or [])
        else:
            failed.add(m.query_id)
            m.failures.append(f"importance: {o.error}")
    for m in made:
        if m.query_id in failed:  # no guessed labels: the topic gets no nuggets
            m.nuggets, m.importance = [], []
        elif not m.nuggets and not m.failures:
            m.failures.append("creation: no relevant passages")
    return made
