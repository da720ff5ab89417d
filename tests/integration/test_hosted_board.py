"""The hosted board end to end: the workflows' jobs, step by step, against real parts.

There is no capable judge and no GitHub here, so both are stood in with real parts: the
maintainers' endpoint is the tests' own OpenAI-compatible HTTP server (a scripted EXAM
reader behind the real protocol) that checks an API key, GitHub's repository is a bare git
repository with ``refs/pull/<n>/head`` refs, and the results dataset is another bare git
repository.  The jobs of .github/workflows/{submission,canary,health}.yml run as the runner
runs them (:mod:`tests.helpers.workflows`: each job's ``if:`` decided for the event, each
step's ``env:`` evaluated — a secret a job is not given is empty — its ``run:`` script run
in a checkout, stopping at the first that fails), so what is tested is the workflow's own
wiring, not a copy of it:

* a fork's pull request (no secrets) gets the pipeline check's table and the judge of
  record's plan, and never a judge-of-record score;
* a maintainer's approval of a pull request, and a merge, publish judge-of-record results
  as numbered releases (a merge of what was approved is not scored twice);
* a dead endpoint, a wrong key, or an endpoint answering 200 with prose publish nothing and
  say why (and the publisher refuses an incomplete result even when asked);
* a re-submission of the same model and revision replaces its entry (history kept); a new
  revision is a new entry; a deleted submission leaves the next release;
* a canary re-scores every published submission into a candidate release, with the rank
  changes and Kendall τ the Space shows beside the release; promotion is a pin change;
* two publishes racing for the dataset both land;
* the scheduled health check opens an issue when the Space or the dataset cannot be read.

Scoring is EXAM with the judge LLM as reader (a few hundred instant scripted replies per
submission); only the fork's pipeline check loads a model (the offline embedder).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse
from huggingface_hub import constants
from scipy import stats

from benchmark.board import releases, results_dataset
from benchmark.board.leaderboard import build_leaderboard
from benchmark.core.results import read_result
from benchmark.families.exam.bank import task_bank
from benchmark.models.profiles import load_profile
from benchmark.tasks import load_task
from tests.helpers.openai_server import (
    ScriptedModel,
    ServerThread,
    control,
    create_app,
    exam_reader,
    free_port,
    http_judge_profile,
    judged_text,
)
from tests.helpers.workflows import ROOT, StepRun, run_job, runner_env, workflow

pytestmark = pytest.mark.slow
TASK = "webtrack-2009-2012"
KEY, CANARY_KEY = "sk-judge-of-record-test-key", "sk-canary-test-key"
HUB_ID = "groundcover-bench/results"
SKIP = ("Set up groundcover",)  # the runner's set-up: here, the checkout's .venv is linked


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


# -- the judges: a reader that finds the stated option, and a stricter one ------------------


def strict_reader(messages: list[dict[str, str]]) -> str:
    """The canary's reader: an option counts only as written, letter case included."""
    turn, text = judged_text(messages, "Question:")
    for letter, option in re.findall(r"^([A-J])\) (.+)$", turn, flags=re.M):
        if option in text:
            return f"Answer: {letter}"
    return "Answer: none"


def prose_app() -> FastAPI:
    """An endpoint that answers HTTP 200 to everything, with prose instead of JSON."""
    app = FastAPI()
    prose = "Thank you for your request! Our assistant will get back to you shortly."

    @app.api_route("/v1/{path:path}", methods=["GET", "POST"])
    def anything(path: str) -> PlainTextResponse:
        return PlainTextResponse(prose)

    return app


@dataclass
class Servers:
    record: ServerThread
    canary: ServerThread
    useless: ServerThread


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with (
        ServerThread(create_app(ScriptedModel("judge-of-record", exam_reader), api_key=KEY)) as record,  # type: ignore[arg-type]
        ServerThread(create_app(ScriptedModel("canary-judge", strict_reader), api_key=CANARY_KEY)) as canary,  # type: ignore[arg-type]
        ServerThread(prose_app()) as useless,
    ):
        yield Servers(record, canary, useless)


# -- the repository, its pull requests and the results dataset -------------------------------


