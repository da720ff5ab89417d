"""GitHub Actions workflows read as data, and their jobs run as the runner runs them.

There is no GitHub here, so the tests decide what GitHub decides: whether a job's ``if:``
lets it run on an event (:func:`condition`, three-valued: a context the facts do not fix
may be anything), what a step's ``env:`` holds once its ``${{ }}`` expressions are
evaluated (:func:`step_env`: a secret the facts do not give is the empty string, as for a
fork's pull request), and what the ``run:`` scripts of a job do in a checkout, stopping
at the first that fails (:func:`run_job`).  ``uses:`` steps (checkout, set-up actions,
artifacts) are the test's own business.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_TOKEN = re.compile(
    r"\s*(?:(?P<call>\w+\([^()]*\))|(?P<op>&&|\|\||!|\(|\))|(?P<cmp>[\w.-]+\s*(?:==|!=)\s*'[^']*')"
    r"|(?P<other>[^&|()!]+))"
)


def workflow(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def condition(text: str | None, facts: dict[str, str]) -> bool | None:
    """An ``if:`` under ``facts`` (context path -> value): True, False, or None where it
    depends on something the facts do not say.  Comparisons ``path == 'literal'`` (and
    ``!=``) joined by ``&&``, ``||``, ``!`` and parentheses; any other term is unknown."""
    if text is None or not str(text).strip():
        return True
    tokens = []
    for m in _TOKEN.finditer(EXPRESSION.sub(r"\1", str(text))):
        if m.group("op"):
            tokens.append(m.group("op"))
        elif m.group("cmp"):
            path, op, literal = re.fullmatch(
                r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", m.group("cmp").strip()
            ).groups()  # type: ignore[union-attr]
            tokens.append(None if path not in facts else (facts[path] == literal) == (op == "=="))
        elif m.group("call") or m.group("other").strip():
            tokens.append(None)
    pos = 0

    def primary() -> bool | None:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "!":
            v = primary()
            return None if v is None else not v
        if tok == "(":
            v = disjunction()
            pos += 1  # ")"
            return v
        return tok  # type: ignore[return-value]

    def chain(op: str, operand: Any, absorbing: bool) -> bool | None:
        """``operand (op operand)*`` in Kleene's logic: ``absorbing`` decides it (False for
        &&, True for ||) whatever is unknown; otherwise unknown stays unknown."""
        nonlocal pos
        v = operand()
        while pos < len(tokens) and tokens[pos] == op:
            pos += 1
            w = operand()
            v = absorbing if absorbing in (v, w) else (None if None in (v, w) else not absorbing)
        return v

    def disjunction() -> bool | None:
        return chain("||", lambda: chain("&&", primary, False), True)

    return disjunction()


def expression(text: str, facts: dict[str, str]) -> str:
    """``${{ a || b }}``: the first alternative the facts give a non-empty value (GitHub's
    ``||`` returns its first truthy operand); an unknown context, like a missing secret, is ''."""

    def one(m: re.Match[str]) -> str:
        for alt in m.group(1).split("||"):
            if value := facts.get(alt.strip(), ""):
                return value
        return ""

    return EXPRESSION.sub(one, text)


def step_env(step: dict[str, Any], facts: dict[str, str]) -> dict[str, str]:
    return {k: expression(str(v), facts) for k, v in (step.get("env") or {}).items()}


@dataclass
class StepRun:
    name: str
    returncode: int
    output: str


def run_job(
    name: str, job: str, cwd: Path, facts: dict[str, str], env: dict[str, str], skip: tuple[str, ...] = ()
) -> list[StepRun] | None:
    """The ``run:`` steps of ``job`` in ``cwd``, in order, until one fails (``None``: the
    job's ``if`` does not let it run on this event).  ``env`` is the runner's own
    environment; ``skip`` names steps the test has done itself (the set-up)."""
    spec = workflow(name)["jobs"][job]
    if condition(spec.get("if"), facts) is not True:
        return None
    done = []
    for step in spec["steps"]:
        if "run" not in step or step.get("name") in skip:
            continue
        full = {**env, **step_env(step, facts)}
        proc = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=cwd, env=full, capture_output=True, text=True
        )
        done.append(StepRun(step.get("name", ""), proc.returncode, proc.stdout + proc.stderr))
        if proc.returncode:
            break
    return done


def runner_env(home: Path, **extra: str) -> dict[str, str]:
    """What a runner's shell starts with: a PATH, a HOME, no secrets."""
    return {"PATH": os.environ["PATH"], "HOME": str(home), "HF_HUB_OFFLINE": "1", **extra}
