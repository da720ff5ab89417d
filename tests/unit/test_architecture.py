"""The structure the code promises (CONTRIBUTING.md, "How the code is laid out").

* Packages are layers, each importing only from layers below it (or its own), and no
  modules import each other in a circle.  Both checks follow every import: at module
  level, inside functions, under ``TYPE_CHECKING``, and ``importlib.import_module`` /
  ``__import__`` of a literal name (or of a module-level string constant).  There is no
  exception list: a family's ``commands.py`` is families-layer code, given what it needs
  from above by the command line (:class:`benchmark.families.command_context.CommandContext`).
* No family id is named outside the family's folder and the registry: the platform knows
  families only through :data:`benchmark.core.registry.REGISTRY`, which names the built-in
  ones as ``"module:object"`` strings and imports none of them until asked; nor are the
  tables, judge roles and prompts a family declares.
* A family's settings are declared once: the defaults an empty command line gives are the
  model's defaults, and no family writes its own flags.
* ``formulas.py`` and ``scores.py`` import only the standard library, the family's own
  formulas and trace types: a published result recomputes with no model installed.
* A family written as an outside package needs no edit inside ``benchmark/``: the toy
  family (``tests/toy_family``, distribution ``groundcover-toy-family``) is found through
  its ``groundcover.families`` entry point and scored end to end through the real
  command line and shown on a board.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

from benchmark.core.registry import BUILTIN, REGISTRY

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "benchmark"

#: bottom to top; a module may import from its own layer and the ones before it
LAYERS = (
    "core",
    "tasks",
    "answers",
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
    if len(parts) == 1:
        return "api"  # the package root re-exports the API's names
    if parts[1] == "__main__":
        return "cli"
    return parts[1]


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if "task_data" not in p.parts}

#: the functions that import a module named by a string
DYNAMIC_IMPORTS = {"import_module", "__import__"}


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments: what a dynamic import may name."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and isinstance(node.value.value, str):
                    out[t.id] = node.value.value
    return out


def imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """The benchmark modules ``path`` imports (``from pkg import sub`` resolved to the
    submodule): every import statement, in functions too unless ``top_level_only``, and
    every ``importlib.import_module(...)`` / ``__import__(...)`` of a literal string or a
    module-level string constant."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    constants = _string_constants(tree)
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("benchmark")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchmark"):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in MODULES else node.module)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in DYNAMIC_IMPORTS:
                continue
            arg = node.args[0]
            target = (
                arg.value
                if isinstance(arg, ast.Constant)
                else constants.get(arg.id)
                if isinstance(arg, ast.Name)
                else None
            )
            if isinstance(target, str) and target.startswith("benchmark"):
                out.add(target)
    return out


