"""Errors that tell the user exactly where their input is wrong: every input problem is an
:class:`InputError` naming the file, the line or row (1-based) and the field.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Problem:
    """One thing wrong with one place in one file."""

    file: str
    message: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.field is not None:
            where += f", field '{self.field}'"
        return printable(f"{where}: {self.message}")


class InputError(ValueError):
    """Raised with every problem found, not only the first."""

    def __init__(self, problems: list[Problem] | Problem, *, limit: int = 20) -> None:
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        shown = [str(p) for p in self.problems[:limit]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))

    @classmethod
    def at(cls, file: str, message: str, *, line: int | None = None, field: str | None = None) -> InputError:
        """The error of one problem, the usual case, in one call."""
        return cls(Problem(file, message, line=line, field=field))


def usage_error(message: str, flag: str | None = None) -> InputError:
    """A mistake on the command line, naming the flag (or argument) it is in."""
    return InputError.at("command line", message, field=flag)


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # a problem prints as one line


def printable(text: str) -> str:
    """``text`` with control and invisible format characters (category Cf: bidirectional
    controls, zero-width spaces) shown as escapes: an ANSI sequence or a right-to-left
    override in a file name is reported, never obeyed, by the terminal."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # undecodable file-name bytes
    text = _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    if text.isascii():
        return text
    return "".join(_escape(c) if unicodedata.category(c) == "Cf" else c for c in text)


def _escape(c: str) -> str:
    """A character as Python writes it in a string literal: ``\\u202e``, ``\\U000e0041``."""
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


def rel(path: Path | str) -> str:
    """Path as shown to users: relative to the working directory when possible."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def yaml_key_lines(text: str, loader: Any = None) -> dict[str, int]:
    """1-based line of each top-level key of a YAML mapping, composed with ``loader``
    (default: the safe loader); text it refuses has no line map."""
    import yaml

    try:
        node = yaml.compose(text, Loader=loader or yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(k.value): k.start_mark.line + 1 for k, _ in node.value}


def field_problems(exc: Any, file: str, text: str) -> list[Problem]:
    """A pydantic ``ValidationError`` of a YAML file's mapping (``text``), one problem per
    error, each naming the file, the line of its top-level key and the field's path."""
    lines = yaml_key_lines(text)
    return [
        Problem(
            file,
            e["msg"],
            line=lines.get(str(e["loc"][0])) if e["loc"] else None,
            field=".".join(str(x) for x in e["loc"]) or None,
        )
        for e in exc.errors()
    ]


class IncompleteResults(RuntimeError):
    """Results were written, but some are not final: a judge failed on more queries than
    ``--max-failure-rate`` allows.  Not an input error: re-running completes them (exit 3)."""

    exit_status = 3

    def __init__(self, incomplete: list[tuple[str, list[str]]], *, written: bool = True) -> None:
        self.incomplete = incomplete
        shown = "; ".join(f"{path}: {', '.join(reasons)}" for path, reasons in incomplete)
        n = len(incomplete)
        what = (
            f"{n} result{'s are' if n > 1 else ' is'} incomplete and kept off every board"
            if written
            else f"{n} result{'s were' if n > 1 else ' was'} not scored"
        )
        super().__init__(
            f"{what} ({shown}); re-run the same command once the judge is back (finished queries are kept and "
            "only the missing ones are asked again), with --retry-failed (retry_failed=True) to ask it again "
            "where its replies could not be used; a deterministic judge gives the same reply again: then "
            "change the judge, its prompt or --max-failure-rate"
        )
