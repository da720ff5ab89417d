"""A fake judge stack: scripted LLM, entailment table and retriever, for fast whole-pipeline tests.

Like MTEB's mock tasks and models, these let the real runner and every real family
pipeline run in milliseconds with answers whose correct scores are known by hand.  The
fakes record what they were asked, so tests can also check *what* each stage sent to a
model (e.g. that the aligner sees only grounded claims).  They are for tests only: no
shipped code path ever uses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import JudgeProfile, load_profile
from benchmark.retrieval import Allowed, Hit

Messages = list[dict[str, str]]


@dataclass
class FakeLLM:
    """Replies chosen by ``reply(messages) -> str``; every request is recorded."""

    reply: Callable[[Messages], str]
    identity: str = "fake-llm"
    requests: list[Messages] = field(default_factory=list)

    def generate(self, requests: Sequence[Messages], **_: Any) -> list[str]:
        self.requests.extend(list(r) for r in requests)
        return [self.reply(list(r)) for r in requests]

    def prompts_containing(self, text: str) -> list[str]:
        """The last user turn of every request whose conversation mentions ``text``."""
        return [r[-1]["content"] for r in self.requests if any(text in m["content"] for m in r)]


@dataclass
class FakeEntailment:
    """Support of ``(passage text, claim text)`` from a table; pairs not in it get ``default``.

    A value of ``None`` in the table is a failed check (as a judge that could not answer).
    """

    table: dict[tuple[str, str], float | None]
    default: float = 0.0
    threshold: float = 0.5
    identity: str = "fake-entailment"
    calls: list[list[tuple[str, str]]] = field(default_factory=list)

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        self.calls.append(list(pairs))
        return [self.table.get(p, self.default) for p in pairs]


@dataclass
class FakeRetriever:
    """Passages ``(passage_id, doc_id, text)`` per query text, in rank order; honours ``allowed``."""

    hits: dict[str, list[tuple[str, str, str]]]
    identity: dict[str, Any] = field(default_factory=lambda: {"kind": "fake"})
    searches: list[tuple[list[str], int]] = field(default_factory=list)

    def search(self, queries: list[str], k: int, allowed: Allowed = None) -> list[list[Hit]]:
        self.searches.append((list(queries), k))
        out = []
        for i, q in enumerate(queries):
            ok = None if allowed is None else allowed[i]
            rows = [r for r in self.hits.get(q, []) if ok is None or r[1] in ok][:k]
            out.append(
                [Hit(pid, doc, text, float(len(rows) - r), r + 1) for r, (pid, doc, text) in enumerate(rows)]
            )
        return out


class WordEmbedder:
    """Unit vectors over a few marker words (plus a small constant, so a text without any
    still has a direction), for cosines a test can work out by hand."""

    def __init__(self, words: Sequence[str], identity: str = "words") -> None:
        self.words = [w.lower() for w in words]
        self.identity = identity

    def encode(self, texts: Sequence[str], kind: str = "query") -> Any:
        import numpy as np

        v = np.array([[float(w in t.lower()) for w in self.words] + [0.1] for t in texts])
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def fake_stack(
    *,
    llm: FakeLLM,
    entailment: FakeEntailment,
    retriever: FakeRetriever,
    candidates: FakeRetriever | None = None,
    profile: JudgeProfile | None = None,
    **profile_updates: Any,
) -> JudgeStack:
    """A :class:`JudgeStack` over the fakes; ``candidates`` serves the BM25 candidate search."""
    base = profile or load_profile("offline-smollm2-minilm-sim")
    if profile is None:  # the fake LLM stands for a judge fit for every role the profile's is not
        base = base.model_copy(update={"llm": base.llm.model_copy(update={"not_asked_for": []})})
    if profile_updates:
        base = base.model_copy(update=profile_updates)

    def factory(corpus: Any, task: Any, spec: Any) -> Any:
        return candidates if (spec.kind == "bm25" and candidates is not None) else retriever

    return JudgeStack(
        profile=base,
        llm=llm,  # type: ignore[arg-type]
        entailment=entailment,
        cache=ModelCallCache(enabled=False),
        retriever_factory=factory,
        progress=False,
    )


def alignment_reply(lines: list[tuple[int, list[int]]]) -> str:
    """The aligner's output format: one JSON line per covered aspect."""
    return "\n".join(json.dumps({"aspect": a, "claims": c}) for a, c in lines) or "NONE"
