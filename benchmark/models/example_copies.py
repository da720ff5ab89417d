"""Replies that reproduce the prompt's worked example instead of answering.

Such a reply parses, so without this check it would be scored as a judgement.  A **copy**
(:func:`copied`) is unusable: :func:`benchmark.models.structured.run_structured` asks again,
then records a failure.  A **match** (:func:`matches`: ratings or labels equal an example's)
is only counted, except where :func:`refusing_label_copies` refuses a short label's copy.
The rules and why: docs/judge-profiles.md, "Replies that copy a worked example".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

#: a free-text part has at least this many words, one of them with a letter; shorter
#: values are labels ("yes", "B") and digits are ratings ("1: 5", "[2] > [1]")
FREE_TEXT_WORDS = 2
#: a part of a longer reply counts as copied only from this many words up: two-word
#: phrases ("330 metres") recur by chance, whole sentences do not
COPIED_PART_WORDS = 4

#: a whole-reply copy of an example with no free text needs this many ratings or labels
DISTINCTIVE_VALUES = 4

COPY_ERROR = "the reply reproduces the prompt's worked example instead of answering for this input"

T = TypeVar("T")

_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_KEY = re.compile(r"^\s*([A-Za-z][\w \-]{0,30}?)\s*:\s*(.+)$")


def normalise(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .;,")


def example_outputs(messages: Sequence[dict[str, str]]) -> list[str]:
    """The worked examples' outputs: the assistant turns before the request's last user turn."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return [m["content"] for m in messages[:last_user] if m.get("role") == "assistant"]


def request_text(messages: Sequence[dict[str, str]]) -> str:
    """The input being answered (the last user turn), normalised."""
    return normalise(next((m["content"] for m in reversed(messages) if m.get("role") == "user"), ""))


def _json_values(text: str) -> list[Any] | None:
    """The reply as JSON (one document, or one per line), or ``None`` when it is not JSON."""
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        return [json.loads(ln) for ln in lines] if lines else None
    except ValueError:
        return None


@lru_cache(maxsize=1024)
def _flat(text: str) -> dict[str, Any] | None:
    """A JSON reply's scalar values by their path (``{"a": {"b": 1}}`` -> ``{"#0.a.b": 1}``;
    strings lowercased), or ``None`` when it is not JSON.  Cached: a prompt's few examples
    are compared with every reply.  Callers must not change the mapping."""
    if (parsed := _json_values(text)) is None:
        return None
    out: dict[str, Any] = {}

    def walk(v: Any, path: str) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{path}.{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]")
        else:
            out[path] = v.lower().strip() if isinstance(v, str) else v

    for i, v in enumerate(parsed):
        walk(v, f"#{i}")
    return out


def _lines(text: str) -> list[tuple[str | None, str]]:
    """A text reply's lines as (key, value): list markers dropped, a short "Key:" split off."""
    out = []
    for line in text.splitlines():
        line = _MARKER.sub("", line)
        key = _KEY.match(line)
        out.append((key.group(1), key.group(2)) if key else (None, line))
    return out


def _is_free(part: str) -> bool:
    return len(part.split()) >= FREE_TEXT_WORDS and any(c.isalpha() for c in part)


def free_text(text: str) -> set[str]:
    """The reply's free-text parts (normalised): JSON string values, else each line's value
    (list markers and a short "Key:" dropped), of at least :data:`FREE_TEXT_WORDS` words."""
    flat = _flat(text)
    parts = (
        [v for v in flat.values() if isinstance(v, str)] if flat is not None else [v for _, v in _lines(text)]
    )
    return {p for p in map(normalise, parts) if _is_free(p)}


def values(text: str) -> int:
    """How many ratings and labels the reply holds: JSON scalars, else the lines' values
    (comma-separated ones counted one by one)."""
    if (flat := _flat(text)) is not None:
        return len(flat)
    return sum(len([x for x in value.split(",") if x.strip()]) for _, value in _lines(text))


