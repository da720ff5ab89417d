"""ConQRet's LLM judges: their prompts (data files) and strict parsers, which raise ``ValueError``
(retried with a repair) or :class:`Partial`, carrying the usable parts of a multi-part reply
(a dimension never rated is missing, not the scale's minimum).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from benchmark.core.text import bullet_text
from benchmark.families.arguments.formulas import (
    CONTEXT_JUDGES,
    DIMENSIONS,
    JOINT_JUDGES,
    QUALITY_JUDGES,
    QUALITY_SCALE,
    RATING_SCALE,
)
from benchmark.models.prompts import Prompt, load_prompt

__all__ = ["CONTEXT_JUDGES", "JOINT_JUDGES", "QUALITY_JUDGES"]  # the judges' names live in formulas
RAG_KEYS = ("context_relevance", "answer_relevance", "answer_groundedness")

PROMPTS = {
    "listwise": "argument-quality-listwise@1",
    "pointwise": "argument-quality-pointwise@1",
    "direct": "context-direct@1",
    "fine_grained": "context-criteria@1",
    "geval_steps": "context-geval-steps@1",
    "geval": "context-geval@1",
    "rubric_items": "context-rubric-items@1",
    "query_rubric": "context-rubric@1",
    "rag_direct": "rag-direct@1",
    "rag_rubric": "rag-rubric@1",
    "listwise_rag": "listwise-rag@1",
    "listwise_rag_fg": "listwise-rag-fg@1",
}


class Partial(ValueError):
    """An unusable reply that still held some usable parts (``found``)."""

    def __init__(self, message: str, found: Mapping[str, Any]) -> None:
        super().__init__(message)
        self.found = dict(found)


@cache
def definitions() -> dict[str, str]:
    """The dimensions' definitions, kept with the Listwise prompt's text."""
    defs = dict(load_prompt(PROMPTS["listwise"]).meta["dimensions"])
    missing = [d for d in DIMENSIONS if d not in defs]
    if missing:
        raise ValueError(f"{PROMPTS['listwise']} defines no {missing}")
    return defs


def dimension_block(order: Sequence[str] = DIMENSIONS) -> str:
    defs = definitions()
    return "\n".join(f"{i}. {d}: {defs[d]}" for i, d in enumerate(order, start=1))


def example_json(keys: Sequence[str], value: Any = 2) -> str:
    """A short example of the expected object: the first two keys, then an ellipsis."""
    return "{" + ", ".join(f'"{k}": {json.dumps(value)}' for k in keys[:2]) + ", ...}"


def documents_block(docs: Sequence[str]) -> str:
    return "\n\n".join(f"[{i}] {' '.join(t.split())}" for i, t in enumerate(docs, start=1)) or "(none)"


# -- parsing ---------------------------------------------------------------------------


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a reply (code fences and surrounding prose allowed)."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in the reply")
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg}") from exc
    if not isinstance(obj, dict):
        raise ValueError("the reply's JSON is not an object")
    return {_key(k): v for k, v in obj.items()}


def _number(value: Any, scale: tuple[int, int]) -> float:
    """A rating: a number (or a numeric string, or an object with a rating/score) on ``scale``."""
    if isinstance(value, dict):
        value = next((value[k] for k in ("rating", "score", "value") if k in value), None)
    if isinstance(value, bool) or value is None:
        raise ValueError(f"not a rating: {value!r}")
    try:
        num = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a rating: {value!r}") from exc
    lo, hi = scale
    if not lo <= num <= hi or not num.is_integer():
        raise ValueError(f"rating {value!r} is not a whole number from {lo} to {hi}")
    return num


def ratings(obj: Mapping[str, Any], keys: Sequence[str], scale: tuple[int, int]) -> dict[str, float]:
    """Every key's rating; :class:`Partial` when some are missing or out of range."""
    found, problems = {}, []
    for key in keys:
        if key not in obj:
            problems.append(f"no rating for {key}")
            continue
        try:
            found[key] = _number(obj[key], scale)
        except ValueError as exc:
            problems.append(f"{key}: {exc}")
    if problems:
        raise Partial(
            "; ".join(problems[:4]) + (f" (+{len(problems) - 4} more)" if len(problems) > 4 else ""), found
        )
    return found


