"""lm-evaluation-harness sample logs (``--log_samples``): a line holding ``doc`` and ``resps`` /
``filtered_resps`` is a sample.  Tasks exported by ``benchmark tasks export-lm-eval`` put the
``query_id`` (and, with RAG, the setting and passage ids) in ``doc``, so a sample reads back as
an outputs row with its citations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmark.answers.citations import record
from benchmark.answers.row import OutputRow
from benchmark.core.errors import InputError, rel
from benchmark.core.results import RAGSetting


def is_lm_eval_sample(obj: Any) -> bool:
    """Whether a JSON line is an lm-eval sample rather than an outputs row (decided per line)."""
    return isinstance(obj, dict) and "doc" in obj and ("resps" in obj or "filtered_resps" in obj)


def from_sample(obj: dict[str, Any], path: Path, line: int, model_name: str | None) -> OutputRow:
    """One sample as an outputs row: the first (filtered) response is the answer, the model
    ``model_name`` or lm-eval's output folder (``ORG__NAME``)."""
    doc = obj.get("doc") or {}
    if "query_id" not in doc:
        why = "lm-eval sample has no doc.query_id (was the task exported by groundcover?)"
        raise InputError.at(rel(path), why, line=line, field="doc.query_id")
    resp: Any = obj.get("filtered_resps") or obj.get("resps")
    while isinstance(resp, list):
        if not resp:
            raise InputError.at(
                rel(path), "lm-eval sample has an empty response", line=line, field="filtered_resps"
            )
        resp = resp[0]
    model = model_name or path.parent.name.replace("__", "/")
    rag = retrieval = None
    if doc.get("rag") is not None:  # a RAG task exported by `benchmark tasks export-lm-eval --rag`
        try:
            rag = RAGSetting.model_validate(doc["rag"])
            retrieval = record(str(resp), [str(p) for p in doc.get("passages") or []])
        except (ValueError, TypeError) as exc:
            raise InputError.at(
                rel(path), f"bad RAG fields in the sample: {exc}", line=line, field="doc.rag"
            ) from exc
    return OutputRow(
        query_id=str(doc["query_id"]),
        answer=str(resp),
        model=model,
        backend="lm-eval",
        generation={"source": "lm-eval log_samples", **_lm_eval_gen_kwargs(obj.get("arguments"))},
        rag=rag,
        retrieval=retrieval,
    )


def _lm_eval_gen_kwargs(arguments: Any) -> dict[str, Any]:
    """Generation settings from a sample's ``arguments``: ``{"gen_args_0": {"arg_0": prompt,
    "arg_1": kwargs}}`` in a file, ``[[prompt, kwargs]]`` in memory."""
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        first = first.get("arg_1") if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list | tuple):
        first = arguments[0][1] if len(arguments[0]) > 1 else None
    return dict(first) if isinstance(first, dict) else {}