_WORD = re.compile(r"[^\W\d_]{3,}")


def _foreign(parts: set[str], request: str) -> set[str]:
    """The parts the request does not already say: a part is the request's own when it is
    in it, or when every word of it (three letters or more) is (a real input about Marie
    Curie may be decomposed into "Marie Curie won Nobel Prizes" as an example is)."""
    words = set(_WORD.findall(request))
    return {p for p in parts if p not in request and not set(_WORD.findall(p)) <= words}


def _distinctive(example: str, foreign: set[str]) -> bool:
    return bool(foreign) or values(example) >= DISTINCTIVE_VALUES


def distinctive(example: str, request: str) -> bool:
    """Whether returning ``example`` whole, for ``request``, can only be a copy."""
    return _distinctive(example, _foreign(free_text(example), request))


def skeleton(text: str) -> str:
    """The reply with its free text blanked: what is left is its ratings and labels."""
    if (values := _json_values(text)) is not None:

        def blank(v: Any) -> Any:
            if isinstance(v, str):
                return "…" if _is_free(v) else v.lower().strip()
            if isinstance(v, dict):
                return {k: blank(x) for k, x in v.items()}
            if isinstance(v, list):
                return [blank(x) for x in v]
            return v

        return json.dumps([blank(v) for v in values], sort_keys=True)
    out = []
    for key, value in _lines(text):
        value = "…" if _is_free(normalise(value)) else normalise(value)
        out.append(f"{normalise(key)}: {value}" if key is not None else value)
    return "\n".join(x for x in out if x)


def copied(reply: str, examples: Sequence[str], request: str) -> str | None:
    """What the reply copied from an example (``None``: nothing; ``request``: the normalised
    input, which a reply may repeat).  A JSON reply whose every value (at least
    :data:`DISTINCTIVE_VALUES` of them) is the example's is a copy even when it leaves some out."""
    whole = normalise(reply)
    mine = free_text(reply)
    flat = _flat(reply)
    for example in examples:
        theirs = _foreign(free_text(example), request)
        if whole == normalise(example) and _distinctive(example, theirs):
            return "the whole reply"
        theirs_flat = _flat(example)
        if (
            flat is not None
            and theirs_flat is not None
            and len(flat) >= DISTINCTIVE_VALUES
            and all(k in theirs_flat and theirs_flat[k] == v for k, v in flat.items())
        ):
            return f"{len(flat)} of the example's values"
        if shared := sorted(p for p in mine & theirs if len(p.split()) >= COPIED_PART_WORDS):
            return repr(shared[0][:80])
    return None


def matches(reply: str, examples: Sequence[str]) -> bool:
    """Whether the reply's ratings and labels equal an example's (its wording aside).  Only
    a vector of two or more counts: a one-word label ("yes") equals some example's by design."""
    if values(reply) < 2:
        return False
    mine = skeleton(reply)
    return any(mine == skeleton(example) for example in examples)


def label_copy(reply: str, examples: Sequence[str], request: str = "") -> bool:
    """Whether the reply is one of the examples' outputs whole, case and whitespace aside,
    however short — unless the example's free text is the request's own (a passage that
    does say the tower is 330 metres may be rated as the example is)."""
    mine = normalise(reply)
    for example in examples:
        if mine and mine == normalise(example):
            own = free_text(example)
            if not own or _foreign(own, request):
                return True
    return False


def refusing_label_copies(
    parse: Callable[[str], T], examples: Sequence[str], request: str = ""
) -> Callable[[str], T]:
    """``parse``, refusing a reply that is an example's output whole (:func:`label_copy`)
    with :data:`COPY_ERROR`."""

    def strict(reply: str) -> T:
        if label_copy(reply, examples, request):
            raise ValueError(f"{COPY_ERROR} (the example's whole reply, {normalise(reply)!r})")
        return parse(reply)

    return strict
