"""The submission workflow's own shell steps, run on hostile folder names.

The steps' scripts are taken from ``.github/workflows/submission.yml`` and run with bash in
a scratch git repository, as GitHub runs them: a pull request adding
``submissions/acme__x$(touch${IFS}INJECTED)/model.yaml`` must be rejected before anything
else runs, and nothing it names may ever execute.  A static check keeps untrusted text out
of every ``run:`` script: values reach the shell through quoted environment variables only.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"


def steps(workflow: str) -> dict[str, dict]:
    data = yaml.safe_load((WORKFLOWS / workflow).read_text(encoding="utf-8"))
    return {s.get("name", ""): s for job in data["jobs"].values() for s in job["steps"]}


@pytest.mark.parametrize("workflow", sorted(p.name for p in WORKFLOWS.glob("*.yml")))
def test_no_expression_is_pasted_into_a_shell(workflow: str) -> None:
    for name, step in steps(workflow).items():
        assert "${{" not in step.get("run", ""), f"{workflow}: step {name!r} pastes ${{{{ }}}} into run:"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    r = tmp_path / "repo"
    (r / "submissions").mkdir(parents=True)
    (r / "submissions" / "README.md").write_text("submissions\n")
    git(r, "init", "-q")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return r, git(r, "rev-parse", "HEAD")


def add_folder(repo: Path, name: str) -> None:
    folder = repo / "submissions" / name
    folder.mkdir(parents=True)
    (folder / "model.yaml").write_text("name: x\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pr")


def run_step(repo: Path, name: str, **env: str) -> subprocess.CompletedProcess[str]:
    script = steps("submission.yml")[name]["run"]
    full_env = {"PATH": os.environ["PATH"], "HOME": str(repo), **env}
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=repo, env=full_env, capture_output=True, text=True
    )


HOSTILE = [
    "acme__x$(touch${IFS}INJECTED)",
    "acme__x`touch INJECTED`",
    "acme;touch INJECTED",
    "acme__x\ntouch INJECTED",
    "..hidden",
    "acme__x'$(touch INJECTED)'",
]


@pytest.mark.parametrize("name", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_folder_names_are_rejected_and_never_run(repo: tuple[Path, str], name: str) -> None:
    r, base = repo
    add_folder(r, name)
    proc = run_step(r, "Changed submission folders", BASE=base)
    assert proc.returncode != 0 and "may use only letters" in proc.stdout
    assert not list(r.rglob("INJECTED")) and not list(Path.cwd().rglob("INJECTED"))


def test_honest_folder_is_listed_then_validated_by_quoted_name(repo: tuple[Path, str]) -> None:
    r, base = repo
    add_folder(r, "acme__tiny-model")
    proc = run_step(r, "Changed submission folders", BASE=base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (r / "folders.txt").read_text() == "submissions/acme__tiny-model\n"
    # the validate step hands each folder to the CLI as one argument; a recording stand-in
    # for the CLI shows exactly what it received
    cli = r / ".venv" / "bin" / "benchmark"
    cli.parent.mkdir(parents=True)
    cli.write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done >> "$(dirname "$0")/argv"\necho >> "$(dirname "$0")/argv"\n'
    )
    cli.chmod(0o755)
    assert run_step(r, "Validate (all or nothing)").returncode == 0
    assert (cli.parent / "argv").read_text() == "[validate][submissions/acme__tiny-model]\n"


def test_code_changes_are_refused_in_a_submission_pull_request(repo: tuple[Path, str]) -> None:
    r, base = repo
    (r / "benchmark.py").write_text("print('sneaky')\n")
    add_folder(r, "acme__tiny-model")
    proc = run_step(r, "Changed submission folders", BASE=base)
    assert proc.returncode != 0 and "may only touch submissions/" in proc.stdout
