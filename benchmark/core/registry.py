"""The metric-family registry: every layer asks :data:`REGISTRY` for families and none names one.

A family is a ``"module:object"`` name until first asked for, from :data:`BUILTIN` or an
installed distribution's ``groundcover.families`` entry point (CONTRIBUTING.md, "Adding a
metric family").  A plug-in is checked completely when it loads and refused in one line when
anything is wrong (it fails to import, is not a :class:`MetricFamily`, its id is not its entry
point's name, or its flags, tables or prompt files clash with another family's); the built-in
families stand whatever plug-ins do.
"""

from __future__ import annotations

import contextlib
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

#: what a plug-in may print while it imports (lines, characters), and how much of its error
#: a refusal quotes
PRINT_LINES, PRINT_CHARS, MESSAGE_CHARS = 20, 4000, 300


class Refused(Exception):
    """A plug-in that is not registered, in one line naming its entry point."""


class _Bounded(io.StringIO):
    """A stream that keeps the first lines written to it and counts them all."""

    lines = 0

    def write(self, text: str) -> int:
        if self.lines < PRINT_LINES and self.tell() < PRINT_CHARS:
            kept = "".join(text.splitlines(keepends=True)[: PRINT_LINES - self.lines])
            super().write(kept[: PRINT_CHARS - self.tell()])
        self.lines += text.count("\n")
        return len(text)


def _one_line(text: object) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MESSAGE_CHARS else flat[: MESSAGE_CHARS - 1] + "…"


def _package(module: str) -> str:
    """Where a family's modules live: the named module's package, or the module itself where
    it is a package (``toy_family:TOY`` defined in ``toy_family/__init__.py``)."""
    spec = importlib.util.find_spec(module)
    return module if spec is not None and spec.submodule_search_locations else module.rpartition(".")[0]


def prompt_folder(package: str) -> Path | None:
    """``prompts/`` in a family's package (package data), found without importing the family."""
    spec = importlib.util.find_spec(package) if package else None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    folder = Path(roots[0]) / "prompts" if roots else None
    return folder if folder is not None and folder.is_dir() else None


def _source(entry: EntryPoint) -> str:
    try:
        dist = entry.dist.name if entry.dist is not None else "?"
    except Exception:  # metadata that cannot be read names no distribution
        dist = "?"
    return f"{entry.value} from {dist}"


def _where(entry: EntryPoint) -> str:
    return f"metric family plug-in {entry.name!r} ({_source(entry)}, entry point group {ENTRY_POINT_GROUP})"


