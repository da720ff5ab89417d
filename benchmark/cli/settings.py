"""Typed settings on the command line: one flag per field of a
:class:`~benchmark.core.settings.Settings` model, and the model back from the parsed flags; an
absent flag leaves the model's default (``argparse.SUPPRESS``), so defaults live in the model.
"""

from __future__ import annotations

import argparse
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from benchmark.core.family import MetricFamily
from benchmark.core.registry import REGISTRY
from benchmark.core.settings import Settings

S = TypeVar("S", bound=Settings)


def _choices(annotation: Any) -> list[Any] | None:
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return list(args)
    inner = [a for a in args if a is not type(None)]
    return _choices(inner[0]) if len(inner) == 1 and get_origin(annotation) in (Union, UnionType) else None


def _scalar(annotation: Any) -> Any:
    """The argparse ``type`` of a field: its non-None member's type, for int, float, str."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    base = args[0] if get_origin(annotation) in (Union, UnionType) and len(args) == 1 else annotation
    return base if base in (int, float, str) else None


def _shown(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ",".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


def add_arguments(
    group: argparse._ActionsContainer, model: type[Settings], only: tuple[str, ...] | None = None
) -> None:
    """One flag per field of ``model`` on the command line (``only``: just these fields)."""
    for name, flag in model.flags().items():
        if only is not None and name not in only:
            continue
        info = model.model_fields[name]
        kw: dict[str, Any] = {"dest": model.dest(flag), "default": argparse.SUPPRESS}
        help_text = f"{info.description or name} (default: {_shown(info.default)})"
        if (choices := _choices(info.annotation)) is not None:
            kw["choices"] = choices
        elif info.annotation is bool:
            kw["action"] = argparse.BooleanOptionalAction
        elif get_origin(info.annotation) is tuple:
            kw["metavar"] = "A,B,..."
            help_text = f"{info.description or name}, comma-separated (default: {_shown(info.default)})"
        elif (kind := _scalar(info.annotation)) is not None:
            kw["type"] = kind
        group.add_argument(flag, help=help_text, **kw)


def from_args(model: type[S], args: argparse.Namespace, **fixed: Any) -> S:
    """The settings the flags present give, over the model's defaults, with the command's ``fixed``."""
    values: dict[str, Any] = {}
    for name, flag in model.flags().items():
        if hasattr(args, model.dest(flag)):
            value = getattr(args, model.dest(flag))
            if get_origin(model.model_fields[name].annotation) is tuple and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            values[name] = value
    return model(**values, **fixed)


def add_family_arguments(parser: argparse.ArgumentParser, family: MetricFamily) -> None:
    """A family's options in a group of their own: its settings' fields, its input files."""
    group = parser.add_argument_group(f"{family.title} ({family.id})")
    add_arguments(group, family.settings_model)
    for item in family.inputs:
        group.add_argument(item.flag, dest=item.dest, default=argparse.SUPPRESS, help=item.help)


def add_families(parser: argparse.ArgumentParser) -> None:
    """Every registered family's options; a plug-in whose flag is the command's own
    (``--seed``) is refused, in one line, and the command stands."""
    for family in list(REGISTRY.values()):
        taken = [flag for flag in family.flags() if flag in parser._option_string_actions]
        if taken and family.id not in REGISTRY.builtin:
            REGISTRY.refuse(family.id, f"its flag {taken[0]} is `{parser.prog}`'s own")
            continue
        add_family_arguments(parser, family)


def input_files(args: argparse.Namespace, families: Any) -> dict[str, str]:
    """The families' input files the command line names, by :class:`InputFile` name."""
    return {i.name: getattr(args, i.dest) for f in families for i in f.inputs if hasattr(args, i.dest)}
