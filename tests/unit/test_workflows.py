"""The submission workflows' security, statically and by running their steps on hostile input.

Static checks over every workflow file: untrusted text never reaches a shell through
``${{ }}`` inside ``run:`` (values come in through quoted environment variables); secrets
are referenced only by jobs that run on trusted events (a push, a maintainer's
workflow_dispatch, a schedule), never on a pull request; no job checks out a pull
request's code under ``pull_request_target``; no job that reads a pull request's files can
write; every action is pinned by commit SHA.  Each rule's checker is first shown a
workflow that breaks it, so that it can fail.

Then the folder-listing script (``scripts/submission_folders.sh``, the first step of the
check and record jobs) runs in scratch git repositories as GitHub runs it: a pull request
adding ``submissions/acme__x$(touch${IFS}INJECTED)/model.yaml`` is rejected before anything
else runs and nothing it names ever executes, and a maintainer's approval takes only the
approved commit's plain files under ``submissions/``.  The comment workflow's script runs on
hostile artifacts.  The jobs themselves run end to end in tests/integration/test_hosted_board.py.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.workflows import condition, workflow

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
FOLDERS = ROOT / "scripts" / "submission_folders.sh"
ALL = sorted(p.name for p in WORKFLOWS.glob("*.yml"))
#: events whose jobs run with what a stranger wrote, or on their request
UNTRUSTED = ("pull_request", "pull_request_target", "issue_comment", "pull_request_review", "workflow_run")


def steps(name: str) -> dict[str, dict]:
    data = workflow(name)
    return {s.get("name", ""): s for job in data["jobs"].values() for s in job["steps"]}


@pytest.mark.parametrize("name", ALL)
def test_no_expression_is_pasted_into_a_shell(name: str) -> None:
    for step_name, step in steps(name).items():
        assert "${{" not in step.get("run", ""), f"{name}: step {step_name!r} pastes ${{{{ }}}} into run:"


def events(data: dict[str, Any]) -> list[str]:
    on = data["on"]
    return [on] if isinstance(on, str) else list(on)


def secrets_on_untrusted_events(data: dict[str, Any]) -> list[str]:
    """Jobs that reference a secret and may run on an event a stranger can cause."""
    found = []
    for name, job in data["jobs"].items():
        if "secrets." not in yaml.safe_dump(job):
            continue
        for event in events(data):
            if event in UNTRUSTED and condition(job.get("if"), {"github.event_name": event}) is not False:
                found.append(f"{name} on {event}")
    return found


def pull_request_code_under_target(data: dict[str, Any]) -> list[str]:
    """Steps that check out or fetch a pull request's code in a ``pull_request_target`` run."""
    if "pull_request_target" not in events(data):
        return []
    found = []
    for name, job in data["jobs"].items():
        for step in job.get("steps", []):
            text = yaml.safe_dump(step)
            if (
                "checkout" in str(step.get("uses", ""))
                and "pull_request" in str((step.get("with") or {}).get("ref", ""))
            ) or re.search(r"refs/pull|pull_request\.head|git (fetch|checkout)[^\n]*\$\{?PR", text):
                found.append(f"{name}: {step.get('name') or step.get('uses')}")
    return found


BAD = yaml.safe_load(
    """
on: [pull_request_target, push]
jobs:
  score:
    steps:
      - uses: actions/checkout@0000000000000000000000000000000000000000 # v4
        with: {ref: "${{ github.event.pull_request.head.sha }}"}
      - run: ./score
        env: {KEY: "${{ secrets.JUDGE_API_KEY }}"}
  fine:
    if: github.event_name == 'push'
    steps:
      - run: ./publish
        env: {KEY: "${{ secrets.HF_TOKEN }}"}
"""
)
BAD["on"] = BAD.pop(True)


