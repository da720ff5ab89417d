"""Drafting an exam from a query's aspects with an LLM (``benchmark exam generate``): one request
per aspect, parsed strictly and repaired; every question records ``generated: <model>
<prompt@version>``, and an aspect whose replies stay unusable is reported.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from benchmark.families.exam.bank import Bank, ExamQuestion
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

PROMPT = "exam-generate@1"


def parse_questions(text: str, n: int) -> list[dict[str, Any]]:
    """``n`` (or fewer, at least one) multiple-choice questions from JSON lines."""
    out = []
    for line in text.splitlines():
        line = line.strip().strip(",")
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"a line is not valid JSON: {exc.msg}") from exc
        options = obj.get("options")
        if not isinstance(obj.get("question"), str) or not obj["question"].strip():
            raise ValueError('each line needs a "question" string')
        if not (
            isinstance(options, list) and len(options) == 4 and len({str(o).strip() for o in options}) == 4
        ):
            raise ValueError('each line needs "options": four different strings')
        if str(obj.get("answer", "")).strip() not in {str(o).strip() for o in options}:
            raise ValueError('"answer" must be copied exactly from the options')
        out.append(
            {
                "question": obj["question"].strip(),
                "options": [str(o).strip() for o in options],
                "answer": str(obj["answer"]).strip(),
            }
        )
    if not out:
        raise ValueError("no question lines: reply with one JSON object per line")
    return out[:n]


def draft_bank(
    llm: LLM, queries: pd.DataFrame, aspects: pd.DataFrame, *, per_aspect: int = 2, max_retries: int = 2
) -> tuple[Bank, list[str]]:
    prompt = load_prompt(PROMPT)
    jobs = [
        (str(q.query_id), str(q.text), str(a.aspect_id), str(a.text))
        for q in queries.itertuples()
        for a in aspects[aspects["query_id"].astype(str) == str(q.query_id)].itertuples()
    ]
    outs = run_structured(
        llm,
        [prompt.render(query=text, aspect=aspect, n=per_aspect) for _, text, _, aspect in jobs],
        lambda t: parse_questions(t, per_aspect),
        max_retries=max_retries,
        max_new_tokens=int(prompt.meta.get("max_new_tokens", 320)),
    )
    provenance = f"generated: {getattr(llm, 'identity', type(llm).__name__)} {prompt.id}"
    bank: Bank = {}
    failures = []
    for (qid, _, aid, _), out in zip(jobs, outs, strict=True):
        if not out.ok:
            failures.append(f"query {qid} aspect {aid}: {out.error}")
            continue
        for k, q in enumerate(out.value or []):
            bank.setdefault(qid, []).append(
                ExamQuestion(
                    query_id=qid,
                    question_id=f"{qid}/gen-{aid}-{k + 1}",
                    question=q["question"],
                    kind="multiple-choice",
                    options=tuple(q["options"]),
                    answer=q["answer"],
                    facet_id=aid,
                    provenance=provenance,
                )
            )
    return bank, failures
