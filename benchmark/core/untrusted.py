"""Reading untrusted YAML and JSON as plain data: bounded, strict, and never crashing.

Submissions are written by strangers: YAML aliases can build billions of nodes ("alias
bomb"), ``[[[[…`` overflows a recursive parser, JSON allows repeated keys and ``NaN``.  These
readers turn every such case into a :class:`ValueError` fit for the user: no anchors or
aliases, nesting at most :data:`MAX_DEPTH`, integers of at most :data:`MAX_DIGITS` digits, only
finite numbers, no repeated keys, only plain types; and strings without lone surrogates or
control characters (an ANSI escape in a model name must not repaint a terminal).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import yaml

from benchmark.core import errors

MAX_DEPTH = 32
MAX_DIGITS = 30
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")  # U+0085 is a line break
#: Zero-width and bidirectional-control characters: invisible, or reordering what is shown,
#: so a name holding one can read as another model's to a reviewer ("Trojan Source").
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)


def _refused(message: str, mark: Any) -> yaml.MarkedYAMLError:
    """The error the loader raises for what it will not read, at its place in the text."""
    return yaml.constructor.ConstructorError(None, None, message, mark)


class _DataLoader(yaml.SafeLoader):
    """The safe loader, refusing anchors, aliases, deep nesting and huge numbers."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            what = "aliases (*name)" if isinstance(event, yaml.AliasEvent) else "anchors (&name)"
            raise _refused(f"{what} are not allowed in submitted YAML", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _refused(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, (str, int, float, bool)):
                continue  # unhashable keys are refused by the safe loader itself
            if key in seen:
                raise _refused(f"the key {key!r} appears twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: Any) -> int:
        digits = re.sub(r"[^0-9a-fA-F]", "", str(node.value))
        if len(digits) > MAX_DIGITS:
            raise _refused(f"a number of more than {MAX_DIGITS} digits", node.start_mark)
        return int(super().construct_yaml_int(node))

    def construct_yaml_float(self, node: Any) -> float:
        value = float(super().construct_yaml_float(node))
        if not math.isfinite(value):
            raise _refused(f"{node.value!r} is not a finite number", node.start_mark)
        return value


def _refuse(loader: _DataLoader, node: Any) -> Any:
    raise _refused(
        f"{node.tag} values are not allowed: use plain strings, numbers, lists and mappings", node.start_mark
    )


_DataLoader.add_constructor("tag:yaml.org,2002:int", _DataLoader.construct_yaml_int)
_DataLoader.add_constructor("tag:yaml.org,2002:float", _DataLoader.construct_yaml_float)
for _tag in ("binary", "timestamp", "set", "omap", "pairs"):
    _DataLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse)


class YAMLDataError(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(text: str) -> Any:
    """Plain data from untrusted YAML; :class:`YAMLDataError` (with its line) otherwise."""
    try:
        return yaml.load(text, Loader=_DataLoader)  # a SafeLoader subclass: plain data only
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise YAMLDataError(f"invalid YAML: {exc.problem}", mark.line + 1 if mark else None) from exc
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise YAMLDataError(f"invalid YAML: {exc}", None) from exc


def yaml_key_lines(text: str) -> dict[str, int]:
    """1-based line of each top-level key, composed with the same bounded loader."""
    return errors.yaml_key_lines(text, _DataLoader)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")
    return int(text)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _depth(text: str) -> int:
    """Bracket nesting outside strings, so deep input is refused before the parser recurses
    (regular expressions and numpy: a line of 199,000 ``[`` takes milliseconds)."""
    import numpy as np

    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if len(brackets) <= MAX_DEPTH:
        return len(brackets)  # an upper bound, and below the limit
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number (it overflows to infinity)")
    return value


class JSONDataError(ValueError):
    """Valid JSON that is not plain data, with ``field`` the dotted path to the first such value."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


class Pairs(list):  # type: ignore[type-arg]
    """An object's (key, value) pairs, as written (repeats kept)."""


class _Bad:
    """A value :func:`load_json` refuses, kept in place so its path can be found."""


def bad_paths(value: Any, where: str = "") -> Iterator[str]:
    """The dotted paths of the repeated keys (and refused values) in ``value``, parsed with
    :class:`Pairs`, in document order."""
    if isinstance(value, _Bad):
        yield where
    elif isinstance(value, Pairs):
        seen: set[str] = set()
        for key, item in value:
            path = f"{where}.{key}" if where else str(key)
            if key in seen:
                yield path
            seen.add(key)
            yield from bad_paths(item, path)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from bad_paths(item, f"{where}[{i}]")


def _locate(text: str) -> str | None:
    """Where in ``text`` (valid JSON) the value :func:`load_json` refused is."""

    def number(kind: Any) -> Any:
        def parse(s: str) -> Any:
            try:
                kind(s)
            except ValueError:
                return _Bad()
            return 0

        return parse

    try:
        value = json.loads(
            text,
            object_pairs_hook=Pairs,
            parse_int=number(_bounded_int),
            parse_float=number(_finite_float),
            parse_constant=lambda _: _Bad(),
        )
    except (ValueError, RecursionError):
        return None
    return next(bad_paths(value), None) or None


def load_json(text: str) -> Any:
    """One JSON value from untrusted text; ``ValueError`` with a readable message otherwise
    (:class:`JSONDataError`, naming the field, for valid JSON that is not plain data)."""
    if _depth(text) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_int=_bounded_int,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from exc
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
    except ValueError as exc:  # a hook refused a value
        raise JSONDataError(str(exc), _locate(text)) from None


def strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every string inside ``value`` (keys too), with a dotted path to it."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            path = f"{where}.{k}" if where else str(k)
            yield path, str(k)
            yield from strings(v, path)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from strings(v, f"{where}[{i}]")


def text_problems(value: str) -> str | None:
    """Why a string cannot be accepted as text, or ``None``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid Unicode (a lone surrogate such as \\ud800)"
    if m := _CONTROL.search(value):
        return f"control character U+{ord(m.group()):04X} is not allowed (terminal escapes, NUL, …)"
    return None


def name_problems(value: str) -> str | None:
    """Why a string cannot be accepted as a name, identifier, description or contact, or
    ``None``: :func:`text_problems`, and no invisible or direction-changing characters."""
    if why := text_problems(value):
        return why
    if m := _INVISIBLE.search(value):
        return (
            f"invisible or direction-changing character U+{ord(m.group()):04X} is not allowed in names "
            "and descriptions (it can make one name read as another)"
        )
    return None


def text_field_problems(
    value: Any,
    file: str,
    line: int | None,
    lines: dict[str, int] | None = None,
    *,
    free_text: tuple[str, ...] = (),
) -> list[errors.Problem]:
    """Lone surrogates and control characters anywhere in a parsed value (keys included),
    and invisible or direction-changing characters anywhere but in the ``free_text`` fields."""
    out = []
    for where, text in strings(value):
        top = where.split(".")[0].split("[")[0]
        if why := (text_problems if top in free_text else name_problems)(text):
            out.append(errors.Problem(file, why, line if lines is None else lines.get(top), where or None))
    return out


def read_text(path: Any, *, field: str | None = None, data: bytes | None = None) -> str:
    """A user's file (or its ``data``) as UTF-8 text, else an :class:`~benchmark.core.errors.InputError`
    naming the file, the line and the byte."""
    from pathlib import Path

    raw = Path(path).read_bytes() if data is None else data
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        why = f"not UTF-8 text (byte offset {exc.start})"
        raise errors.InputError.at(errors.rel(path), why, line=line, field=field) from None


def read_rows(path: Any, flag: str | None = None, *, jsonl: bool | None = None) -> list[tuple[int, Any]]:
    """``(line, row)`` pairs of a user's CSV file (with a header) or JSON-lines file (by suffix
    unless ``jsonl`` says; ``.gz`` read gzipped), every JSON line read with :func:`load_json`;
    a bad file or line is an :class:`~benchmark.core.errors.InputError`.  Lines end at "\\n" only."""
    import csv
    import gzip
    import io
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise errors.InputError.at(errors.rel(path), "no such file", field=flag)
    raw = path.read_bytes()
    text = read_text(path, field=flag, data=gzip.decompress(raw) if path.suffix == ".gz" else raw)
    if not (jsonl if jsonl is not None else ".jsonl" in path.suffixes):
        return list(enumerate(csv.DictReader(io.StringIO(text)), start=2))
    rows = []
    for n, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                rows.append((n, load_json(line)))
            except ValueError as exc:
                raise errors.InputError.at(
                    errors.rel(path), f"not JSON: {exc}", line=n, field=getattr(exc, "field", None)
                ) from exc
    return rows