def test_the_checkers_find_what_breaks_their_rule() -> None:
    assert secrets_on_untrusted_events(BAD) == ["score on pull_request_target"]
    assert pull_request_code_under_target(BAD) == [
        "score: actions/checkout@0000000000000000000000000000000000000000"
    ]
    # an `if` that admits a pull request, or says nothing about the event, is not a guard
    for guard in (
        "github.event_name != 'push'",
        "github.ref == 'refs/heads/main'",
        "github.event_name == 'pull_request_target' || github.event_name == 'push'",
    ):
        BAD["jobs"]["fine"]["if"] = guard
        assert "fine on pull_request_target" in secrets_on_untrusted_events(BAD), guard


@pytest.mark.parametrize("name", ALL)
def test_secrets_only_in_jobs_on_trusted_events(name: str) -> None:
    assert secrets_on_untrusted_events(workflow(name)) == []


@pytest.mark.parametrize("name", ALL)
def test_no_pull_request_code_is_checked_out_under_pull_request_target(name: str) -> None:
    assert pull_request_code_under_target(workflow(name)) == []


def test_the_judge_of_record_runs_only_on_a_push_or_an_approval_on_main() -> None:
    record = workflow("submission.yml")["jobs"]["record"]
    runs = lambda **facts: condition(record["if"], facts)  # noqa: E731
    assert runs(**{"github.event_name": "push"}) is True
    assert runs(**{"github.event_name": "workflow_dispatch", "github.ref": "refs/heads/main"}) is True
    assert runs(**{"github.event_name": "workflow_dispatch", "github.ref": "refs/heads/fork-branch"}) is False
    assert runs(**{"github.event_name": "pull_request"}) is False
    check = workflow("submission.yml")["jobs"]["check"]
    assert "secrets." not in yaml.safe_dump(check)
    assert condition(check["if"], {"github.event_name": "pull_request"}) is True
    assert condition(check["if"], {"github.event_name": "push"}) is False
    # every checkout in a job with secrets leaves no credentials behind for later steps
    for name in ALL:
        for job_name, job in workflow(name)["jobs"].items():
            if "secrets." in yaml.safe_dump(job):
                for step in job["steps"]:
                    if "checkout" in str(step.get("uses", "")):
                        assert step["with"]["persist-credentials"] is False, f"{name}: {job_name}"


def test_every_action_is_pinned_by_commit_sha_with_its_tag_beside_it() -> None:
    """A tag can be moved to other code; a commit SHA cannot.  Every ``uses:`` of every
    workflow (steps and reusable workflows alike) names a 40-hex commit, and the line says
    which release tag that commit was taken from."""
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert files
    seen = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
        parsed: list[str] = []
        for job in (yaml.safe_load(text).get("jobs") or {}).values():
            parsed += [job["uses"]] if "uses" in job else []
            parsed += [s["uses"] for s in job.get("steps", []) if "uses" in s]
        assert len(lines) == len(parsed), f"{path.name}: a uses: the line scan missed"
        for line, uses in zip(lines, parsed, strict=True):
            assert re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}", uses), (
                f"{path.name}: {uses!r} is not pinned by a full commit SHA"
            )
            assert re.search(r"@[0-9a-f]{40}\s+#\s*v\d+(\.\d+)*\s*$", line), (
                f"{path.name}: {line.strip()!r} does not name its tag in a comment"
            )
            seen += 1
    assert seen >= 5


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    r = tmp_path / "repo"
    (r / "submissions").mkdir(parents=True)
    (r / "submissions" / "README.md").write_text("submissions\n")
    git(r, "init", "-q", "-b", "main")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return r, git(r, "rev-parse", "HEAD")


def add_folder(repo: Path, name: str) -> str:
    folder = repo / "submissions" / name
    folder.mkdir(parents=True)
    (folder / "model.yaml").write_text("name: x\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pr")
    return git(repo, "rev-parse", "HEAD")


