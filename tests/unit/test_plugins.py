"""Metric families from outside packages: the ``groundcover.families`` entry point group.

The toy family (``tests/toy_family``, installed in the test environment) is the working
example; ``tests/unit/test_architecture.py`` scores it through the real command line.  Here,
plug-ins written carelessly, each a real distribution (a ``.dist-info`` with its entry points
on ``sys.path``, found by ``importlib.metadata`` as pip-installed ones are): every one is
refused in one line naming it, when it loads, and never takes the built-in families, or
the command line, down with it.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmark.core.registry import BUILTIN, ENTRY_POINT_GROUP, Registry

ROOT = Path(__file__).resolve().parents[2]

#: a valid plug-in family's package: {id}, {settings} (the settings class body) and {inputs}
FAMILY = """
from benchmark.families.base import FamilySettings, InputFile, MetricFamily, ScoreColumn, option
from groundcover_toy_family.trace import ToyTrace


class Settings(FamilySettings):
{settings}


FAMILY = MetricFamily(
    id={id!r}, title="plug-in", description="a test plug-in", primary="x",
    columns=(ScoreColumn("x", "x", "x"),), trace_model=ToyTrace, settings_model=Settings,
    inputs={inputs},
)
"""
PIPELINE = "from groundcover_toy_family.pipeline import prepare, score_batch  # noqa: F401\n"
SCORES = "from groundcover_toy_family.scores import trace_scores  # noqa: F401\n"


@dataclass
class Plugin:
    """One distribution: its entry points (name -> ``module:object``) and its packages
    (name -> the ``__init__.py`` text, with the toy's pipeline and scores beside it)."""

    entries: dict[str, str]
    packages: dict[str, str] = field(default_factory=dict)


def family(fid: str, settings: str = "    pass", inputs: str = "()") -> str:
    return FAMILY.format(id=fid, settings=settings, inputs=inputs)


def install(root: Path, dists: dict[str, Plugin]) -> None:
    for dist, plugin in dists.items():
        info = root / f"{dist}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        lines = "".join(f"{name} = {value}\n" for name, value in plugin.entries.items())
        (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
        for package, text in plugin.packages.items():
            (root / package).mkdir()
            (root / package / "__init__.py").write_text(text, encoding="utf-8")
            (root / package / "pipeline.py").write_text(PIPELINE)
            (root / package / "scores.py").write_text(SCORES)


#: case -> (the distributions, {refused entry point name: what its line says}); the crash
#: cases of issue 48 (each took every command down) and the rules around them
CASES: dict[str, tuple[dict[str, Plugin], dict[str, str]]] = {
    "a setting's flag is a built-in family's setting": (
        {"p1": Plugin({"clash_a": "gcp_clash_a:FAMILY"}, {"gcp_clash_a": family(
            "clash_a", '    flag_prefix = "exam"\n    answerer: str = option("x", "h")')})},
        {"clash_a": "flag --exam-answerer is also exam's"},
    ),
    "a setting's flag is a built-in family's input file": (
        {"p2": Plugin({"clash_b": "gcp_clash_b:FAMILY"}, {"gcp_clash_b": family(
            "clash_b", '    files: str = option("x", "h", flag="--nuggets")')})},
        {"clash_b": "flag --nuggets is also nuggets's"},
    ),
    "a setting's flag is the --no- form of a built-in's switch": (
        {"p3": Plugin({"clash_c": "gcp_clash_c:FAMILY"}, {"gcp_clash_c": family(
            "clash_c", '    no_ground: int = option(1, "h")')})},
        {"clash_c": "flag --no-ground is also decompscore's"},
    ),
    "an input file's flag is a built-in family's setting": (
        {"p4": Plugin({"clash_d": "gcp_clash_d:FAMILY"}, {"gcp_clash_d": family(
            "clash_d", inputs='(InputFile("f", "--subq-judge", "h"),)')})},
        {"clash_d": "flag --subq-judge is also subq's"},
    ),
    "two plug-ins declare one flag": (
        {
            "p5": Plugin({"clash_e": "gcp_clash_e:FAMILY"}, {"gcp_clash_e": family(
                "clash_e", '    shared: int = option(1, "h", flag="--plugin-shared")')}),
            "p6": Plugin({"clash_f": "gcp_clash_f:FAMILY"}, {"gcp_clash_f": family(
                "clash_f", inputs='(InputFile("f", "--plugin-shared", "h"),)')}),
        },
        {"clash_e": "is also clash_f's", "clash_f": "is also clash_e's"},
    ),
    "a plug-in declares one flag twice": (
        {"p7": Plugin({"clash_g": "gcp_clash_g:FAMILY"}, {"gcp_clash_g": family(
            "clash_g", '    twice: int = option(1, "h")', inputs='(InputFile("f", "--twice", "h"),)')})},
        {"clash_g": "declares the flag --twice twice"},
    ),
    "an entry point with an empty attribute": (
        {"p8": Plugin({"empty": "gcp_empty:"}, {"gcp_empty": family("empty")})},
        {"empty": "failed to load: ValueError: name 'module:object'"},
    ),
    "an id that is a list": (
        {"p9": Plugin({"listed": "gcp_listed:FAMILY"}, {"gcp_listed": family("listed").replace(
            "id='listed'", "id=['listed']")})},
        {"listed": "failed to load: ValueError: metric family ['listed']: id: Input should be a valid string"},
    ),
    "an id that is a raising property": (
        {"p10": Plugin({"raising": "gcp_raising:FAMILY"}, {"gcp_raising": (
            "class Sneaky:\n    @property\n    def id(self):\n        raise RuntimeError('no id')\n\n"
            "FAMILY = Sneaky()\n")})},
        {"raising": "is a Sneaky, not a MetricFamily value"},
    ),
    "a plug-in declares another plug-in's id, loading first by name": (
        {
            "p11": Plugin({"aaa": "gcp_aaa:FAMILY"}, {"gcp_aaa": family("zzz")}),
            "p12": Plugin({"zzz": "gcp_zzz:FAMILY"}, {"gcp_zzz": family("zzz")}),
        },
        {"aaa": "declares the id 'zzz': a plug-in's id is its entry point's name"},
    ),
    "SystemExit at import": (
        {"p13": Plugin({"exits": "gcp_exits:FAMILY"}, {"gcp_exits": "raise SystemExit(3)\n"})},
        {"exits": "failed to load: SystemExit: 3"},
    ),
    "two plug-ins with one id": (
        {
            "p14": Plugin({"dup": "gcp_dup_one:FAMILY"}, {"gcp_dup_one": family("dup")}),
            "p15": Plugin({"dup": "gcp_dup_two:FAMILY"}, {"gcp_dup_two": family("dup")}),
        },
        {"dup": "is declared by 2 entry points (gcp_dup_one:FAMILY from p14; gcp_dup_two:FAMILY from p15)"},
    ),
    "a built-in family's id": (
        {"p16": Plugin({"icat": "gcp_icat:FAMILY"}, {"gcp_icat": family("icat")})},
        {"icat": "the id 'icat' is a built-in family's; a plug-in may not take it"},
    ),
    "a table another family declares with another schema": (
        {"p17": Plugin({"tabled": "gcp_tabled:FAMILY"}, {"gcp_tabled": family("tabled").replace(
            "    inputs=()", "    inputs=(),\n    tables=(TableSchema('nuggets', (Column('query_id', 'str'),), key=('query_id',)),)"
        ).replace("from benchmark", "from benchmark.core.schema import Column, TableSchema\nfrom benchmark", 1)})},
        {"tabled": "table nuggets is also nuggets's"},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_a_broken_plugin_is_refused_in_one_line_and_the_builtins_stay(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    dists, refused = CASES[case]
    install(tmp_path, dists)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry()
    with caplog.at_level(logging.ERROR, logger="benchmark.core.registry"):
        names = list(registry)
    errors = registry.errors
    assert names[: len(BUILTIN)] == list(BUILTIN)  # every built-in family, in its order
    assert all(registry[f].id == f and registry[f].package == f"benchmark.families.{f}" for f in BUILTIN)
    assert not (set(refused) - set(BUILTIN)) & set(names), names
    for name, says in refused.items():
        (line,) = [e for e in errors if f"metric family plug-in {name!r}" in e]
        assert "\n" not in line and says in line, line
    assert [r.getMessage() for r in caplog.records] == errors  # each logged once, as it happened
    loaded = {e for d in dists.values() for e in d.entries} - set(refused)
    assert loaded <= set(names)  # the victim of another's id, a plug-in beside a refused one, loads


def test_a_plugin_printing_40000_lines_at_import_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    install(tmp_path, {"loud": Plugin({"loud": "gcp_loud:FAMILY"}, {"gcp_loud": (
        "for n in range(40_000):\n    print(f'line {n}')\n" + family("loud"))})})  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="benchmark.core.registry"):
        assert registry["loud"].id == "loud"  # a plug-in may print; it loads
    out = capsys.readouterr()
    assert "line 0" not in out.out + out.err
    (shown,) = [r.getMessage() for r in caplog.records]
    assert "printed 40000 line(s) while importing (the first 20 shown)" in shown
    assert shown.count("\n") <= 21 and "line 19" in shown and "line 20" not in shown


def test_a_card_lists_the_default_families_not_the_allowed_ones() -> None:
    """A plug-in scores a bundled task that has the tables it declares, though the card (inside
    the installed package) does not list it; a family whose tables the task lacks is refused."""
    from benchmark.core.errors import InputError
    from benchmark.families import families_for
    from benchmark.tasks import load_task

    task = load_task("webtrack-2009-2012")
    assert "toy" not in task.card.metrics
    assert [f.id for f in families_for(task, ["toy"])] == ["toy"]
    with pytest.raises(
        InputError, match=r"icat needs the table\(s\) \['aspects'\], which task researchy-dev"
    ):
        families_for(load_task("researchy-dev"), ["icat"])


def test_the_command_line_stands_with_every_broken_plugin_installed(tmp_path: Path) -> None:
    """All of the above installed at once, and one whose flag is a command's own (``--seed``):
    ``benchmark --help`` (which lists the families' commands) and ``benchmark score --help``
    (which adds their flags) exit 0 and print what is refused, one line each, and nothing of
    the 40,000 lines; ``benchmark validate --help`` loads no plug-in."""
    everything = {f"{d}": p for _, (dists, _) in CASES.items() for d, p in dists.items()}
    everything["loud"] = Plugin({"loud": "gcp_loud:FAMILY"}, {"gcp_loud": (
        "for n in range(40_000):\n    print(f'line {n}')\n" + family("loud"))})  # fmt: skip
    everything["seeded"] = Plugin(
        {"seeded": "gcp_seeded:FAMILY"}, {"gcp_seeded": family("seeded", '    seed: int = option(1, "h")')}
    )
    install(tmp_path, everything)
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    broken = {n for _, (_, r) in CASES.items() for n in r}
    for argv, refused in (
        (["--help"], broken),
        (["score", "--help"], broken | {"seeded"}),
        (["validate", "--help"], set()),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "benchmark", *argv], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "usage: benchmark" in done.stdout
        err = done.stderr.splitlines()
        for name in refused:
            assert sum(f"metric family plug-in {name!r}" in line for line in err) == 1, (name, err)
        assert ("seeded" in " ".join(e for e in err if "--seed" in e)) == ("seeded" in refused)
        assert len(err) < 80 and "line 20" not in done.stderr


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
