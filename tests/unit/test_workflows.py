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


def run_step(
    repo: Path, name: str, workflow: str = "submission.yml", **env: str
) -> subprocess.CompletedProcess[str]:
    script = steps(workflow)[name]["run"]
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
    assert (
        run_step(r, "Validate (all or nothing)", JUDGE_PROFILE="offline-smollm2-minilm-sim").returncode == 0
    )
    argv = "[validate][--budget][--judge-profile][offline-smollm2-minilm-sim][submissions/acme__tiny-model]\n"
    assert (cli.parent / "argv").read_text() == argv


def test_code_changes_are_refused_in_a_submission_pull_request(repo: tuple[Path, str]) -> None:
    r, base = repo
    (r / "benchmark.py").write_text("print('sneaky')\n")
    add_folder(r, "acme__tiny-model")
    proc = run_step(r, "Changed submission folders", BASE=base)
    assert proc.returncode != 0 and "may only touch submissions/" in proc.stdout


# -- the privileged half: comments from an artifact, publishes without racing --------------


def jobs(workflow: str) -> dict[str, dict]:
    return yaml.safe_load((WORKFLOWS / workflow).read_text(encoding="utf-8"))["jobs"]


def test_no_job_that_reads_pull_request_files_can_write() -> None:
    for name, job in jobs("submission.yml").items():
        writes = [k for k, v in (job.get("permissions") or {}).items() if v == "write"]
        if writes:  # only the publish job, and only on a push to main (after review and merge)
            assert name == "publish" and job["if"] == "github.event_name == 'push'", name
            assert job["concurrency"]["cancel-in-progress"] is False
    comment = jobs("submission-comment.yml")["comment"]
    assert comment["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any("checkout" in str(step.get("uses", "")) for step in comment["steps"])
    on = yaml.safe_load((WORKFLOWS / "submission-comment.yml").read_text(encoding="utf-8"))[True]
    assert list(on) == ["workflow_run"]


@pytest.fixture
def fake_gh(tmp_path: Path) -> Path:
    """A stand-in for the GitHub CLI that records its arguments and answers `pr view` with
    the head commit in $FAKE_HEAD."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done >> "$FAKE_LOG"\necho >> "$FAKE_LOG"\n'
        'if [ "$2" = view ]; then echo "$FAKE_HEAD"; fi\n'
    )
    gh.chmod(0o755)
    return bin_dir


def comment(tmp_path: Path, bin_dir: Path, pr_number: bytes, head: str = "abc") -> tuple[int, str]:
    work = tmp_path / "work"
    (work / "scored").mkdir(parents=True, exist_ok=True)
    (work / "scored" / "pr_number.txt").write_bytes(pr_number)
    (work / "scored" / "comment.md").write_text("| rank |\n$(touch INJECTED)\n")
    log = tmp_path / "gh.log"
    log.write_text("")
    script = steps("submission-comment.yml")["Comment the table"]["run"]
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOME": str(work),
        "REPO": "org/repo",
        "HEAD_SHA": "abc",
        "FAKE_HEAD": head,
        "FAKE_LOG": str(log),
    }
    proc = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True)
    assert not list(tmp_path.rglob("INJECTED"))
    return proc.returncode, log.read_text()


@pytest.mark.parametrize(
    "pr", [b"12; touch INJECTED", b"$(touch INJECTED)", b"12\n34", b"", b"-1", b"1" * 40]
)
def test_a_hostile_artifact_never_comments(tmp_path: Path, fake_gh: Path, pr: bytes) -> None:
    code, calls = comment(tmp_path, fake_gh, pr)
    assert code != 0 and "[comment]" not in calls


def test_the_comment_goes_to_the_scored_pull_request_only(tmp_path: Path, fake_gh: Path) -> None:
    code, calls = comment(tmp_path, fake_gh, b"12")
    assert code == 0 and "[pr][comment][12][--repo][org/repo][--body-file][body.md]" in calls
    code, calls = comment(tmp_path, fake_gh, b"12", head="another-commit")  # an artifact naming another PR
    assert code != 0 and "[comment]" not in calls


def test_publish_rebases_when_another_merge_published_first(tmp_path: Path) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(origin), str(seed))
    (seed / "leaderboard" / "results").mkdir(parents=True)
    (seed / "leaderboard" / "results" / "README").write_text("results\n")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git(seed, "push", "-q", "origin", "HEAD:main")
    ours = tmp_path / "ours"
    git(tmp_path, "clone", "-q", str(origin), str(ours))
    # a first merge publishes while this job is still scoring
    (seed / "leaderboard" / "results" / "a.json").write_text("{}\n")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results: a")
    git(seed, "push", "-q", "origin", "HEAD:main")
    (ours / "leaderboard" / "results" / "b.json").write_text("{}\n")
    (ours / "leaderboard" / "snapshot").mkdir()
    proc = run_step(ours, "Commit results", SHA="cafe")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    published = git(origin, "ls-tree", "-r", "--name-only", "main")
    assert "leaderboard/results/a.json" in published and "leaderboard/results/b.json" in published
    assert git(origin, "log", "-1", "--format=%s", "main") == "results: score submissions cafe"