def list_folders(repo: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``scripts/submission_folders.sh`` in ``repo``, as the check and record jobs run it."""
    full_env = {"PATH": os.environ["PATH"], "HOME": str(repo), **env}
    return subprocess.run(["bash", str(FOLDERS)], cwd=repo, env=full_env, capture_output=True, text=True)


def test_the_jobs_list_their_folders_with_the_script() -> None:
    jobs = workflow("submission.yml")["jobs"]
    for job in ("check", "record"):
        assert jobs[job]["steps"][1]["run"] == "bash scripts/submission_folders.sh", job


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
    proc = list_folders(r, BASE=base)
    assert proc.returncode != 0 and "may use only letters" in proc.stdout
    assert not list(r.rglob("INJECTED")) and not list(Path.cwd().rglob("INJECTED"))


def test_an_honest_folder_is_listed_with_its_tree(repo: tuple[Path, str]) -> None:
    r, base = repo
    add_folder(r, "acme__tiny-model")
    proc = list_folders(r, BASE=base, EVENT="pull_request")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tree = git(r, "rev-parse", "HEAD:submissions/acme__tiny-model")
    assert (r / "folders.txt").read_text() == f"submissions/acme__tiny-model\t{tree}\n"


def test_code_changes_are_refused_in_a_submission_pull_request(repo: tuple[Path, str]) -> None:
    r, base = repo
    (r / "benchmark.py").write_text("print('sneaky')\n")
    add_folder(r, "acme__tiny-model")
    proc = list_folders(r, BASE=base)
    assert proc.returncode != 0 and "may only touch submissions/" in proc.stdout
    proc = list_folders(r, BASE=base, EVENT="pull_request")
    assert proc.returncode != 0 and "may only touch submissions/" in proc.stdout


def test_a_push_to_main_with_other_changes_is_still_scored(repo: tuple[Path, str]) -> None:
    """A merge to main may bring a submission with other reviewed changes: the push is
    scored (the "only submissions/" rule is for pull requests), names still checked."""
    r, base = repo
    (r / "README.md").write_text("docs\n")
    add_folder(r, "acme__tiny-model")
    proc = list_folders(r, BASE=base, EVENT="push")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (r / "folders.txt").read_text().startswith("submissions/acme__tiny-model\t")
    add_folder(r, "acme__x$(touch${IFS}INJECTED)")
    proc = list_folders(r, BASE=base, EVENT="push")
    assert proc.returncode != 0 and "may use only letters" in proc.stdout
    assert not list(r.rglob("INJECTED"))


@pytest.fixture
def github(tmp_path: Path) -> tuple[Path, Path]:
    """A bare "GitHub" repository with main, and the record job's checkout of main."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    (work / "submissions").mkdir()
    (work / "submissions" / "README.md").write_text("data\n")
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git(work, "push", "-q", "origin", "HEAD:main")
    run = tmp_path / "run"
    git(tmp_path, "clone", "-q", str(origin), str(run))
    return work, run


def pull_request(work: Path, pr: int, edit: Any) -> str:
    git(work, "checkout", "-q", "--detach", "origin/main")
    edit(work)
    git(work, "add", "-A")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"#{pr}")
    git(work, "push", "-q", "origin", f"HEAD:refs/pull/{pr}/head")
    return git(work, "rev-parse", "HEAD")


def approve(run: Path, pr: str, sha: str) -> subprocess.CompletedProcess[str]:
    return list_folders(run, EVENT="workflow_dispatch", PR=pr, SHA=sha)