def write_submission(repo: Path, org: str, name: str, revision: str, style: str) -> str:
    """A submission of the 12 starter-corpus queries: ``upper`` states every exam key in
    capitals, ``plain`` one key per query as written, ``plain2`` two, ``none`` none."""
    bank = task_bank(load_task(TASK))
    folder = repo / "submissions" / f"{org}__{name}"
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for q in sorted(bank, key=int):
        keys = [k.answer for k in bank[q]]
        stated = {"upper": [k.upper() for k in keys], "plain": keys[:1], "plain2": keys[:2], "none": []}[
            style
        ]
        answer = "Facts: " + ". ".join(stated) + "." if stated else "I do not know much about this topic."
        rows.append({"query_id": q, "answer": answer, "model": f"{org}/{name}", "revision": revision})
    (folder / f"{TASK}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    card = {
        "name": name,
        "org": org,
        "revision": revision,
        "license": "apache-2.0",
        "parameters": 1_000_000,
        "open_weights": True,
        "links": [],
        "contact": "test@example.org",
        "generation": {"backend": "test"},
    }
    (folder / "model.yaml").write_text(yaml.safe_dump(card))
    return folder.name


def board_yaml(space_url: str, canary: bool = False, promoted: bool = False) -> str:
    record = {
        "profile": "judges/record-test.yaml",
        "version": "1",
        "metrics": ["exam"],
        "options": {"exam-answerer": "llm"},
    }
    new = {
        "profile": "judges/canary-test.yaml",
        "version": "1",
        "metrics": ["exam"],
        "options": {"exam-answerer": "llm"},
    }
    board = {
        "pipeline_check": {
            "profile": "offline-smollm2-minilm-sim",
            "version": load_profile("offline-smollm2-minilm-sim").version,
            "metrics": ["exam"],
        },
        "judge_of_record": new if promoted else record,
        "canary": new if canary and not promoted else None,
        "results_dataset": HUB_ID,
        "space_url": space_url,
    }
    return yaml.safe_dump(board, sort_keys=False)


