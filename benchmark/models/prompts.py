"""Prompts are data: versioned YAML files, referenced as ``name@version`` (``claims@1`` ->
``claims-v1.yaml``) in ``benchmark/prompts/`` or a metric family's own ``prompts/`` folder.

The file text is hashed into every cache key that uses it, but editing a prompt still means
bumping its version: results record prompt ids, not texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from benchmark.core import paths
from benchmark.core.errors import InputError
from benchmark.core.registry import REGISTRY, prompt_folder


@dataclass(frozen=True)
class Prompt:
    id: str
    system: str
    template: str
    output: Literal["lines", "jsonl", "json", "label", "text"]
    description: str
    sha256: str
    examples: tuple[tuple[dict[str, Any], str], ...] = ()
    #: the file's other top-level keys: settings that belong with the prompt's text
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def render(
        self, examples: Sequence[tuple[dict[str, Any], str]] | None = None, **fields: Any
    ) -> list[dict[str, str]]:
        """Chat messages with ``fields`` substituted; worked examples (the file's, or
        ``examples``) become earlier user/assistant turns."""
        messages = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        for example_fields, output in self.examples if examples is None else examples:
            messages.append({"role": "user", "content": self._fill({**fields, **example_fields})})
            messages.append({"role": "assistant", "content": output})
        messages.append({"role": "user", "content": self._fill(fields)})
        return messages

    def _fill(self, fields: dict[str, Any]) -> str:
        try:
            return self.template.format(**fields)
        except KeyError as exc:
            raise KeyError(f"prompt {self.id} needs field {exc}") from exc


PROMPT_KEYS = {"system", "template", "output", "description", "examples"}


def folders() -> Iterator[Path]:
    """Where prompts are looked up, in order: the shared folder, then each family's (the
    registry refuses a plug-in whose prompt file another folder holds)."""
    yield paths.PROMPTS_DIR
    yield from (folder for package in REGISTRY.packages() if (folder := prompt_folder(package)))


def prompt_path(ref: str) -> Path:
    """The file of ``name@version``, in whichever folder holds it."""
    name, _, version = ref.partition("@")
    file = f"{name}-v{version or '1'}.yaml"
    for folder in folders():
        if (folder / file).exists():
            return folder / file
    known = sorted(p.stem for f in folders() for p in f.glob("*.yaml"))
    raise InputError.at(ref, f"no such prompt; known: {known}")


@cache
def load_prompt(ref: str) -> Prompt:
    name, _, version = ref.partition("@")
    text = prompt_path(ref).read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    return Prompt(
        id=f"{name}@{version or '1'}",
        system=raw.get("system", "").strip(),
        template=raw["template"].strip(),
        output=raw["output"],
        description=raw.get("description", "").strip(),
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        examples=tuple((dict(ex["fields"]), str(ex["output"]).strip()) for ex in raw.get("examples", [])),
        meta={k: v for k, v in raw.items() if k not in PROMPT_KEYS},
    )