def test_an_approval_takes_only_the_approved_commits_submission_files_as_data(
    github: tuple[Path, Path],
) -> None:
    work, run = github

    def submit(t: Path) -> None:
        (t / "submissions" / "acme__tiny").mkdir()
        (t / "submissions" / "acme__tiny" / "model.yaml").write_text("name: tiny\n")

    sha = pull_request(work, 12, submit)
    proc = approve(run, "12", sha)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tree = git(work, "rev-parse", f"{sha}:submissions/acme__tiny")
    assert (run / "folders.txt").read_text() == f"approved/submissions/acme__tiny\t{tree}\n"
    assert (run / "approved" / "submissions" / "acme__tiny" / "model.yaml").read_text() == "name: tiny\n"
    assert git(run, "rev-parse", "HEAD") == git(work, "rev-parse", "origin/main")  # main's code, untouched
    assert not (run / "submissions" / "acme__tiny").exists()


@pytest.mark.parametrize(
    "pr,sha,why",
    [
        ("12; touch INJECTED", None, "names the pull request's number"),
        ("$(touch INJECTED)", None, "names the pull request's number"),
        ("12", "abc123", "full 40-hex commit"),
        ("12", "$(touch INJECTED)", "full 40-hex commit"),
        ("12", "0" * 40, "not the approved"),  # the head moved on since (or never was) the approved commit
    ],
)
def test_an_approval_of_something_else_than_the_head_is_refused(
    github: tuple[Path, Path], pr: str, sha: str | None, why: str
) -> None:
    work, run = github
    head = pull_request(
        work,
        12,
        lambda t: (
            (t / "submissions" / "acme__a").mkdir()
            or (t / "submissions" / "acme__a" / "model.yaml").write_text("x\n")
        ),
    )
    proc = approve(run, pr, sha or head)
    assert proc.returncode != 0 and why in proc.stdout, proc.stdout + proc.stderr
    assert not (run / "approved").exists() and not list(run.parent.rglob("INJECTED"))


@pytest.mark.parametrize(
    "make,why",
    [
        (lambda f: (f / "link").symlink_to("/etc/passwd"), "other than plain files"),
        (
            lambda f: ((f / "run.sh").write_text("#!/bin/sh\n"), (f / "run.sh").chmod(0o755)),
            "other than plain files",
        ),
        (
            lambda f: (
                (f.parents[1] / ".github").mkdir() or (f.parents[1] / ".github" / "x.yml").write_text("x")
            ),
            "may only touch submissions/",
        ),
    ],
    ids=["symlink", "executable", "outside-submissions"],
)
def test_an_approved_pull_request_with_more_than_data_is_refused(
    github: tuple[Path, Path], make: Any, why: str
) -> None:
    work, run = github

    def submit(t: Path) -> None:
        folder = t / "submissions" / "acme__tiny"
        folder.mkdir()
        (folder / "model.yaml").write_text("name: tiny\n")
        make(folder)

    proc = approve(run, "12", pull_request(work, 12, submit))
    assert proc.returncode != 0 and why in proc.stdout, proc.stdout + proc.stderr
    assert not (run / "approved").exists()


# -- the privileged half: comments from an artifact ------------------------------------------


def jobs(name: str) -> dict[str, dict]:
    return workflow(name)["jobs"]