def test_imports_are_followed_into_functions_and_dynamic_imports(tmp_path: Path) -> None:
    """The checks below see an import inside a function and one by a string, which is how
    the task layer once reached the families unseen (a 48-module circle)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\n"
        "REGISTRY = 'benchmark.families'\n"
        "def f():\n"
        "    from benchmark.cli import main\n"
        "    importlib.import_module(REGISTRY)\n"
        "    __import__('benchmark.scoring.runner')\n",
        encoding="utf-8",
    )
    assert imports(probe) == {"benchmark.cli.main", "benchmark.families", "benchmark.scoring.runner"}
    assert imports(probe, top_level_only=True) == set()


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
    graph = {m: {t for t in imports(p) if t in MODULES and t != m} for m, p in MODULES.items()}
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


#: what only a reader of an answer format writes: a row checked against the outputs schema,
#: an lm-eval sample's response, a TREC RAG run's length field, an answer's ``[n]`` citation
FORMAT_READING = re.compile(
    r"OutputRow\.model_validate|filtered_resps|\"resps\"|response_length|\\\[\(\\s\*\\d"
)
#: family-owned formats stay in their family (nuggetizer's input files are a TREC RAG run)
OWN_FORMATS = {"benchmark/families/nuggets/nuggetizer_files.py"}


def test_answer_formats_are_read_only_in_the_answers_package() -> None:
    """One place reads each answer format (outputs JSONL, lm-eval sample logs, TREC RAG
    runs, citations): :mod:`benchmark.answers`; every other module calls it."""
    assert FORMAT_READING.search('_CITATION = re.compile(r"\\[(\\s*\\d{1,3})\\]")')  # the check sees a regex
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = str(path.relative_to(ROOT))
        if rel.startswith("benchmark/answers/") or rel in OWN_FORMATS:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if FORMAT_READING.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []


#: the registry: it names the built-in families (``"module:object"``), importing none
REGISTRY_MODULE = "benchmark/core/registry.py"

#: quoted family ids that name something else: the RAG setting's JSON key "subq" (sub-
#: question-augmented RAG), written by every outputs, submission and result file; and the
#: "arguments" key of lm-eval's sample logs
ALLOWED_IDS = {("benchmark/core/results.py", "subq"), ("benchmark/answers/lm_eval_log.py", "arguments")}


def test_no_family_is_named_outside_its_folder_and_the_registry() -> None:
    ids = "|".join(map(re.escape, REGISTRY))
    quoted = re.compile(rf"[\"']({ids})[\"']")
    imported = re.compile(rf"benchmark[./]families[./]({ids})\b")
    found = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "hf_space").rglob("*.py")]:
        rel = str(path.relative_to(ROOT))
        if rel.startswith("benchmark/families/") or rel == REGISTRY_MODULE or "task_data" in rel:
            continue  # a family's own folder, and the registry's names of the built-in ones
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in [*quoted.finditer(line), *imported.finditer(line)]:
                if (rel, m.group(1)) not in ALLOWED_IDS:
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []


def declared_names() -> dict[str, str]:
    """What the families declare, by name -> family id: their task tables, judge roles and
    prompts (``name@version`` references).  A name the task layer declares for every task
    (the shared ``aspects`` table, also a prompt's name) is not a family's."""
    from benchmark.core.registry import prompt_folder
    from benchmark.core.schema import SHARED

    shared = set(SHARED)
    out = {}
    for fid, family in REGISTRY.items():
        folder = prompt_folder(family.package)
        prompts = [p.stem.rpartition("-v")[0] for p in folder.glob("*.yaml")] if folder else []
        for name in [*(t.name for t in family.tables), *(r.name for r in family.judge_roles), *prompts]:
            if name not in shared:
                out[name] = fid
    return out


#: TODO(issue 38): names a family declares that code outside its folder still spells out;
#: each should come from the family (its declaration, or the registry).  This list only
#: shrinks.  (file, name)
DECLARED_NAMES_USED_ELSEWHERE = {
    ("benchmark/generation/plan.py", "sub_questions"),  # sub-question RAG reads the subq table
    ("benchmark/generation/rag.py", "sub_questions"),
    ("benchmark/api/judge_card.py", "argument-quality"),  # --argument-sets measure that role
    ("benchmark/metaeval/human_sets.py", "argument-quality"),  # the public sets of that role
    # Task.from_records / `benchmark tasks new`: the public keyword arguments and flags name
    # the tables a user hands in (README, docs/own-data.md)
    ("benchmark/tasks/builder.py", "gold_articles"),
    ("benchmark/cli/tasks.py", "sub_questions"),
    ("benchmark/cli/tasks.py", "exam_questions"),
}


def test_no_table_role_or_prompt_of_a_family_is_named_outside_its_folder() -> None:
    names = declared_names()
    assert {"exam_questions", "exam-answerer", "exam-reader"} <= set(names)  # the check sees them
    quoted = re.compile(r"[\"']([A-Za-z0-9_-]+)(?:@\d+)?[\"']")
    found = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "hf_space").rglob("*.py")]:
        rel = str(path.relative_to(ROOT))
        if rel.startswith("benchmark/families/") or rel == REGISTRY_MODULE or "task_data" in rel:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in quoted.finditer(line):
                if m.group(1) in names and (rel, m.group(1)) not in DECLARED_NAMES_USED_ELSEWHERE:
                    found.append(f"{rel}:{n}: {m.group(1)} ({names[m.group(1)]}'s): {line.strip()}")
    assert found == []


def _score_args(*extra: str):  # type: ignore[no-untyped-def]
    from benchmark.cli.main import build_parser

    return build_parser().parse_args(["score", "--outputs", "x.jsonl", "--tasks", "t", *extra])


@pytest.mark.parametrize("family_id", list(REGISTRY))
def test_settings_defaults_are_declared_once(family_id: str) -> None:
    from benchmark.cli.main import build_parser
    from benchmark.cli.settings import from_args

    family = REGISTRY[family_id]
    assert from_args(family.settings_model, _score_args()) == family.settings_model()
    for hook in ("from_args", "add_arguments"):  # argparse lives in the command line's adapter only
        assert not hasattr(family.settings_model, hook), f"{family_id}'s settings write their own {hook}"

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
    import importlib

    folder = Path(importlib.import_module(REGISTRY[family_id].package).__file__ or "").parent
    named = {m for p in folder.glob("*.py") for m in re.findall(r'stage\("([^"]+)"\)', p.read_text())}
    declared = REGISTRY[family_id].stages
    # a family that asks no model (the toy plug-in) names and declares none
    assert named or not declared, f"{family_id}'s pipeline names no stage"
    assert named or family_id not in BUILTIN, f"{family_id}'s pipeline names no stage"
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
    from benchmark.cli.settings import from_args
    from benchmark.core.errors import InputError

    subq = REGISTRY["subq"].settings_model
    assert from_args(subq, _score_args("--subq-weights", "1,0,0")).weights == (1.0, 0.0, 0.0)
    with pytest.raises(InputError) as err:
        from_args(subq, _score_args("--subq-weights", "1,0"))
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


# -- a family from an outside package: no edit inside benchmark/ ------------------------------


def test_a_family_from_an_outside_package_runs_through_the_real_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.metadata import entry_points

    from benchmark.cli.main import main
    from benchmark.core.registry import ENTRY_POINT_GROUP
    from tests.helpers.toy import toy_task

    found = {e.name: e for e in entry_points(group=ENTRY_POINT_GROUP)}
    assert "toy" in found, (
        "install the toy family: pip install --no-deps -e tests/toy_family (setup.sh --dev)"
    )
    assert REGISTRY.errors == []
    family = REGISTRY["toy"]  # registered by its entry point alone, no line in benchmark/
    module = Path(sys.modules[family.package].__file__ or "")
    assert PACKAGE not in module.parents and family.package == "groundcover_toy_family"
    task = toy_task(tmp_path)
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
