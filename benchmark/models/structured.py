"""Strict structured output from an LLM: parse, repair, retry, record the failure.

An unusable reply (one the parser refuses, or a copy of a worked example:
:mod:`benchmark.models.example_copies`) gets a repair turn; after ``max_retries`` it is an
:class:`Outcome` with ``ok=False`` and every raw reply kept, recorded as a failure, never as
a zero.  Self-consistency: :func:`sample_structured`, reduced by :func:`majority` / :func:`mean`.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from benchmark.models import example_copies
from benchmark.models.cache import bound
from benchmark.models.llm import LLM, PENDING_REPLY, LLMUnavailable, Messages

T = TypeVar("T")

PENDING_ERROR = "not known before the run (dry run)"
#: what a request the backend could not answer at all is recorded as
UNAVAILABLE_ERROR = "backend unavailable"

_unreachable: ContextVar[list[str] | None] = ContextVar("groundcover_unreachable", default=None)


def watch_unreachable() -> AbstractContextManager[list[str]]:
    """Collect, while the block runs, every time the judge gave no reply at all: a failure a
    re-run can mend, unlike a reply that could not be used (a family's trace cannot tell)."""
    seen: list[str] = []
    return bound(_unreachable, seen)


REPAIR_INSTRUCTION = (
    "Your reply could not be used: {error}. Reply again, in exactly the requested format and nothing else."
)


@dataclass
class Outcome(Generic[T]):
    """One request's parsed value, or the failure with every raw reply kept for inspection."""

    value: T | None
    ok: bool
    raw: list[str] = field(default_factory=list)
    error: str | None = None
    attempts: int = 0
    #: positions in ``raw`` of the replies refused for reproducing a worked example
    copied: list[int] = field(default_factory=list)
    #: the accepted reply's ratings and labels equal an example's (counted, never refused)
    matched_example: bool = False

    @property
    def copies(self) -> int:
        """Replies refused as copies of a worked example (each retried, then a failure)."""
        return len(self.copied)


def run_structured(
    llm: LLM,
    messages: Sequence[Messages],
    parse: Callable[[str], T] | Sequence[Callable[[str], T]],
    *,
    max_retries: int = 2,
    **gen_kw: Any,
) -> list[Outcome[T]]:
    """Generate, parse strictly, repair and retry; one :class:`Outcome` per request.  ``parse``
    (one, or one per request) raises ``ValueError`` on unusable output; each round is one
    batched ``generate`` call, and items the backend cannot answer fail with the error."""
    parsers = list(parse) if isinstance(parse, Sequence) else [parse] * len(messages)
    if len(parsers) != len(messages):
        raise ValueError("one parser per request is needed")
    outcomes: list[Outcome[T]] = [Outcome(value=None, ok=False) for _ in messages]
    convo = [list(m) for m in messages]
    examples = [example_copies.example_outputs(m) for m in messages]
    requests = [
        example_copies.request_text(m) if ex else "" for m, ex in zip(messages, examples, strict=True)
    ]
    pending = list(range(len(messages)))
    for _ in range(max_retries + 1):
        if not pending:
            break
        replies, pending = _generate_surviving(llm, convo, pending, outcomes, gen_kw)
        still = []
        for i, reply in zip(pending, replies, strict=True):
            out = outcomes[i]
            if reply == PENDING_REPLY:  # a dry run: the reply is not known before the run
                out.error = PENDING_ERROR
                continue
            out.raw.append(reply)
            out.attempts += 1
            try:
                copy = example_copies.copied(reply, examples[i], requests[i]) if examples[i] else None
                if copy is not None:
                    out.copied.append(len(out.raw) - 1)
                    raise ValueError(f"{example_copies.COPY_ERROR} ({copy})")
                out.value, out.ok, out.error = parsers[i](reply), True, None
                out.matched_example = bool(examples[i]) and example_copies.matches(reply, examples[i])
            except ValueError as exc:
                out.error = str(exc)
                convo[i] = [
                    *convo[i],
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": REPAIR_INSTRUCTION.format(error=exc)},
                ]
                still.append(i)
        pending = still
    for out in outcomes:  # a failure that began with a copy says so, whatever its last reply did
        if not out.ok and out.copies and example_copies.COPY_ERROR not in (out.error or ""):
            replies = "reply" if out.copies == 1 else "replies"
            out.error = f"{out.error} (after {out.copies} {replies} refused: {example_copies.COPY_ERROR})"
    return outcomes


def _generate_surviving(
    llm: LLM, convo: list[Messages], pending: list[int], outcomes: list[Outcome[Any]], gen_kw: dict[str, Any]
) -> tuple[list[str], list[int]]:
    """Replies for the pending items, dropping (as failed) those the backend cannot answer."""
    while pending:
        try:
            return llm.generate([convo[i] for i in pending], **gen_kw), pending
        except LLMUnavailable as exc:
            failed = set(range(len(pending)) if exc.failed is None else exc.failed)
            if (seen := _unreachable.get()) is not None:
                seen.append(str(exc))
            for pos in failed:
                outcomes[pending[pos]].error = f"{UNAVAILABLE_ERROR}: {exc}"
                outcomes[pending[pos]].attempts += 1
            pending = [i for pos, i in enumerate(pending) if pos not in failed]
    return [], []


def sample_structured(
    llm: LLM,
    messages: Sequence[Messages],
    parse: Callable[[str], T],
    n: int,
    *,
    temperature: float = 0.7,
    max_retries: int = 2,
    **gen_kw: Any,
) -> list[list[Outcome[T]]]:
    """:func:`run_structured` ``n`` times with seeds 0..n-1; ``[request][sample]``."""
    rounds = [
        run_structured(
            llm, messages, parse, max_retries=max_retries, temperature=temperature, seed=s, **gen_kw
        )
        for s in range(n)
    ]
    return [list(col) for col in zip(*rounds, strict=True)] if rounds else [[] for _ in messages]


def _values(items: Sequence[Any]) -> list[Any]:
    """Plain values, or the values of the successful :class:`Outcome` objects."""
    return [x.value for x in items if x.ok] if items and isinstance(items[0], Outcome) else list(items)


def majority(values: Sequence[Any]) -> Any:
    """Most common value (ties: first seen) of values or Outcomes (failures skipped); ``None``
    when nothing usable was sampled."""
    counts = Counter(_values(values))
    return max(counts, key=counts.__getitem__) if counts else None


def mean(values: Sequence[Any]) -> float | None:
    """Mean of numeric samples (values or Outcomes, failures skipped); ``None`` if none."""
    nums = [float(v) for v in _values(values) if v is not None]
    return statistics.fmean(nums) if nums else None
