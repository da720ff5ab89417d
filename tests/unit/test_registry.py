"""The family registry is asked, never run on import.

Each entry point of the package works in a fresh interpreter, first or after any other,
and loads no family it does not need (counted in modules): the task layer asks the registry
for the tables of the families a card lists, the prompt loader for the folder that holds a
prompt, and a family's ``formulas`` loads only what it imports.  These were traps while the
registry ran when ``benchmark.families`` was imported: a task or a family prompt loaded in a
fresh interpreter failed, a plug-in module imported before the registry was dropped from it,
and the pure ``icat/formulas.py`` loaded 118 project modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.core.registry import BUILTIN

ROOT = Path(__file__).resolve().parents[2]
FORMULAS = sorted(p.parent.name for p in (ROOT / "benchmark" / "families").glob("*/formulas.py"))

#: what each step does in the child interpreter, and records: the family modules it loaded
STEPS = {
    "tasks": """
from benchmark.tasks import load_task
task = load_task("webtrack-2009-2012")
assert len(task.table("exam_questions")) > 0 and len(task.table("nuggets")) > 0
out["listed"] = list(task.card.metrics)
""",
    "prompts": """
from benchmark.models.prompts import load_prompt
assert load_prompt("nugget-assign@2").id == "nugget-assign@2"
assert load_prompt("claims@1").id == "claims@1"
""",
    "plugin": "import groundcover_toy_family.family",
    # checking a plug-in against the built-in families reads their declarations
    "ask plugin": """
from benchmark.families import REGISTRY
assert REGISTRY["toy"].title and REGISTRY.errors == [], REGISTRY.errors
""",
    **{f"formulas:{fid}": f"import benchmark.families.{fid}.formulas" for fid in FORMULAS},
}

CHILD = """
import json, sys
out, steps = {}, json.loads(sys.argv[1])
def families():
    return {m.split(".")[2] for m in sys.modules if m.startswith("benchmark.families.") and m.count(".") >= 3
            and not m.endswith(".formulas")}
for name, code in steps:
    before, mods = families(), set(sys.modules)
    exec(code, {"out": out})
    out[name] = {"families": sorted(families() - before),
                 "project": sorted(m for m in set(sys.modules) - mods if m == "benchmark" or m.startswith("benchmark."))}
print(json.dumps(out))
"""


def run(order: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([(n, STEPS[n]) for n in order])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def check(out: dict, name: str, first: bool) -> None:
    """What a step may load: a task the families its card lists (those declaring its tables),
    a prompt none, the plug-in's module none, the plug-in asked for the built-in families'
    declarations (what it is checked against), a formulas module nothing but its own package."""
    loaded = set(out[name]["families"])
    if name == "tasks":
        assert loaded <= set(out["listed"]), loaded
    elif name == "ask plugin":
        assert loaded <= set(BUILTIN), loaded
    else:  # the toy plug-in lives outside benchmark/: it loads no built-in family either
        assert loaded == set(), loaded
    fid = name.partition(":")[2]
    if fid and first:  # a fresh interpreter: the package path and the module, no more
        assert out[name]["project"] == sorted(
            ["benchmark", "benchmark.core", "benchmark.core.version", "benchmark.families",
             f"benchmark.families.{fid}", f"benchmark.families.{fid}.formulas"]
        )  # fmt: skip


ORDERS = {
    "tasks first": ["tasks", "prompts", "plugin", "ask plugin", *(f"formulas:{f}" for f in FORMULAS)],
    "prompts first": ["prompts", *(f"formulas:{f}" for f in FORMULAS), "plugin", "ask plugin", "tasks"],
    "plug-in first": [
        "plugin",
        "tasks",
        "ask plugin",
        *(f"formulas:{f}" for f in reversed(FORMULAS)),
        "prompts",
    ],
    **{f"{f} formulas first": [f"formulas:{f}", "tasks"] for f in FORMULAS},
}


@pytest.mark.parametrize("order", list(ORDERS))
def test_every_entry_point_works_in_a_fresh_interpreter_in_any_order(order: str) -> None:
    steps = ORDERS[order]
    out = run(steps)
    for n, name in enumerate(steps):
        check(out, name, first=n == 0)


def test_the_checks_see_a_family_loaded_that_was_not_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counting is real: a formulas module that imported its family's declaration, or a
    task that loaded a family its card does not list, fails the check."""
    monkeypatch.setitem(
        STEPS, "formulas:icat", "import benchmark.families.icat.formulas, benchmark.families.icat.family"
    )
    with pytest.raises(AssertionError):
        check(run(["formulas:icat"]), "formulas:icat", first=True)
    monkeypatch.setitem(STEPS, "tasks", STEPS["tasks"] + "\nimport benchmark.families.arguments.family\n")
    with pytest.raises(AssertionError):
        check(run(["tasks"]), "tasks", first=True)


def test_the_builtin_families_are_names_until_asked_for() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom benchmark.families import REGISTRY\n"
            "before = [m for m in sys.modules if m.startswith('benchmark.families.')]\n"
            "REGISTRY['exam']\n"
            "after = [m for m in sys.modules if m.startswith('benchmark.families.') and m.endswith('.family')]\n"
            "print(len(before), sorted(after))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split(maxsplit=1) == ["0", "['benchmark.families.exam.family']\n"]
    assert set(BUILTIN) >= {"icat", "exam"}