_PAIR = re.compile(r'"([^"\n]{1,60})"\s*:\s*(-?\d+(?:\.\d+)?)')


def salvage(text: str, keys: Sequence[str], scale: tuple[int, int]) -> dict[str, float]:
    """The first on-scale ``"key": number`` pair per key of a reply that is not valid JSON."""
    found: dict[str, float] = {}
    for m in _PAIR.finditer(text):
        key = _key(m.group(1))
        if key in keys and key not in found:
            try:
                found[key] = _number(m.group(2), scale)
            except ValueError:
                continue
    return found


def parse_quality(text: str, order: Sequence[str] = DIMENSIONS) -> dict[str, float]:
    """Listwise: all 15 dimensions, 1-3.  A reply that is not JSON is unusable, but the
    ratings it does hold are kept as its usable part (:class:`Partial`)."""
    try:
        obj = json_object(text)
    except ValueError as exc:
        raise Partial(str(exc), salvage(text, order, QUALITY_SCALE)) from exc
    return ratings(obj, order, QUALITY_SCALE)


_SCORE = re.compile(r"(?:score|rating)\s*[:=]?\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)


def parse_score(text: str, scale: tuple[int, int]) -> float:
    """``Score: N`` / ``Rating: N`` (or a reply that is only the number) on ``scale``."""
    m = _SCORE.search(text)
    if m is None:
        bare = text.strip().rstrip(".")
        if not re.fullmatch(r"-?\d+(?:\.\d+)?", bare):
            raise ValueError('expected "Score: <number>"')
        return _number(bare, scale)
    return _number(m.group(1), scale)


def parse_criteria(text: str, criteria: Sequence[str]) -> dict[str, bool]:
    """Fine-grained: every criterion true or false (JSON booleans or the words)."""
    obj = json_object(text)
    scores = obj.get("scores", obj)
    if not isinstance(scores, dict):
        raise ValueError('"scores" is not an object')
    scores = {_key(k): v for k, v in scores.items()}
    found, problems = {}, []
    for c in criteria:
        v = scores.get(c)
        if isinstance(v, str) and v.strip().lower() in ("true", "false"):
            v = v.strip().lower() == "true"
        if isinstance(v, bool):
            found[c] = v
        else:
            problems.append(f"{c}: {'missing' if v is None else f'not true/false: {v!r}'}")
    if problems:
        raise Partial("; ".join(problems), found)
    return found


def parse_items(text: str, at_least: int = 3, at_most: int = 20) -> list[str]:
    """Generated lines (G-Eval steps, rubric items): ``- `` bullets, repeats dropped."""
    items: list[str] = []
    for line in text.splitlines():
        item = bullet_text(line)
        if item and item.lower() not in (i.lower() for i in items):
            items.append(item)
    if len(items) < at_least:
        raise ValueError(f'expected at least {at_least} lines starting with "- ", got {len(items)}')
    return items[:at_most]


_ITEM_RATING = re.compile(r"^\s*(\d{1,2})\s*[:.)-]\s*(\d)\s*$")


def parse_item_ratings(text: str, n: int) -> dict[str, float]:
    """``<number>: <rating>`` lines for items 1..n; :class:`Partial` when some are missing."""
    found: dict[str, float] = {}
    bad: list[str] = []
    for line in text.splitlines():
        m = _ITEM_RATING.match(line)
        if m and 1 <= int(m.group(1)) <= n and m.group(1) not in found:
            try:
                found[m.group(1)] = _number(m.group(2), RATING_SCALE)
            except ValueError as exc:
                bad.append(f"item {m.group(1)}: {exc}")
    missing = [str(i) for i in range(1, n + 1) if str(i) not in found]
    if missing:
        raise Partial("; ".join([*bad, f"no usable rating for item(s) {', '.join(missing[:8])}"]), found)
    return found


def _rated(obj: Mapping[str, Any], *keys: str) -> tuple[float, ...]:
    """The ratings (1-5) of ``keys`` in an object whose keys are not yet normalised."""
    obj = {_key(k): v for k, v in obj.items()}
    return tuple(_number(obj.get(k), RATING_SCALE) for k in keys)


def _pair(obj: Mapping[str, Any], key: str) -> tuple[float, ...]:
    v = obj.get(key)
    if not isinstance(v, dict):
        raise ValueError(f"{key}: expected {{'argument_1': n, 'argument_2': n}}")
    return _rated(v, "argument_1", "argument_2")


def _winner(value: Any) -> str:
    """'1', '2' or 'tie' from "Argument 1" / "2" / "Tie" / "both"."""
    s = str(value).strip().lower()
    if s in ("tie", "both", "equal", "neither"):
        return "tie"
    m = re.fullmatch(r"(?:argument\s*)?([12])", s)
    if not m:
        raise ValueError(f"preference {value!r} is not Argument 1, Argument 2 or Tie")
    return m.group(1)


@dataclass(frozen=True)
class PairVerdict:
    """RAG-Direct's reply, by argument position (1, 2)."""

    context_relevance: tuple[float, float]
    answer_relevance: tuple[float, float]
    answer_groundedness: tuple[float, float]
    preference: str  # "1", "2" or "tie"


def parse_rag_direct(text: str) -> PairVerdict:
    obj = json_object(text)
    pairs = {k: _pair(obj, k) for k in RAG_KEYS}
    return PairVerdict(**pairs, preference=_winner(obj.get("preference", obj.get("argument_preference"))))


@dataclass(frozen=True)
class RubricVerdict:
    """RAG-Rubric's reply: per query key point (documents, arg 1, arg 2, better) and per
    document key point (arg 1, arg 2)."""

    key_points: tuple[tuple[float, float, float, str], ...]
    document_points: tuple[tuple[str, float, float], ...]


def parse_rag_rubric(text: str, n_items: int) -> RubricVerdict:
    obj = json_object(text)
    kps, dps = obj.get("key_points"), obj.get("document_points")
    if not isinstance(kps, list) or not isinstance(dps, list):
        raise ValueError('expected lists "key_points" and "document_points"')
    key_points = []
    for i, kp in enumerate(kps[:n_items], start=1):
        if not isinstance(kp, dict):
            raise ValueError(f"key point {i} is not an object")
        kp = {_key(k): v for k, v in kp.items()}
        key_points.append((*_rated(kp, "documents", "argument_1", "argument_2"), _winner(kp.get("better"))))
    if len(key_points) < n_items:
        raise ValueError(f"{n_items} key points were given, {len(key_points)} rated")
    doc_points = []
    for i, dp in enumerate(dps, start=1):
        if not isinstance(dp, dict):
            raise ValueError(f"document point {i} is not an object")
        dp = {_key(k): v for k, v in dp.items()}
        doc_points.append((str(dp.get("point", "")), *_rated(dp, "argument_1", "argument_2")))
    if not doc_points:
        raise ValueError("no document key points")
    return RubricVerdict(tuple(key_points), tuple(doc_points))


def parse_listwise_rag(text: str, n_docs: int | None = None) -> dict[str, Any]:
    """Listwise+RAG (``n_docs`` None: one context rating) or its Fine-Grained form (a list
    of ``n_docs`` ratings): the RAG ratings (1-5) and the 15 dimensions (1-3)."""
    try:
        obj = json_object(text)
    except ValueError as exc:
        found: dict[str, Any] = salvage(text, RAG_KEYS[1:], RATING_SCALE)
        raise Partial(str(exc), found | salvage(text, DIMENSIONS, QUALITY_SCALE)) from exc
    found: dict[str, Any] = {}
    problems = []
    try:
        found.update(ratings(obj, RAG_KEYS[1:], RATING_SCALE))
    except Partial as exc:
        found.update(exc.found)
        problems.append(str(exc))
    ctx = obj.get("context_relevance")
    try:
        if n_docs is None:
            found["context_relevance"] = _number(ctx, RATING_SCALE)
        else:
            if not isinstance(ctx, list) or len(ctx) != n_docs:
                raise ValueError(f"context_relevance: expected a list of {n_docs} ratings")
            found["context_relevance"] = [_number(v, RATING_SCALE) for v in ctx]
    except ValueError as exc:
        problems.append(str(exc))
    try:
        found.update(ratings(obj, DIMENSIONS, QUALITY_SCALE))
    except Partial as exc:
        found.update(exc.found)
        problems.append(str(exc))
    if problems:
        raise Partial("; ".join(problems), found)
    return found


def prompt(judge: str) -> Prompt:
    return load_prompt(PROMPTS[judge])
