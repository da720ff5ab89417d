"""The metric-family registry: names until a family is asked for.

The CLI (``--metrics``, each family's options), the runner, result files, the leaderboard
and the Space ask :data:`REGISTRY` for families; none of them names one.  So do the layers
below the families: the task layer asks for the tables a card's families declare, the
prompt loader for the folder a family keeps its prompts in.  A family comes from one of
two places, and is a ``"module:object"`` name until first asked for (as lm-eval's
registry holds its models), so importing any module registers nothing and loads no family:

* :data:`BUILTIN`, the families that ship with groundcover;
* any installed distribution that declares an entry point in the ``groundcover.families``
  group (``toy = "toy_family:TOY"``): a family written as a package of its own, with no
  edit inside ``benchmark/`` (CONTRIBUTING.md, "Adding a metric family").

A plug-in is checked completely when it is loaded, and refused in one line naming its
entry point when anything is wrong: it fails to import (whatever it raises, ``SystemExit``
included; what it prints is bounded), it is not a :class:`MetricFamily`, its id is not its
entry point's name or is a built-in's, another plug-in declares the same id (both are
refused: neither wins by load order), or its flags, tables or prompt files clash with
another family's.  A refused plug-in never takes the built-in families down with it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import io
import logging
import threading
from collections.abc import Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from benchmark.core import paths
from benchmark.core.family import MetricFamily
from benchmark.core.schema import SHARED

log = logging.getLogger(__name__)

#: the entry point group an outside package registers its family in
ENTRY_POINT_GROUP = "groundcover.families"

#: the families that ship with groundcover, in the order boards list them
BUILTIN: dict[str, str] = {
    "icat": "benchmark.families.icat.family:ICAT",
    "exam": "benchmark.families.exam.family:EXAM",
    "subq": "benchmark.families.subq.family:SUBQ",
    "nuggets": "benchmark.families.nuggets.family:NUGGETS",
    "attribution": "benchmark.families.attribution.family:ATTRIBUTION",
    "arguments": "benchmark.families.arguments.family:ARGUMENTS",
    "decompscore": "benchmark.families.decompscore.family:DECOMPSCORE",
}

#: what a plug-in may print while it imports before the rest is dropped (lines, characters)
PRINT_LINES, PRINT_CHARS = 20, 4000
#: how much of a failing plug-in's error message its one-line refusal quotes
MESSAGE_CHARS = 300


class Refused(Exception):
    """A plug-in that is not registered, in one line naming its entry point."""


class _Bounded(io.StringIO):
    """A stream that keeps the first lines written to it and counts the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def write(self, text: str) -> int:
        room = PRINT_CHARS - self.tell()
        if room > 0 and self.lines < PRINT_LINES:
            kept = "".join(text.splitlines(keepends=True)[: PRINT_LINES - self.lines])
            super().write(kept[:room])
        self.lines += text.count("\n")
        return len(text)


