"""Metric families from outside packages: the ``groundcover.families`` entry point group.

The toy family (``tests/toy_family``, installed in the test environment) is the working
example; ``tests/unit/test_architecture.py`` scores it through the real command line.  Here:
a broken plug-in is one clear line naming its entry point, and never takes the built-in
families down with it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import benchmark.families as families
from benchmark.families import BUILTIN, ENTRY_POINT_GROUP, discover


def _distribution(root: Path, entries: dict[str, str]) -> None:
    """An installed distribution on ``root`` that declares ``entries`` in the group."""
    info = root / "broken_plugins-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugins\nVersion: 0.1\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")


def test_a_broken_plugin_is_one_line_naming_its_entry_point_and_the_builtins_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "raising_plugin.py").write_text("raise ImportError('needs a missing library')\n")
    _distribution(
        tmp_path,
        {
            "raising": "raising_plugin:Family",
            "missing": "no_such_module_for_groundcover:Family",
            "notafamily": "json:loads",
            "abstract": "benchmark.families.base:MetricFamily",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(families, "PLUGIN_ERRORS", [])
    with caplog.at_level(logging.ERROR, logger="benchmark.families"):
        found = discover()
    assert set(BUILTIN) <= set(found)
    assert not {"raising", "missing", "notafamily", "abstract"} & set(found)
    errors = {e.split("'")[1]: e for e in families.PLUGIN_ERRORS}
    assert set(errors) == {"raising", "missing", "notafamily", "abstract"}
    for line in errors.values():
        assert "\n" not in line and ENTRY_POINT_GROUP in line, line
    assert "raising_plugin:Family" in errors["raising"] and "needs a missing library" in errors["raising"]
    assert "no_such_module_for_groundcover" in errors["missing"]
    assert "not a MetricFamily" in errors["notafamily"]
    assert "TypeError" in errors["abstract"]  # an abstract class cannot be made
    assert [r.getMessage() for r in caplog.records] == [errors[n] for n in sorted(errors)]


def test_a_plugin_may_not_take_a_builtin_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "impostor_plugin.py").write_text(
        "from benchmark.families.icat import ICATFamily\n\nclass Impostor(ICATFamily):\n    pass\n"
    )
    _distribution(tmp_path, {"impostor": "impostor_plugin:Impostor"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(families, "PLUGIN_ERRORS", [])
    found = discover()
    assert type(found["icat"]).__name__ == "ICATFamily"
    (line,) = families.PLUGIN_ERRORS
    assert "'impostor'" in line and "declares the id 'icat', which another family has" in line


def test_a_plugin_family_brings_its_tables_and_prompts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a plug-in declares reaches the layers below the families: a task card may list
    its table, and ``load_prompt`` finds the prompt in its own ``prompts/`` folder."""
    package = tmp_path / "tabled_plugin"
    (package / "prompts").mkdir(parents=True)
    (package / "prompts" / "tabled-judge-v1.yaml").write_text(
        "description: a test prompt\noutput: text\ntemplate: 'Rate {text}.'\n", encoding="utf-8"
    )
    (package / "__init__.py").write_text(
        "from benchmark.tasks import Column, TableSchema\n"
        "from groundcover_toy_family.family import ToyFamily\n\n"
        "class Tabled(ToyFamily):\n"
        "    id = 'tabled'\n"
        "    tables = (TableSchema('tabled_notes', (Column('query_id', 'str', ref='queries.query_id'),),\n"
        "              key=('query_id',)),)\n",
        encoding="utf-8",
    )
    _distribution(tmp_path, {"tabled": "tabled_plugin:Tabled"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(families, "PLUGIN_ERRORS", [])
    from benchmark.models import prompts
    from benchmark.tasks import tables

    monkeypatch.setattr(prompts, "FOLDERS", list(prompts.FOLDERS))
    monkeypatch.setattr(tables, "SCHEMAS", dict(tables.SCHEMAS))
    found = discover()
    assert families.PLUGIN_ERRORS == [] and "tabled" in found
    assert "tabled_notes" in tables.known()
    assert prompts.load_prompt("tabled-judge@1").render(text="x")[-1]["content"] == "Rate x."


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    """The toy plug-in on the platform contract (tests/unit/test_families.py), like a built-in."""
    from benchmark.tasks import load_task
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack
    from tests.helpers.toy import toy_task

    stack = fake_stack(llm=FakeLLM(lambda m: ""), entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    answers = {"1": "Tornado formation follows storm physics.", "2": "Figs like sun."}
    return load_task(str(toy_task(tmp_path))), answers, stack


#: the platform contract test (tests/unit/test_families.py) runs the plug-in on this mock
CONTRACT_MOCKS = {"toy": contract_mock}