@dataclass
class World:
    """A GitHub repository (bare) and a results dataset (bare), and how to act on them."""

    root: Path
    origin: Path
    dataset: Path
    home: Path
    servers: Servers
    approved_scored: Path | None = None  # what scoring the approval of #12 handed to publish
    pushed_scored: Path | None = None  # what scoring the push after it handed to publish
    merge_log: str = ""

    def env(self, **extra: str) -> dict[str, str]:
        defaults = {
            "GROUNDCOVER_HOME": str(self.home),
            "RESULTS_REMOTE": str(self.dataset),
            "GITHUB_STEP_SUMMARY": str(self.root / "summary.md"),
        }
        return runner_env(self.root / "runner-home", **{**defaults, **extra})

    def checkout(self, name: str, ref: str = "main") -> Path:
        """A runner's checkout (actions/checkout, fetch-depth 0), with the test's .venv."""
        clone = self.root / "runs" / name
        git(self.root, "clone", "-q", str(self.origin), str(clone))
        git(clone, "checkout", "-q", ref)
        (clone / ".venv").symlink_to(ROOT / ".venv")
        return clone

    def change(self, message: str, edit: Any, pr: int | None = None) -> tuple[str, str]:
        """``edit(work tree)`` committed on main (pushed) or as pull request ``pr`` (pushed to
        refs/pull/<pr>/head); returns (the commit before, the new commit)."""
        work = self.root / "work"
        if not work.exists():
            git(self.root, "clone", "-q", str(self.origin), str(work))
        git(work, "fetch", "-q", "origin")
        git(work, "checkout", "-q", "--detach", "origin/main")
        before = git(work, "rev-parse", "HEAD")
        edit(work)
        sha = commit(work, message)
        git(work, "push", "-q", "origin", f"HEAD:refs/pull/{pr}/head" if pr else "HEAD:main")
        return before, sha

    def merge(self, pr: int) -> tuple[str, str]:
        work = self.root / "work"
        git(work, "fetch", "-q", "origin", f"refs/pull/{pr}/head")
        git(work, "checkout", "-q", "--detach", "origin/main")
        before = git(work, "rev-parse", "HEAD")
        git(
            work,
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "merge",
            "-q",
            "--no-ff",
            "-m",
            f"Merge #{pr}",
            "FETCH_HEAD",
        )
        git(work, "push", "-q", "origin", "HEAD:main")
        return before, git(work, "rev-parse", "HEAD")

    def secrets(self, url: str | None = None, key: str = KEY) -> dict[str, str]:
        return {"secrets.JUDGE_URL": url or self.servers.record.base_url, "secrets.JUDGE_API_KEY": key}

    def approve(self, pr: int, sha: str, name: str, **secrets: str) -> tuple[Path, list[StepRun]]:
        """A maintainer's workflow_dispatch on main: score pull request ``pr`` at ``sha``."""
        run = self.checkout(name)
        facts = {
            "github.event_name": "workflow_dispatch",
            "github.ref": "refs/heads/main",
            "github.sha": git(run, "rev-parse", "HEAD"),
            "inputs.pr": str(pr),
            "inputs.sha": sha,
            **(secrets or self.secrets()),
        }
        steps = run_job("submission.yml", "record", run, facts, self.env(), skip=SKIP)
        assert steps is not None, "the record job runs on a maintainer's approval"
        return run, steps

    def pushed(self, before: str, after: str, name: str) -> tuple[Path, list[StepRun]]:
        """The push event of a merge (or a maintainer's commit) to main."""
        run = self.checkout(name, after)
        facts = {
            "github.event_name": "push",
            "github.ref": "refs/heads/main",
            "github.event.before": before,
            "github.sha": after,
            **self.secrets(),
        }
        steps = run_job("submission.yml", "record", run, facts, self.env(), skip=SKIP)
        assert steps is not None, "the record job runs on a push to main"
        return run, steps

    def copy(self, dest: Path) -> World:
        """This world's repositories copied: a test changes its own, never the others'."""
        shutil.copytree(self.origin, dest / "github.git")
        shutil.copytree(self.dataset, dest / "dataset.git")
        return World(dest, dest / "github.git", dest / "dataset.git", self.home, self.servers)

    def manifest(self, number: int) -> releases.Manifest:
        return releases.Manifest.model_validate(
            yaml.safe_load(git(self.dataset, "show", f"main:releases/{number}/release.yaml"))
        )

    def releases(self) -> list[int]:
        listed = git(self.dataset, "ls-tree", "--name-only", "main", "releases/")
        return sorted(int(p.rsplit("/", 1)[-1]) for p in listed.splitlines())


def passed(steps: list[StepRun]) -> None:
    failed = [s for s in steps if s.returncode]
    assert not failed, f"{failed[0].name} failed:\n{failed[0].output[-4000:]}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, servers: Servers) -> World:
    """Release 1: pull request #12 (acme/upper) approved.  Release 2: #12 merged together
    with a maintainer's commit adding acme/plain and beta/none."""
    root = tmp_path_factory.mktemp("hosted")
    git(root, "init", "-q", "--bare", "-b", "main", "github.git")
    git(root, "init", "-q", "--bare", "-b", "main", "dataset.git")
    w = World(root, root / "github.git", root / "dataset.git", root / "home", servers)

    def base(tree: Path) -> None:
        (tree / "scripts").mkdir()
        for script in ("submission_folders.sh", "hosted_board.py", "health_check.sh"):
            shutil.copyfile(ROOT / "scripts" / script, tree / "scripts" / script)
        judges = tree / "leaderboard" / "judges"
        judges.mkdir(parents=True)
        for server, name, model in (
            (servers.record, "record-test", "judge-of-record"),
            (servers.canary, "canary-test", "canary-judge"),
        ):
            path = http_judge_profile(judges, server, name, model, max_new_tokens=32, batch_size=8)
            profile = yaml.safe_load(path.read_text())
            path.write_text(yaml.safe_dump({**profile, "version": "1"}))
        (tree / "leaderboard" / "board.yaml").write_text(board_yaml(space_url(servers)))
        (tree / "submissions").mkdir()
        (tree / "submissions" / "README.md").write_text("data only\n")
        (tree / ".gitignore").write_text(".venv\n")

    seed = root / "work"
    git(root, "clone", "-q", str(w.origin), str(seed))
    base(seed)
    commit(seed, "base")
    git(seed, "push", "-q", "origin", "HEAD:main")

    _, pr12 = w.change("acme/upper", lambda t: write_submission(t, "acme", "upper", "v1", "upper"), pr=12)
    run, steps = w.approve(12, pr12, "approve-12")
    passed(steps)
    w.approved_scored = run / "record"
    before, _ = w.merge(12)

    def more(t: Path) -> None:
        write_submission(t, "acme", "plain", "v1", "plain")
        write_submission(t, "beta", "none", "v1", "none")

    _, after = w.change("two more models", more)  # one push brings the merge and this commit
    run, steps = w.pushed(before, after, "push-1")
    passed(steps)
    w.merge_log = "\n".join(s.output for s in steps)
    w.pushed_scored = run / "record"
    return w