def test_no_job_that_reads_pull_request_files_can_write() -> None:
    for name in ALL:
        data = workflow(name)
        for job_name, job in data["jobs"].items():
            writes = [k for k, v in (job.get("permissions") or {}).items() if v == "write"]
            if not writes:
                continue
            if name == "submission-comment.yml":  # workflow_run: reads an artifact, never the PR's code
                assert not any("checkout" in str(step.get("uses", "")) for step in job["steps"])
                continue
            for event in events(data):
                if event in UNTRUSTED:
                    assert condition(job.get("if"), {"github.event_name": event}) is False, (
                        f"{name}: {job_name}"
                    )
    assert all(
        v == "read"
        for job in jobs("submission.yml").values()
        for v in (job.get("permissions") or {}).values()
    )
    comment = jobs("submission-comment.yml")["comment"]
    assert comment["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert events(workflow("submission-comment.yml")) == ["workflow_run"]


@pytest.fixture
def fake_gh(tmp_path: Path) -> Path:
    """A stand-in for the GitHub CLI that records its arguments and answers `pr view` with
    the head commit in $FAKE_HEAD, the submission workflow's id with $FAKE_WORKFLOW_ID and
    the pull request's changed files with $FAKE_FILES."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done >> "$FAKE_LOG"\necho >> "$FAKE_LOG"\n'
        'if [ "$2" = view ]; then echo "$FAKE_HEAD"; fi\n'
        'case "$*" in\n'
        '  *"api repos/org/repo/actions/workflows/submission.yml"*) echo "$FAKE_WORKFLOW_ID" ;;\n'
        '  *"api --paginate repos/org/repo/pulls/"*"/files"*) printf "%s\\n" "$FAKE_FILES" ;;\n'
        "esac\n"
    )
    gh.chmod(0o755)
    return bin_dir


SUBMISSION_YML = ".github/workflows/submission.yml"


def comment(
    tmp_path: Path,
    bin_dir: Path,
    pr_number: bytes,
    head: str = "abc",
    workflow_path: str = SUBMISSION_YML,
    workflow_id: str = "4242",
    files: str = "submissions/acme__tiny-model/model.yaml",
) -> tuple[int, str]:
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
        "WORKFLOW_PATH": workflow_path,
        "WORKFLOW_ID": workflow_id,
        "FAKE_HEAD": head,
        "FAKE_WORKFLOW_ID": "4242",
        "FAKE_FILES": files,
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


def test_the_comment_workflow_answers_only_the_submission_workflow_file() -> None:
    """`workflows: [submission]` matches a name any pull request can give a workflow: the
    job itself is gated on the triggering run's path."""
    condition = " ".join(jobs("submission-comment.yml")["comment"]["if"].split())
    assert f"github.event.workflow_run.path == '{SUBMISSION_YML}'" in condition
    assert "github.event.workflow_run.event == 'pull_request'" in condition


@pytest.mark.parametrize(
    "path",
    [
        ".github/workflows/evil.yml",
        ".github/workflows/submission.yml.evil",
        "submission.yml",
        "",
        "x/" + SUBMISSION_YML,
    ],
)
def test_a_workflow_named_like_the_submission_workflow_never_comments(
    tmp_path: Path, fake_gh: Path, path: str
) -> None:
    code, calls = comment(tmp_path, fake_gh, b"12", workflow_path=path)
    assert code != 0 and "[comment]" not in calls


@pytest.mark.parametrize("workflow_id", ["7", "", "4242 ", "04242"])
def test_a_run_of_another_workflow_id_never_comments(tmp_path: Path, fake_gh: Path, workflow_id: str) -> None:
    code, calls = comment(tmp_path, fake_gh, b"12", workflow_id=workflow_id)
    assert code != 0 and "[comment]" not in calls


@pytest.mark.parametrize(
    "files",
    [
        f"submissions/acme__x/model.yaml\n{SUBMISSION_YML}",  # the PR edits submission.yml itself
        ".github/workflows/evil.yml",
        "submissions/acme__x/model.yaml\nbenchmark/cli/main.py",
        "",
    ],
)
def test_a_pull_request_that_changes_more_than_submissions_never_comments(
    tmp_path: Path, fake_gh: Path, files: str
) -> None:
    """A pull request that edits .github/workflows/submission.yml runs its own version of
    it, under the right path and id: its artifact is only what that file wanted."""
    code, calls = comment(tmp_path, fake_gh, b"12", files=files)
    assert code != 0 and "[comment]" not in calls


def test_the_submission_workflow_file_at_a_ref_comments(tmp_path: Path, fake_gh: Path) -> None:
    code, calls = comment(tmp_path, fake_gh, b"12", workflow_path=SUBMISSION_YML + "@refs/pull/12/merge")
    assert code == 0 and "[pr][comment][12]" in calls
    assert "[api][repos/org/repo/actions/workflows/submission.yml][--jq][.id]" in calls
