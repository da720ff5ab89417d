"""Typed settings declared once (:func:`option`): the command-line flags
(``benchmark.cli.settings``), the library's defaults and what a result records all derive
from the model, so a default cannot differ between them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.core.errors import InputError, Problem


def option(default: Any, help: str, *, flag: str | None = None, cli: bool = True, **kw: Any) -> Any:
    """A settings field with its command-line flag: ``help`` is the description and the
    flag's help; ``flag`` overrides the derived ``--<prefix>-<field>``; ``cli=False`` keeps the
    field off the command line."""
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
        """A bad value is an :class:`InputError` naming its flag, whoever gave it."""
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
    """A metric family's scoring settings: recorded in every result, part of the board key."""

    def board_key(self) -> dict[str, Any]:
        """The settings that change the ranked numbers (all, unless a family narrows it)."""
        return self.model_dump(mode="json")