def _one_line(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MESSAGE_CHARS else flat[: MESSAGE_CHARS - 1] + "…"


def _package(module: str) -> str:
    """The package a family's modules live in: the named module's, or the module itself
    where it is a package (``toy_family:TOY`` defined in ``toy_family/__init__.py``)."""
    spec = importlib.util.find_spec(module)
    return module if spec is not None and spec.submodule_search_locations else module.rpartition(".")[0]


def prompt_folder(family: MetricFamily) -> Path | None:
    """The family's own prompts: ``prompts/`` in its package (package data)."""
    spec = importlib.util.find_spec(family.package) if family.package else None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    folder = Path(roots[0]) / "prompts" if roots else None
    return folder if folder is not None and folder.is_dir() else None


class Registry(Mapping[str, MetricFamily]):
    """Family id -> :class:`MetricFamily`, each loaded when first asked for.

    Iterating yields the built-in families in their order, then every plug-in that passes
    its checks (by name); asking for a plug-in loads and checks them all, since a plug-in is
    only valid beside the others.  Refusals are logged once and kept in :attr:`errors`."""

    def __init__(self, builtin: Mapping[str, str] = BUILTIN, group: str = ENTRY_POINT_GROUP) -> None:
        self.builtin = dict(builtin)
        self.group = group
        self._loaded: dict[str, MetricFamily] = {}
        self._plugins: dict[str, MetricFamily] | None = None
        self._errors: list[str] = []
        self._lock = threading.RLock()

    # -- the mapping ----------------------------------------------------------------
    def __getitem__(self, fid: str) -> MetricFamily:
        if fid in self.builtin:
            return self._builtin(fid)
        plugins = self.plugins()
        if fid in plugins:
            return plugins[fid]
        raise KeyError(fid)

    def __iter__(self) -> Iterator[str]:
        yield from self.builtin
        yield from self.plugins()

    def __len__(self) -> int:
        return len(self.builtin) + len(self.plugins())

    def __contains__(self, fid: object) -> bool:
        return fid in self.builtin or fid in self.plugins()

    @property
    def errors(self) -> list[str]:
        """One line per plug-in that was refused (also logged as it happened)."""
        self.plugins()
        return list(self._errors)

    def refuse(self, fid: str, why: str) -> None:
        """Take a plug-in out of this process's registry, in one line (the command line does
        this for a plug-in whose flag one of its own commands already has)."""
        with self._lock:
            if self._plugins is not None and self._plugins.pop(fid, None) is not None:
                self._error(f"metric family plug-in {fid!r} is refused: {why}")

    def builtin_prompt_folders(self) -> Iterator[tuple[str, Path]]:
        """Each built-in family's prompt folder, found without importing the family."""
        for fid, name in self.builtin.items():
            module = name.partition(":")[0]
            spec = importlib.util.find_spec(module)
            folder = Path(spec.origin).parent / "prompts" if spec is not None and spec.origin else None
            if folder is not None and folder.is_dir():
                yield fid, folder

    # -- loading --------------------------------------------------------------------
    def _builtin(self, fid: str) -> MetricFamily:
        with self._lock:
            if fid not in self._loaded:
                module, _, attr = self.builtin[fid].partition(":")
                family = getattr(importlib.import_module(module), attr)
                self._loaded[fid] = dataclasses.replace(family, package=_package(module))
            return self._loaded[fid]

    def plugins(self) -> dict[str, MetricFamily]:
        """Every plug-in family that loads and passes its checks (loaded on first call)."""
        with self._lock:
            if self._plugins is None:
                self._plugins = {}
                self._plugins = self._load_plugins()
            return self._plugins

    def _error(self, line: str) -> None:
        self._errors.append(line)
        log.error("%s", line)

    def _entries(self) -> list[EntryPoint]:
        try:
            return sorted(entry_points(group=self.group), key=lambda e: (e.name, e.value))
        except Exception as exc:  # a distribution's broken metadata
            self._error(f"the {self.group} entry points could not be read: {_one_line(exc)}")
            return []

    def _load_plugins(self) -> dict[str, MetricFamily]:
        by_name: dict[str, list[EntryPoint]] = {}
        for entry in self._entries():
            by_name.setdefault(entry.name, []).append(entry)
        found: dict[str, MetricFamily] = {}
        for name, entries in by_name.items():
            try:
                if len(entries) > 1:
                    raise Refused(
                        f"metric family plug-in {name!r} is declared by {len(entries)} entry points "
                        f"({'; '.join(_source(e) for e in entries)}): neither is loaded, uninstall one"
                    )
                found[name] = self._load(entries[0])
            except Refused as exc:
                self._error(str(exc))
        for fid, why in (self._clashes(found) if found else {}).items():
            found.pop(fid)
            self._error(why)
        return found

    def _load(self, entry: EntryPoint) -> MetricFamily:
        where = _where(entry)
        if entry.name in self.builtin:
            raise Refused(f"{where}: the id {entry.name!r} is a built-in family's; a plug-in may not take it")
        out = _Bounded()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                module, _, attr = str(entry.value).partition(":")
                if not module.strip() or not attr.strip():
                    raise ValueError("name 'module:object', both parts")
                family = entry.load()
                package = _package(entry.module)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a plug-in may fail in any way while it imports, SystemExit too
            raise Refused(f"{where} failed to load: {type(exc).__name__}: {_one_line(exc)}") from None
        finally:
            if out.lines or out.tell():
                log.warning(
                    "%s printed %d line(s) while importing%s:\n%s",
                    where,
                    out.lines,
                    f" (the first {PRINT_LINES} shown)" if out.lines > PRINT_LINES else "",
                    out.getvalue().rstrip(),
                )
        if type(family) is not MetricFamily:  # a subclass could skip the checks of its fields
            raise Refused(f"{where} is a {type(family).__name__}, not a MetricFamily value")
        if family.id != entry.name:
            raise Refused(f"{where} declares the id {family.id!r}: a plug-in's id is its entry point's name")
        family = dataclasses.replace(family, package=package)
        if not package:
            raise Refused(f"{where} is not in a package: its pipeline and scores modules live beside it")
        try:
            missing = [
                m for m in ("pipeline", "scores") if importlib.util.find_spec(f"{package}.{m}") is None
            ]
        except Exception as exc:  # a package whose modules cannot be looked up
            raise Refused(f"{where}: its modules cannot be found: {_one_line(exc)}") from None
        if missing:
            raise Refused(f"{where} has no {' or '.join(f'{package}.{m}' for m in missing)} module")
        return family

    def _clashes(self, plugins: Mapping[str, MetricFamily]) -> dict[str, str]:
        """Plug-ins whose flags, tables or prompt files another family has, with why: against a
        built-in the plug-in is refused, between plug-ins every one of them is.  A table may be
        declared twice only with the same schema."""
        #: (kind, name) -> [(owner, what it declares)]; a clash is two different declarations
        claims: dict[tuple[str, str], list[tuple[str, object]]] = {}

        def claim(kind: str, name: str, owner: str, what: object) -> None:
            claims.setdefault((kind, name), []).append((owner, what))

        for table in SHARED.values():
            claim("table", table.name, "every task", table)
        for prompt in paths.PROMPTS_DIR.glob("*.yaml"):
            claim("prompt file", prompt.name, "the shared prompts", prompt)
        for fid, family in [*((f, self._builtin(f)) for f in self.builtin), *plugins.items()]:
            for flag in family.flags():
                claim("flag", flag, fid, flag)
            for table in family.tables:
                claim("table", table.name, fid, table)
            folder = prompt_folder(family)
            for prompt in sorted(folder.glob("*.yaml")) if folder else ():
                claim("prompt file", prompt.name, fid, prompt)
        clashes: dict[str, str] = {}
        for (kind, name), owners in claims.items():
            if len(owners) < 2 or (kind == "table" and len({repr(w) for _, w in owners}) < 2):
                continue  # one declaration, or the same schema twice
            for fid, _ in owners:
                if fid in plugins and fid not in clashes:
                    others = sorted({o for o, _ in owners if o != fid})
                    clashes[fid] = f"metric family plug-in {fid!r} is refused: " + (
                        f"its {kind} {name} is also {', '.join(others)}'s"
                        if others
                        else f"it declares the {kind} {name} twice"
                    )
        return clashes


def _source(entry: EntryPoint) -> str:
    """``module:object from distribution``: where an entry point comes from."""
    try:
        dist = entry.dist.name if entry.dist is not None else "?"
    except Exception:
        dist = "?"
    return f"{entry.value} from {dist}"


def _where(entry: EntryPoint) -> str:
    return f"metric family plug-in {entry.name!r} ({_source(entry)}, entry point group {ENTRY_POINT_GROUP})"


#: the one registry of the running program
REGISTRY = Registry()