def space_url(servers: Servers) -> str:
    return servers.record.base_url.removesuffix("/v1") + "/control/stats"


# -- a fork's pull request -------------------------------------------------------------------


def test_a_fork_pull_request_gets_the_pipeline_check_and_the_plan_never_a_score(
    world: World, tmp_path: Path
) -> None:
    w = world.copy(tmp_path)
    base = git(w.origin, "rev-parse", "main")
    _, head = w.change(
        "a fork's submission", lambda t: write_submission(t, "fork", "model", "v1", "plain2"), pr=20
    )
    run = w.checkout("pr-20", head)
    facts = {
        "github.event_name": "pull_request",
        "github.ref": "refs/pull/20/merge",
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.number": "20",
    }  # a fork's pull request is given no secret
    assert run_job("submission.yml", "record", run, facts, w.env()) is None, (
        "no judge of record on a pull request"
    )
    asked = control(w.servers.record, "stats")["requests"]

    steps = run_job("submission.yml", "check", run, facts, w.env(), skip=SKIP)
    assert steps is not None
    passed(steps)
    comment = (run / "comment.md").read_text()
    assert (
        f"## Pipeline check: `offline-smollm2-minilm-sim@{load_profile().version}`" in comment
        and "not the board of record" in comment
    )
    assert "fork/model@v1" in comment.split("## Judge of record", 1)[0]  # the pipeline check's table
    plan = comment.split("## Judge of record", 1)[1]
    assert "record-test@1" in plan and "Nothing here was scored by the judge of record" in plan
    row = next(line for line in plan.splitlines() if line.startswith("| `fork__model`"))
    calls = int(row.split("|")[2].replace(",", ""))
    assert calls > 0, row  # the dry run's count of the judge of record's LLM calls
    assert (run / "pr_number.txt").read_text() == "20"

    # nothing reached the judge of record, and no judge-of-record result exists
    assert control(w.servers.record, "stats")["requests"] == asked
    assert not [p for p in run.rglob("*.json") if "record-test" in str(p)]
    assert w.releases() == [1, 2]
    # the scoring step itself, run with what a fork's job holds, refuses: no endpoint
    record_steps = {s.get("name"): s for s in workflow("submission.yml")["jobs"]["record"]["steps"]}
    proc = subprocess.run(
        ["bash", "-c", record_steps["Score with the judge of record"]["run"]],
        cwd=run, env=w.env(), capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode != 0 and "no endpoint for record-test@1" in proc.stdout
    assert control(w.servers.record, "stats")["requests"] == asked


# -- approved, merged: releases ---------------------------------------------------------------


def test_an_approved_pull_request_and_a_merge_are_published_as_releases(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    assert w.releases() == [1, 2]
    first, second = w.manifest(1), w.manifest(2)
    assert first.kind == second.kind == "release" and first.judge == second.judge == "record-test@1"
    (upper,) = first.entries
    assert upper.model == "acme/upper" and upper.source.startswith("pull request #12 approved at ")
    # the merge of what was approved is not scored again; the other two are
    assert "published already (release 1)" in w.merge_log
    by_model = {e.model: e for e in second.entries}
    assert set(by_model) == {"acme/upper", "acme/plain", "beta/none"}
    assert by_model["acme/upper"].scored == 1 and by_model["acme/plain"].scored == 2
    assert by_model["acme/plain"].source.startswith("push ")
    changelog = git(w.dataset, "show", "main:CHANGELOG.md").splitlines()
    assert len(changelog) == 2 and changelog[1] == f"- {second.changelog}"
    files = git(w.dataset, "ls-tree", "-r", "--name-only", "main", "releases/2").splitlines()
    for want in (
        "releases/2/profile.yaml",
        "releases/2/submissions/acme__plain/model.yaml",
        f"releases/2/submissions/acme__plain/{TASK}.jsonl",
        f"releases/2/results/acme__upper/v1/closed-book/record-test-v1/{TASK}.exam.json",
        f"releases/2/results/acme__upper/v1/closed-book/record-test-v1/{TASK}.exam.traces.jsonl",
    ):
        assert want in files, want
    assert any(f.endswith(".latest.csv") for f in files) and any(f.endswith(".history.csv") for f in files)
    assert not [f for f in files if f.endswith(".png")]  # text only: the figures are drawn again
    # the endpoint's URL and key are secrets: in no file of any commit of the dataset
    revs = git(w.dataset, "rev-list", "--all").split()
    for secret in (w.servers.record.base_url, KEY, f"127.0.0.1:{w.servers.record.port}"):
        assert subprocess.run(["git", "grep", "-qF", secret, *revs], cwd=w.dataset).returncode == 1, secret
    result = next(f for f in files if f.endswith(".exam.json"))
    assert releases.REDACTED in git(w.dataset, "show", f"main:{result}")  # the profile's URL, recorded

    # the Space, pinned to release 2, shows it and says which release and judge
    where = space_reads(w, tmp_path, monkeypatch, release=2)
    assert where.source.startswith("release 2 of hf://datasets/groundcover-bench/results@")
    assert where.source.endswith("judge of record record-test@1")
    lb = build_leaderboard(where.results, where.submissions)
    table = lb.tables["exam"]
    assert set(table["judge_profile"]) == {"record-test@1"}
    assert table["model"].iloc[0] == "acme/upper@v1" and len(table) == 3


def space_reads(
    w: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release: int, candidate: int | None = None
) -> results_dataset.Located:
    """The Space's reading of a pin: the dataset's commit as the Hub's download leaves it
    (huggingface_hub's cache layout), read by huggingface_hub itself, offline."""
    sha = git(w.dataset, "rev-parse", "main")
    cache = tmp_path / "hub-cache"
    snapshot = cache / f"datasets--{HUB_ID.replace('/', '--')}" / "snapshots" / sha
    snapshot.mkdir(parents=True, exist_ok=True)
    tar = subprocess.run(
        ["git", "archive", "--format=tar", sha], cwd=w.dataset, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(snapshot)], input=tar, check=True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    pin = tmp_path / "results.yaml"
    results_dataset.write_pin(
        pin, results_dataset.Pin(repo=HUB_ID, revision=sha, release=release, candidate=candidate)
    )
    return results_dataset.locate(pin, tmp_path / "no-local", tmp_path / "no-local")


# -- endpoints that cannot judge -----------------------------------------------------------------


def test_a_dead_a_refusing_or_a_useless_endpoint_publishes_nothing_and_says_why(
    world: World, tmp_path: Path
) -> None:
    w = world.copy(tmp_path)
    published = git(w.dataset, "rev-parse", "main")
    _, pr13 = w.change(
        "acme/plain, re-submitted", lambda t: write_submission(t, "acme", "plain", "v1", "plain2"), pr=13
    )
    dead = f"http://127.0.0.1:{free_port()}/v1"
    cases = [
        ("dead", w.secrets(url=dead), "connection refused", 1),
        ("wrong key", w.secrets(key="sk-not-the-key"), "refused the API key", 1),
        ("useless", w.secrets(url=w.servers.useless.base_url), "incomplete", 3),
    ]
    for name, secrets, why, status in cases:
        run, steps = w.approve(13, pr13, f"approve-13-{name}", **secrets)
        names = [s.name for s in steps]
        assert names[-1] == "Score with the judge of record", (name, names)  # publish never ran
        out = steps[-1].output
        assert steps[-1].returncode == status and why in out, (name, out[-3000:])
        assert "nothing was published" in out and "Re-run this job" in out, name
        assert git(w.dataset, "rev-parse", "main") == published, name
    # the publisher refuses an incomplete result even when asked to publish it
    scored = run / "record"
    (result,) = [p for p in (scored / "results").rglob("*.exam.json")]
    assert read_result(result).incomplete
    folder = run / "approved" / "submissions" / "acme__plain"
    (scored / "scored.json").write_text(
        json.dumps([{"folder": str(folder), "source": "forced", "tree": None, "data": None}])
    )
    proc = subprocess.run(
        [".venv/bin/python", "scripts/hosted_board.py", "publish"],
        cwd=run,
        env=w.env(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "incomplete, not published" in proc.stdout, proc.stdout + proc.stderr
    assert git(w.dataset, "rev-parse", "main") == published


# -- one entry per model revision ----------------------------------------------------------------


def test_a_resubmission_replaces_its_entry_and_a_new_revision_is_a_new_entry(
    world: World, tmp_path: Path
) -> None:
    w = world.copy(tmp_path)
    _, pr13 = w.change(
        "acme/plain, re-submitted", lambda t: write_submission(t, "acme", "plain", "v1", "plain2"), pr=13
    )
    passed(w.approve(13, pr13, "approve-13")[1])
    third = w.manifest(3)
    plain = [e for e in third.entries if e.model == "acme/plain"]
    assert len(third.entries) == 3 and len(plain) == 1 and plain[0].scored == 3  # replaced, not added
    (old,) = third.history
    assert (old.model, old.scored, old.until, old.why) == ("acme/plain", 2, 3, "re-submitted")
    history = tables(w, 3, "history")
    rows = history[history["model"] == "acme/plain"].sort_values("scored_in_release")
    assert list(rows["scored_in_release"]) == [2, 3]
    assert list(rows["status"]) == ["re-submitted (left in release 3)", "on the board"]
    assert rows["value"].iloc[1] > rows["value"].iloc[0]  # two keys stated now, one before

    before, after = w.change("acme/plain v2", lambda t: write_submission(t, "acme", "plain", "v2", "plain"))
    passed(w.pushed(before, after, "push-v2")[1])
    fourth = w.manifest(4)
    assert sorted((e.model, e.revision) for e in fourth.entries if e.model == "acme/plain") == [
        ("acme/plain", "v1"),
        ("acme/plain", "v2"),
    ]  # a new revision is a new entry
    latest = tables(w, 4, "latest")
    assert sorted(latest[latest["model_id"] == "acme/plain"]["revision"]) == ["v2"]
    assert len(latest) == 3

    before, after = w.change("beta/none withdrawn", lambda t: shutil.rmtree(t / "submissions" / "beta__none"))
    passed(w.pushed(before, after, "push-delete")[1])
    fifth = w.manifest(5)
    assert "beta/none" not in {e.model for e in fifth.entries}
    assert [(h.model, h.why) for h in fifth.history if h.until == 5] == [("beta/none", "submission deleted")]


def tables(w: World, number: int, kind: str) -> pd.DataFrame:
    """The exam board's latest or history table of a release, as published."""
    names = git(w.dataset, "ls-tree", "--name-only", "main", f"releases/{number}/tables/").splitlines()
    (name,) = [n for n in names if n.rsplit("/", 1)[-1].startswith("exam.") and n.endswith(f".{kind}.csv")]
    from io import StringIO

    return pd.read_csv(StringIO(git(w.dataset, "show", f"main:{name}")))


# -- the canary ----------------------------------------------------------------------------------


def test_a_canary_rescores_the_published_submissions_and_shows_the_rank_changes(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world.copy(tmp_path)
    url = space_url(w.servers)
    w.change(
        "canary: canary-test@1",
        lambda t: (t / "leaderboard" / "board.yaml").write_text(board_yaml(url, canary=True)),
    )
    run = w.checkout("canary")
    facts = {
        "github.event_name": "workflow_dispatch",
        "github.ref": "refs/heads/main",
        **w.secrets(),
        "secrets.CANARY_JUDGE_URL": w.servers.canary.base_url,
        "secrets.CANARY_JUDGE_API_KEY": CANARY_KEY,
    }
    steps = run_job("canary.yml", "canary", run, facts, w.env(), skip=SKIP)
    assert steps is not None
    passed(steps)
    candidate = w.manifest(3)
    assert candidate.kind == "candidate" and candidate.judge == "canary-test@1" and candidate.compares_to == 2
    assert {e.key for e in candidate.entries} == {e.key for e in w.manifest(2).entries}  # every one re-scored
    assert {e.data for e in candidate.entries} == {1, 2}  # each from the answers its release scored

    found = releases.Comparison.model_validate_json(git(w.dataset, "show", "main:releases/3/canary.json"))
    (exam,) = [b for b in found.boards if b.family == "exam"]
    moves = {m.model: m for m in exam.entries}
    assert (
        moves["acme/upper@v1"].place_before == 1 and moves["acme/upper@v1"].place_after > 1
    )  # capitals: not read
    assert moves["acme/plain@v1"].place_after == 1
    # Kendall τ is scipy's, between the two releases' published scores of the shared entries
    scores = {n: exam_scores(w, n) for n in (2, 3)}
    shared = sorted(scores[2])
    want = stats.kendalltau([scores[2][m] for m in shared], [scores[3][m] for m in shared]).statistic
    assert exam.kendall_tau == pytest.approx(want) and exam.kendall_tau < 1
    assert "Kendall τ between the boards" in (w.root / "summary.md").read_text()

    # the Space, pinned to the release with the candidate beside it, shows the comparison
    from benchmark.space import releases as space_releases

    where = space_reads(w, tmp_path, monkeypatch, release=2, candidate=3)
    shown = space_releases.comparison(where)
    assert shown == found
    frame = space_releases.board_frame(exam)
    assert list(frame.columns)[:3] == ["model", "place before", "place after"] and len(frame) == 3
    assert "Candidate release 3" in space_releases.headline(shown)

    # promotion: a reviewed change of board.yaml and of the pin; the check accepts it, and
    # refuses a pin that does not match the judges board.yaml names
    w.change(
        "promote canary-test@1",
        lambda t: (t / "leaderboard" / "board.yaml").write_text(board_yaml(url, promoted=True)),
    )
    run = w.checkout("promote")
    pin_file = run / "hf_space" / "results.yaml"
    pin_file.parent.mkdir()
    sha = git(w.dataset, "rev-parse", "main")
    results_dataset.write_pin(
        pin_file, results_dataset.Pin(repo=HUB_ID, revision=sha, release=2, candidate=3)
    )
    hosted = [".venv/bin/python", "scripts/hosted_board.py"]
    proc = subprocess.run([*hosted, "check-pin"], cwd=run, env=w.env(), capture_output=True, text=True)
    assert proc.returncode == 1 and "not by the judge of record" in proc.stdout, proc.stdout + proc.stderr
    proc = subprocess.run([*hosted, "pin", "--promote"], cwd=run, env=w.env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pin = results_dataset.read_pin(pin_file)
    assert pin is not None and (pin.release, pin.candidate) == (3, None)
    proc = subprocess.run([*hosted, "check-pin"], cwd=run, env=w.env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def exam_scores(w: World, number: int) -> dict[str, float]:
    out = {}
    tree = git(w.dataset, "ls-tree", "-r", "--name-only", "main", f"releases/{number}/results/").splitlines()
    for path in tree:
        if path.endswith(".exam.json"):
            data = json.loads(git(w.dataset, "show", f"main:{path}"))
            model = data["model"]
            out[f"{model['id']}@{model['revision']}"] = data["scores"][data["primary"]]["value"]
    return out


# -- two publishes at once -----------------------------------------------------------------------


def test_two_racing_publishes_both_land(world: World, tmp_path: Path) -> None:
    """Two publishes into an empty dataset, interleaved: A cuts its release, and at its
    push (a pre-push hook) B runs all the way and pushes first; A's push is refused, and A
    starts again from B's release — both land, the second building on the first."""
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(empty))
    assert world.approved_scored is not None and world.pushed_scored is not None
    a_run, b_run = world.approved_scored.parent, world.pushed_scored.parent
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker, b_log = tmp_path / "b-ran", tmp_path / "b.log"
    q = shlex.quote
    env = world.env(RESULTS_REMOTE=str(empty))
    (hooks / "pre-push").write_text(
        "#!/bin/bash\n"
        f"[ -e {q(str(marker))} ] && exit 0\n"
        f": > {q(str(marker))}\n"
        "unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 $(git rev-parse --local-env-vars)\n"
        f"cd {q(str(b_run))} && RESULTS_REMOTE={q(str(empty))} SHA=bbbb .venv/bin/python scripts/hosted_board.py publish "
        f"< /dev/null > {q(str(b_log))} 2>&1\n"
        "exit 0\n"
    )
    (hooks / "pre-push").chmod(0o755)
    proc = subprocess.run(
        [".venv/bin/python", "scripts/hosted_board.py", "publish"],
        cwd=a_run,
        env={
            **env,
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.hooksPath",
            "GIT_CONFIG_VALUE_0": str(hooks),
        },
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "moved during attempt 1" in proc.stdout and "(attempt 2)" in proc.stdout, proc.stdout
    assert "publish: release 1" in b_log.read_text()
    log = git(empty, "log", "--format=%s", "main").splitlines()
    assert len(log) == 2 and log[0].startswith("release 2 ") and log[1].startswith("release 1 ")
    latest = releases.Manifest.model_validate(
        yaml.safe_load(git(empty, "show", "main:releases/2/release.yaml"))
    )
    assert {e.model for e in latest.entries} == {"acme/upper", "acme/plain", "beta/none"}


# -- the scheduled health check ------------------------------------------------------------------


@pytest.fixture
def fake_gh(tmp_path: Path) -> Path:
    """The GitHub CLI's stand-in: records its arguments; `issue list` answers $FAKE_OPEN."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done >> "$FAKE_LOG"\necho >> "$FAKE_LOG"\n'
        'if [ "$2" = list ]; then echo "$FAKE_OPEN"; fi\n'
    )
    (bin_dir / "gh").chmod(0o755)
    return bin_dir


def test_the_health_check_opens_an_issue_when_the_space_or_the_dataset_cannot_be_read(
    world: World, tmp_path: Path, fake_gh: Path
) -> None:
    run = world.checkout(f"health-{tmp_path.name}")
    pin_file = run / "hf_space" / "results.yaml"
    pin_file.parent.mkdir()
    sha = git(world.dataset, "rev-parse", "main")
    results_dataset.write_pin(pin_file, results_dataset.Pin(repo=HUB_ID, revision=sha, release=2))
    log = tmp_path / "gh.log"

    def check(open_issue: str = "", **env: str) -> tuple[list[StepRun], str]:
        log.write_text("")
        facts = {"github.event_name": "schedule", "github.token": "ghs_x", "github.repository": "org/repo"}
        full = world.env(FAKE_LOG=str(log), FAKE_OPEN=open_issue, **env)
        full["PATH"] = f"{fake_gh}:{full['PATH']}"
        steps = run_job("health.yml", "health", run, facts, full, skip=SKIP)
        assert steps is not None
        return steps, log.read_text()

    steps, calls = check()
    assert steps[-1].returncode == 0 and "healthy" in steps[-1].output and calls == ""

    board = run / "leaderboard" / "board.yaml"
    board.write_text(board_yaml(f"http://127.0.0.1:{free_port()}/"))  # the Space is down
    steps, calls = check()
    assert steps[-1].returncode == 1
    assert (
        "[issue][create][--repo][org/repo][--title][Hosted board health check failed][--body-file][health.md]"
        in calls
    )
    assert "could not be reached" in (run / "health.md").read_text()

    board.write_text(board_yaml(space_url(world.servers)))
    steps, calls = check(open_issue="7", RESULTS_REMOTE=str(tmp_path / "no-such-dataset.git"))
    assert steps[-1].returncode == 1 and "[issue][comment][7]" in calls and "[create]" not in calls
    assert "the results dataset cannot be read" in (run / "health.md").read_text()
