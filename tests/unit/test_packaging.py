"""What the wheel installs: only `benchmark`, every package under it, and the tasks.

The end-to-end check (build, install in a fresh venv in an empty directory, list and
evaluate) is ``scripts/check_wheel.sh``, run by CI after the tests.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from benchmark.core import paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_packages_are_found_not_listed(setuptools_config: dict) -> None:
    """A new module or metric family needs no pyproject entry: setuptools finds every
    package under benchmark/ (and nothing outside it)."""
    assert setuptools_config["packages"] == {"find": {"include": ["benchmark", "benchmark.*"]}}
    assert "package-dir" not in setuptools_config


def test_task_folders_are_linked_into_the_package(setuptools_config: dict) -> None:
    link = ROOT / "benchmark" / "task_data"
    assert link.is_symlink() and link.resolve() == (ROOT / "tasks").resolve()
    patterns = setuptools_config["package-data"]["benchmark.task_data"]
    shipped = {p for pattern in patterns for p in (ROOT / "tasks").glob(pattern)}
    tracked = {p for p in (ROOT / "tasks").rglob("*") if p.is_file() and "raw" not in p.parts}
    assert tracked and shipped == tracked, "a task file would be left out of the wheel"


def test_tasks_dir_prefers_the_installed_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GROUNDCOVER_TASKS", raising=False)
    assert paths.tasks_dir() == ROOT / "tasks"  # a checkout has no copy to go stale
    monkeypatch.setattr(paths, "PACKAGED_TASKS", tmp_path)
    assert paths.tasks_dir() == tmp_path
    monkeypatch.setenv("GROUNDCOVER_TASKS", str(tmp_path / "mine"))
    assert paths.tasks_dir() == tmp_path / "mine"


def test_no_module_imports_pyserini_python_layer() -> None:
    """pyserini is installed without its dependencies (see benchmark/lucene.py): importing
    its search modules would need torch, onnxruntime and an OpenAI key."""
    for module in (ROOT / "benchmark").rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                assert not name.startswith(("pyserini.search", "pyserini.index", "pyserini.encode")), (
                    f"{module.relative_to(ROOT)} imports {name}"
                )


def test_imports_inside_shell_scripts_resolve() -> None:
    """scripts/*.sh and .ci/run run Python one-liners (setup's final check imports the Lucene
    module); a module that moved must not break them only in CI."""
    import importlib
    import importlib.util
    import re

    scripts = [*(ROOT / "scripts").glob("*.sh"), ROOT / ".ci" / "run"]
    found = 0
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        for module, names in re.findall(r"from (benchmark[\w.]*) import ([\w, ]+)", text):
            mod = importlib.import_module(module)
            for name in (n.strip() for n in names.split(",")):
                assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}"), (
                    script.name,
                    module,
                    name,
                )
                found += 1
        for module in re.findall(r"\bimport (benchmark[\w.]*)", text):
            importlib.import_module(module)
            found += 1
    assert found  # setup.sh's check is among them


def test_every_prompt_file_is_package_data(setuptools_config: dict) -> None:
    """The shared prompts and each family's own (``benchmark/families/<id>/prompts/``) go
    into the wheel: a family's prompt left out would fail only once installed."""
    data = setuptools_config["package-data"]
    package_dirs = {
        "benchmark.prompts": ROOT / "benchmark" / "prompts",
        "benchmark.families": ROOT / "benchmark" / "families",
    }
    shipped = {
        p for pkg, folder in package_dirs.items() for pattern in data[pkg] for p in folder.glob(pattern)
    }
    prompts = set((ROOT / "benchmark").rglob("prompts/*.yaml"))
    assert len(prompts) == 38 and shipped >= prompts, sorted(map(str, prompts - shipped))
