"""The structure the code promises (CONTRIBUTING.md, "How the code is laid out").

* Packages are layers, each importing only from layers below it (or its own), and no
  modules import each other in a circle.
* No family id is named outside the family's folder and the registry: the platform knows
  families only through :data:`benchmark.families.REGISTRY`.
* A family's settings are declared once: the defaults an empty command line gives are the
  model's defaults, and no family writes its own flags.
* ``formulas.py`` and ``scores.py`` import only the standard library, the family's own
  formulas and trace types: a published result recomputes with no model installed.
* A sixth family is its folder, one registry line and a task card: the toy family in
  ``tests/toy_family`` is registered and scored end to end through the real command line.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from benchmark.families import REGISTRY
from benchmark.families.base import MetricFamily

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "benchmark"

#: bottom to top; a module may import from its own layer and the ones before it
LAYERS = (
    "core",
    "tasks",
    "models",
    "retrieval",
    "judging",
    "generation",
    "families",
    "scoring",
    "board",
    "metaeval",
    "space",
    "api",
    "cli",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 4 and parts[1] == "families" and parts[3] == "commands":
        return "cli"  # a family's sub-commands live with it but are command-line code
    if len(parts) == 1:
        return "api"  # the package root re-exports the API's names
    if parts[1] == "__main__":
        return "cli"
    return parts[1]


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "task_data" not in p.parts}


def imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """The benchmark modules ``path`` imports (``from pkg import sub`` resolved to the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("benchmark")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchmark"):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in MODULES else node.module)
    return out


def test_every_module_sits_in_a_known_layer() -> None:
    unknown = sorted(m for m in MODULES if layer(m) not in LAYERS)
    assert unknown == []


def test_no_layer_imports_from_a_layer_above_it() -> None:
    upward = [
        f"{m} ({layer(m)}) imports {t} ({layer(t)})"
        for m, path in MODULES.items()
        for t in imports(path)
        if t in MODULES and LAYERS.index(layer(t)) > LAYERS.index(layer(m))
    ]
    assert upward == []


def test_no_import_circles() -> None:
    graph = {
        m: {t for t in imports(p, top_level_only=True) if t in MODULES and t != m} for m, p in MODULES.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            visit(v)
    # a package's __init__ that only re-exports its own submodules is not a circle of concepts
    real = [c for c in circles if not all(x.startswith(c[0] + ".") or x == c[0] for x in c)]
    assert real == []


#: quoted family ids that name something else: the RAG setting's JSON key "subq" (sub-
#: question-augmented RAG), written by every outputs, submission and result file; and the
#: "arguments" key of lm-eval's sample logs
ALLOWED_IDS = {("benchmark/core/results.py", "subq"), ("benchmark/generation/outputs.py", "arguments")}


def test_no_family_is_named_outside_its_folder_and_the_registry() -> None:
    ids = "|".join(map(re.escape, REGISTRY))
    quoted = re.compile(rf"[\"']({ids})[\"']")
    imported = re.compile(rf"benchmark\.families\.({ids})\b")
    found = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "hf_space").rglob("*.py")]:
        rel = str(path.relative_to(ROOT))
        if rel.startswith("benchmark/families/") or "task_data" in rel:
            continue  # a family's own folder, and the registry (benchmark/families/__init__.py)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in [*quoted.finditer(line), *imported.finditer(line)]:
                if (rel, m.group(1)) not in ALLOWED_IDS:
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []


def _score_args(*extra: str):  # type: ignore[no-untyped-def]
    from benchmark.cli.main import build_parser

    return build_parser().parse_args(["score", "--outputs", "x.jsonl", "--tasks", "t", *extra])


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_settings_defaults_are_declared_once(family_id: str) -> None:
    family = REGISTRY[family_id]
    assert family.settings_from_args(_score_args()) == family.settings_model()
    for hook in ("settings_from_args", "add_arguments"):
        assert getattr(type(family), hook) is getattr(MetricFamily, hook), (
            f"{family_id} writes its own {hook}"
        )
    from benchmark.cli.main import build_parser

    score = next(
        a for a in build_parser()._subparsers._group_actions[0].choices["score"]._actions if a.dest == "help"
    )
    assert score  # the parser builds: no two families declare one flag
    helps = build_parser()._subparsers._group_actions[0].choices["score"].format_help()
    for flag in family.settings_model.flags().values():
        assert flag in helps


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_every_stage_a_pipeline_names_is_declared(family_id: str) -> None:
    """A dry run lists the declared stages it did not reach; a stage named in the code but
    not declared would be missing from that list (runtime names: tests/integration/test_dry_run.py)."""
    folder = Path(sys.modules[type(REGISTRY[family_id]).__module__].__file__).parent  # type: ignore[arg-type]
    named = {m for p in folder.glob("*.py") for m in re.findall(r'stage\("([^"]+)"\)', p.read_text())}
    declared = REGISTRY[family_id].stages
    assert named, f"{family_id}'s pipeline names no stage"
    undeclared = {n for n in named if not any(n in d.split(":") for d in declared)}
    assert not undeclared, f"{family_id}: stages {sorted(undeclared)} are not in its `stages`"
    after = {d for deps in declared.values() for d in deps}
    assert after <= set(declared), (
        f"{family_id}: depends on undeclared stages {sorted(after - set(declared))}"
    )
    order = list(declared)
    for name, deps in declared.items():  # a stage depends only on stages asked before it
        assert all(order.index(d) < order.index(name) for d in deps), (family_id, name)


def test_a_flag_reaches_the_settings_and_a_bad_value_names_its_flag() -> None:
    from benchmark.core.errors import InputError

    assert REGISTRY["subq"].settings_from_args(_score_args("--subq-weights", "1,0,0")).weights == (
        1.0,
        0.0,
        0.0,
    )
    with pytest.raises(InputError) as err:
        REGISTRY["subq"].settings_from_args(_score_args("--subq-weights", "1,0"))
    assert all(p.field == "--subq-weights" for p in err.value.problems)


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.glob("families/*/formulas.py")) + sorted(PACKAGE.glob("families/*/scores.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_formulas_and_scores_call_no_model(path: Path) -> None:
    family = path.parent.name
    allowed = {
        f"benchmark.families.{family}.formulas",
        f"benchmark.families.{family}.trace",
        f"benchmark.families.{family}",
    }
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        for name in names:
            top = name.split(".")[0]
            assert name in allowed or (top in sys.stdlib_module_names and top != "benchmark"), (
                f"{path.name} imports {name}"
            )


# -- a sixth family: its folder, one registry line, a task card ------------------------------


def test_a_family_from_a_test_folder_runs_through_the_real_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from benchmark.cli.main import main
    from tests.toy_family import ToyFamily

    monkeypatch.setitem(REGISTRY, ToyFamily.id, ToyFamily())  # the one registry line
    task = tmp_path / "toy-task"
    (task / "data").mkdir(parents=True)
    pd.DataFrame(
        {"query_id": ["1", "2"], "text": ["tornado formation physics", "growing figs indoors"]}
    ).to_parquet(task / "data" / "queries.parquet")
    card = {
        "id": "toy-task",
        "name": "Toy task",
        "citation": "",
        "version": "1.0.0",
        "description": "two queries",
        "license": "CC0-1.0",
        "source": {"name": "tests"},
        "metrics": ["toy"],
        "instruction": "Answer.",
        "data": {"tables": {"queries": "queries.parquet"}},
        "corpus": {"kind": "none"},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    outputs = tmp_path / "out.jsonl"
    rows = [
        {"query_id": "1", "answer": "Tornado formation follows storm physics.", "model": "acme/m"},
        {"query_id": "2", "answer": "Figs like sun.", "model": "acme/m"},
    ]
    outputs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(
        ["score", "--outputs", str(outputs), "--tasks", str(task), "--toy-min-length", "5", "--no-progress"]
    )
    assert code == 0
    (result,) = (tmp_path / "results").rglob("toy-task.toy.json")
    data = json.loads(result.read_text(encoding="utf-8"))
    assert data["settings"] == {"min_length": 5}
    per_query = {q["query_id"]: q["scores"]["word_recall"] for q in data["per_query"]}
    assert per_query == {"1": 1.0, "2": 0.0}  # "figs" is under 5 letters; "growing", "indoors" are missing
    assert main(["leaderboard", "--results-dir", "results", "--out", "snap"]) == 0
    assert "acme/m" in (tmp_path / "snap" / "toy.csv").read_text(encoding="utf-8")
