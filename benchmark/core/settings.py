"""Typed settings declared once: each field with its default, help and flag name.

A family's scoring settings, the runner's options and the scoring configuration are
pydantic models whose fields are declared with :func:`option`.  Everything else derives
from the model: the command-line flags (``benchmark.cli.settings`` turns a model into
argparse arguments and a parsed command line back into a model), the defaults the library
uses, and the settings a result records.  A default therefore cannot differ between the
command line, the library and a test, and a family declares typed settings and nothing
else about flags.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.core.errors import InputError, Problem


def option(default: Any, help: str, *, flag: str | None = None, cli: bool = True, **kw: Any) -> Any:
    """A settings field with its command-line flag: the one place a setting is declared.

    ``help`` is the field's description and the flag's help text; ``default`` is the
    default everywhere (the flag's help prints it, and an absent flag leaves it alone).
    ``flag`` overrides the derived name (``--<prefix>-<field>``); ``cli=False`` keeps a
    field off the command line (recorded, or set by a command of its own)."""
    extra: dict[str, Any] = {"cli": cli}
    if flag:
        extra["flag"] = flag
    return Field(default=default, description=help, json_schema_extra=extra, **kw)


class Settings(BaseModel):
    """Options whose fields are declared with :func:`option`; frozen, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: flags are ``--<flag_prefix>-<field>`` where a bare name would clash across families
    flag_prefix: ClassVar[str] = ""

    @classmethod
    def flags(cls) -> dict[str, str]:
        """Field name -> its flag, for the fields on the command line."""
        out = {}
        for name, info in cls.model_fields.items():
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            if extra.get("cli", True) is False:
                continue
            derived = "-".join(x for x in (cls.flag_prefix, name.replace("_", "-")) if x)
            out[name] = str(extra.get("flag") or f"--{derived}")
        return out

    @staticmethod
    def dest(flag: str) -> str:
        """The attribute a parsed command line keeps a flag's value in."""
        return flag.lstrip("-").replace("-", "_")

    def __init__(self, **values: Any) -> None:
        """A bad value is an :class:`InputError` naming its flag (``static_examples`` ->
        ``--static-examples``), whether a command line or a library call gave it."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            flags = type(self).flags()
            raise InputError(
                [
                    Problem(
                        "command line",
                        str(e["ctx"]["error"])
                        if e["type"] == "value_error" and "error" in e.get("ctx", {})
                        else e["msg"],
                        field=flags.get(str(e["loc"][0]), f"--{str(e['loc'][0]).replace('_', '-')}")
                        if e["loc"]
                        else None,
                    )
                    for e in exc.errors()
                ]
            ) from None


class FamilySettings(Settings):
    """A metric family's scoring settings.  Recorded in every result, and part of the board
    key: results computed with different settings are never ranked together."""

    def board_key(self) -> dict[str, Any]:
        """The settings that change the ranked numbers: what the board key holds.  All of
        them unless a family narrows it (ICAT's β sweep, say, changes no ranked score)."""
        return self.model_dump(mode="json")
