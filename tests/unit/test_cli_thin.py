"""The command line only parses and prints: the run itself lives in :mod:`benchmark.api`.

Measured by what each ``benchmark/cli`` module imports (at the top or inside a function,
type-checking imports included).  Scoring, planning and validation are done by the layers
below (``scoring``, ``generation``, ``answers``, ``tasks``, ``judging``, ``retrieval``, ``models``,
``metaeval``, the families' modules); a CLI module that imports one of them is doing
their work instead of asking :mod:`benchmark.api` for it.  A CLI module may import:

* :mod:`benchmark.api` (the library) and :mod:`benchmark.cli` (its own helpers);
* :mod:`benchmark.core` (errors, paths, figures: the base every layer uses);
* :mod:`benchmark.board` (rendering boards and results for the terminal) and
  :mod:`benchmark.space` (the web app ``benchmark space`` serves);
* :mod:`benchmark.families` itself, whose registry lists the families' flags and commands,
  and :mod:`benchmark.families.command_context`, the pieces the command line hands a family's
  commands (a dataclass of callables, importing nothing).

Second, coarse, rule: no function in ``benchmark/cli`` is longer than
:data:`MAX_STATEMENTS` statements, not counting ``add_argument``-style parser calls: a
command's function translates flags, calls the API and prints.

Every command is thin: ``judge-card``, ``meta-eval`` and ``tasks``, the last to do their
own work, call :mod:`benchmark.api.judge_card`, :mod:`benchmark.api.meta_eval` and
:mod:`benchmark.api.tasks`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "benchmark" / "cli"
ALLOWED = ("benchmark.api", "benchmark.cli", "benchmark.core", "benchmark.board", "benchmark.space")
MAX_STATEMENTS = 40
WIRING = {"add_argument", "add_argument_group", "add_mutually_exclusive_group", "set_defaults", "add_parser"}


def forbidden_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            own = name in ("benchmark", "benchmark.families", "benchmark.families.command_context")
            own = own or name.startswith(ALLOWED)
            if name.startswith("benchmark") and not own:
                out.append(name)
    return sorted(set(out))


def long_functions(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            statements = sum(isinstance(x, ast.stmt) for x in ast.walk(node)) - 1
            wiring = sum(
                isinstance(x, ast.Expr)
                and isinstance(x.value, ast.Call)
                and isinstance(x.value.func, ast.Attribute)
                and x.value.func.attr in WIRING
                for x in ast.walk(node)
            )
            if statements - wiring > MAX_STATEMENTS:
                out.append(f"{node.name} ({statements - wiring} statements)")
    return out


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_a_cli_module_imports_no_scoring_planning_or_validation_layer(path: Path) -> None:
    found = forbidden_imports(path)
    assert found == [], f"{path.name} does the library's work: {found}; call benchmark.api instead"


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_a_cli_function_only_translates_and_prints(path: Path) -> None:
    assert long_functions(path) == []


def test_the_rule_catches_what_it_should(tmp_path: Path) -> None:
    """The old ``score`` command, which imported the answer readers and the scoring run
    and planned inside ``benchmark/cli``, breaks the rule."""
    old = tmp_path / "score.py"
    old.write_text(
        "from benchmark.cli.common import score_answers\n"
        "def run(args):\n    from benchmark.answers.outputs import answers_and_model\n"
        "    from benchmark.scoring import run\n"
    )
    assert forbidden_imports(old) == ["benchmark.answers.outputs", "benchmark.scoring"]
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_STATEMENTS + 1))
    old.write_text(f"def run(args):\n{body}\n")
    assert long_functions(old) == [f"run ({MAX_STATEMENTS + 1} statements)"]
