"""Decomposing queries into typed sub-questions with an LLM (``benchmark subq generate``):
``type: question`` lines, parsed strictly and repaired, written as ``sub_questions`` rows that
name the model and prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import Any

from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

PROMPT = "subq-decompose@1"


def parse_sub_questions(
    text: str, n: int, query: str = "", copied: frozenset[str] = frozenset()
) -> list[dict[str, str]]:
    """Typed sub-questions from ``type: question`` lines; other lines are skipped, a repeated
    question is kept once, at least one must be core, and none may be a line of the
    prompt's worked example (``copied``): small models copy examples instead of decomposing."""
    out: list[dict[str, str]] = []
    for line in text.splitlines():
        m = re.match(r"^\W*(core|background|follow[- ]?up)\s*:\s*(.+)$", line.strip(), flags=re.IGNORECASE)
        if not m:
            continue
        kind = m.group(1).lower().replace(" ", "-")
        kind = "follow-up" if kind.startswith("follow") else kind
        q = " ".join(m.group(2).split())
        if len(q.split()) < 3:
            raise ValueError("each sub-question needs at least three words")
        if q.lower() in copied:
            raise ValueError(
                f"{q!r} is the example's, not about this question: write sub-questions of: {query}"
            )
        if q.lower() not in {o["text"].lower() for o in out}:
            out.append({"text": q, "type": kind})
    if not out:
        raise ValueError('no sub-question lines: start each line with "core:", "background:" or "follow-up:"')
    if not any(o["type"] == "core" for o in out):
        raise ValueError('start at least one line with "core:"')
    return out[:n]


def example_questions(prompt: Any) -> frozenset[str]:
    """The questions of the prompt's worked examples, lower-cased."""
    return frozenset(
        line.split(":", 1)[1].strip().lower()
        for _, out in prompt.examples
        for line in out.splitlines()
        if ":" in line
    )


def generate_sub_questions(
    llm: LLM, queries: Sequence[tuple[str, str]], *, n: int = 6, max_retries: int = 2
) -> tuple[list[dict[str, Any]], list[str]]:
    """``sub_questions`` rows for ``(query_id, text)`` pairs, and the queries that failed."""
    prompt = load_prompt(PROMPT)
    outs = run_structured(
        llm,
        [prompt.render(query=text, n=n) for _, text in queries],
        [
            partial(parse_sub_questions, n=n, query=text, copied=example_questions(prompt))
            for _, text in queries
        ],
        max_retries=max_retries,
        max_new_tokens=int(prompt.meta.get("max_new_tokens", 256)),
    )
    rows, failures = [], []
    for (qid, _), out in zip(queries, outs, strict=True):
        if not out.ok:
            failures.append(f"query {qid}: {out.error}")
            continue
        for k, sq in enumerate(out.value or [], start=1):
            rows.append({"query_id": qid, "sub_question_id": f"{qid}/s{k}", **sq})
    return rows, failures