class Registry(Mapping[str, MetricFamily]):
    """Family id -> :class:`MetricFamily`, each loaded when first asked for: the built-in
    families, then every plug-in that passes its checks (all are loaded at once: a plug-in is
    only valid beside the others); refusals are logged once and kept in :attr:`errors`."""

    def __init__(self, builtin: Mapping[str, str] = BUILTIN, group: str = ENTRY_POINT_GROUP) -> None:
        self.builtin, self.group = dict(builtin), group
        self._loaded: dict[str, MetricFamily] = {}
        self._plugins: dict[str, MetricFamily] | None = None
        self._errors: list[str] = []
        self._lock = threading.RLock()

    def __getitem__(self, fid: str) -> MetricFamily:
        if fid in self.builtin:
            with self._lock:
                if fid not in self._loaded:
                    module, _, attr = self.builtin[fid].partition(":")
                    family = getattr(importlib.import_module(module), attr)
                    self._loaded[fid] = family.model_copy(update={"package": _package(module)})
                return self._loaded[fid]
        return self.plugins()[fid]

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

    def packages(self) -> Iterator[str]:
        """Each family's package: the built-in ones without importing them, then the plug-ins'."""
        yield from (_package(name.partition(":")[0]) for name in self.builtin.values())
        yield from (family.package for family in self.plugins().values())

    def refuse(self, fid: str, why: str) -> None:
        """Take a plug-in out of this process's registry (a flag clashing with a command's own)."""
        with self._lock:
            if self._plugins is not None and self._plugins.pop(fid, None) is not None:
                self._error(f"metric family plug-in {fid!r} is refused: {why}")

    def _error(self, line: str) -> None:
        self._errors.append(line)
        log.error("%s", line)

    def plugins(self) -> dict[str, MetricFamily]:
        """Every plug-in family that loads and passes its checks (loaded on the first call)."""
        with self._lock:
            if self._plugins is None:
                self._plugins = {}
                by_name: dict[str, list[EntryPoint]] = {}
                try:
                    for entry in sorted(entry_points(group=self.group), key=lambda e: (e.name, e.value)):
                        by_name.setdefault(entry.name, []).append(entry)
                except Exception as exc:  # a distribution's broken metadata
                    self._error(f"the {self.group} entry points could not be read: {_one_line(exc)}")
                found = {}
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
                self._plugins = found
                for fid, why in (self._clashes(found) if found else {}).items():
                    self.refuse(fid, why)
            return self._plugins

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
                family, package = entry.load(), _package(entry.module)
                missing = [
                    m for m in ("pipeline", "scores") if importlib.util.find_spec(f"{package}.{m}") is None
                ]
        except KeyboardInterrupt:  # the user's, not the plug-in's
            raise
        except BaseException as exc:  # a plug-in may fail in any way while it imports, SystemExit too
            raise Refused(f"{where} failed to load: {type(exc).__name__}: {_one_line(exc)}") from None
        finally:
            if out.lines or out.tell():
                shown = f" (the first {PRINT_LINES} shown)" if out.lines > PRINT_LINES else ""
                log.warning(
                    "%s printed %d line(s) while importing%s:\n%s", where, out.lines, shown, out.getvalue()
                )
        if type(family) is not MetricFamily:  # a subclass could skip the checks of its fields
            raise Refused(f"{where} is a {type(family).__name__}, not a MetricFamily value")
        if family.id != entry.name:
            raise Refused(f"{where} declares the id {family.id!r}: a plug-in's id is its entry point's name")
        if missing:
            raise Refused(f"{where} has no {' or '.join(f'{package}.{m}' for m in missing)} module")
        return family.model_copy(update={"package": package})

    def _clashes(self, plugins: Mapping[str, MetricFamily]) -> dict[str, str]:
        """Plug-ins whose flags, tables or prompt files another family also declares, with why
        (a table may be declared twice with the same schema)."""
        claims: dict[tuple[str, str], list[tuple[str, object]]] = {}  # (kind, name) -> (owner, what)
        for table in SHARED.values():
            claims.setdefault(("table", table.name), []).append(("every task", table))
        for prompt in paths.PROMPTS_DIR.glob("*.yaml"):
            claims.setdefault(("prompt file", prompt.name), []).append(("the shared prompts", prompt))
        for fid, family in [*((f, self[f]) for f in self.builtin), *plugins.items()]:
            folder = prompt_folder(family.package)
            for kind, name, what in [
                *(("flag", flag, flag) for flag in family.flags()),
                *(("table", table.name, table) for table in family.tables),
                *(("prompt file", p.name, p) for p in (sorted(folder.glob("*.yaml")) if folder else ())),
            ]:
                claims.setdefault((kind, name), []).append((fid, what))
        clashes: dict[str, str] = {}
        for (kind, name), owners in claims.items():
            if len(owners) < 2 or (kind == "table" and len({repr(w) for _, w in owners}) < 2):
                continue  # one declaration, or one schema twice
            for fid, _ in owners:
                others = sorted({o for o, _ in owners if o != fid})
                if fid in plugins and fid not in clashes:
                    clashes[fid] = (
                        f"its {kind} {name} is also {', '.join(others)}'s"
                        if others
                        else (f"it declares the {kind} {name} twice")
                    )
        return clashes


REGISTRY = Registry()
