#!/usr/bin/env python
"""The hosted board's workflow steps: pipeline check, scoring of record, releases, canary, pin, health.

Every step of .github/workflows/{submission,canary,health}.yml that does more than list
folders is one sub-command here, run in a checkout of main (the tests run these very
commands against a local OpenAI-compatible server and a bare git repository):

  check      (pull request, no secrets)  validate and score with the pipeline check's profile,
             then plan the judge of record (`--dry-run`: calls, tokens, money) -> comment.md
  score      (trusted)  validate (with the budget) and score with the judge of record (or the
             canary) through the preflight and the failure policy; writes results and scored.json,
             or says why nothing can be published and exits non-zero
  publish    (trusted)  cut the next numbered release (a canary: a candidate) in the results
             dataset from what `score` wrote, and push it; a push refused because another
             publish got there first starts again from the newest dataset
  pin        (a maintainer, locally)  write hf_space/results.yaml: a release (and a candidate)
             at the dataset's commit — the reviewed change that publishes or promotes
  check-pin  (pull request)  the pin names releases that exist, of the judges board.yaml names
  health     (scheduled)  can the Space and the pinned release be read? (health_check.sh opens
             an issue when not)

The roles come from leaderboard/board.yaml (:mod:`benchmark.board.roles`); the endpoint from
$GROUNDCOVER_JUDGE_URL and $OPENAI_API_KEY (repository secrets, given only to trusted jobs);
the dataset's git remote from board.yaml (the Hub), or $RESULTS_REMOTE, with $HF_TOKEN as
the credential.  docs/hosted-board.md is the maintainers' guide.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmark.board import releases, results_dataset
from benchmark.board.render import md_cell
from benchmark.board.roles import Board, load_board, role, role_profile
from benchmark.core import paths
from benchmark.core.errors import InputError, Problem
from benchmark.core.results import git_sha
from benchmark.models.profiles import JUDGE_URL_ENV

SCORED = "scored.json"
BOT = ["-c", "user.name=groundcover-bot", "-c", "user.email=bot@groundcover.invalid"]


def say(kind: str, text: str) -> None:
    """A GitHub Actions annotation (``::error::``) and a plain line elsewhere alike."""
    print(f"::{kind}::{text}" if kind else text, flush=True)


def summary(text: str) -> None:
    """Append to the job's summary page, when there is one."""
    if path := os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(path, "a", encoding="utf-8") as f:
            f.write(text + "\n")


def benchmark(*argv: str) -> int:
    """``benchmark ARGV`` in this process (models load once for every folder), with the
    command line recorded in results as if typed; a crash is that call's failure, named."""
    from benchmark.cli.main import main

    saved, sys.argv = sys.argv, ["benchmark", *argv]
    try:
        return main(list(argv))
    except Exception as exc:  # reported, then the job fails as a whole
        say("error", f"benchmark {argv[0]} stopped: {type(exc).__name__}: {redact(str(exc))}")
        return 1
    finally:
        sys.argv = saved


def secrets() -> list[str]:
    """The endpoint's URL and key as given: never printed by us, never published."""
    found = [os.environ.get(JUDGE_URL_ENV, ""), os.environ.get("OPENAI_API_KEY", "")]
    found += [u.strip().rstrip("/") for u in found[0].split(",")]
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def redact(text: str) -> str:
    for secret in secrets():
        text = text.replace(secret, releases.REDACTED)
    return text


def read_folders(path: Path) -> list[tuple[Path, str | None]]:
    """``submission_folders.sh``'s list: path and git tree id, one folder a line."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            folder, _, tree = line.partition("\t")
            rows.append((Path(folder), tree or None))
    return rows


# -- check: the pull request's pipeline check and the judge of record's plan ---------------


def cmd_check(args: argparse.Namespace) -> int:
    board, board_dir = load_board(args.board), Path(args.board).parent
    check = role_profile(board, "pipeline_check", args.board)
    record = role_profile(board, "judge_of_record", args.board)
    os.environ.pop(JUDGE_URL_ENV, None)  # a pull request's job has no endpoint, and asks none
    folders = [f for f, _ in read_folders(args.folders)]
    failed = 0
    plans = []
    for folder in folders:
        if benchmark(
            "validate",
            "--budget",
            "--judge-profile",
            board.pipeline_check.profile_ref(board_dir),
            str(folder),
        ):
            failed += 1
            continue
        flags = board.pipeline_check.flags(board_dir)
        if benchmark(
            "score", "--submission", str(folder), *flags, "--results-dir", args.results, "--no-progress"
        ):
            failed += 1
        with tempfile.TemporaryDirectory() as tmp:
            plan = Path(tmp) / "plan.json"
            planned = benchmark(
                "score", "--submission", str(folder), *board.judge_of_record.flags(board_dir),
                "--results-dir", str(Path(tmp) / "results"), "--no-progress", "--dry-run", str(plan),
            )  # fmt: skip
            plans.append(
                (folder.name, json.loads(plan.read_text()) if planned == 0 and plan.is_file() else None)
            )
    table = Path(args.comment).with_suffix(".table.md")
    benchmark("leaderboard", "--results-dir", args.results, "--markdown", str(table), "--out", args.snapshot)
    text = [
        f"## Pipeline check: {md_cell(check.id)}",
        "",
        "Does this submission's pipeline run? Scored with the offline profile; this table is a check, "
        "**not the board of record**.",
        "",
        table.read_text(encoding="utf-8") if table.is_file() else "(no table: see the job's log)",
        "",
        f"## Judge of record: {md_cell(record.id)}, planned",
        "",
        "Nothing here was scored by the judge of record. A maintainer approves the scoring of this "
        "pull request's commit (docs/hosted-board.md), or it is scored after merge; it would ask:",
        "",
        "| submission | LLM calls | prompt tokens | completion tokens ≤ | entailment pairs | retrieval queries | cost (USD) |",
        "|---|---|---|---|---|---|---|",
    ]
    text += [plan_row(name, plan) for name, plan in plans]
    Path(args.comment).write_text("\n".join(text) + "\n", encoding="utf-8")
    print(Path(args.comment).read_text(encoding="utf-8"))
    return 1 if failed else 0


def plan_row(name: str, plan: dict[str, Any] | None) -> str:
    if plan is None:
        return f"| {md_cell(name)} | could not be planned: see the job's log | | | | | |"
    stages = plan.get("stages") or []

    def total(kind: str, field: str = "requests") -> int:
        return sum(int(s.get(field) or 0) for s in stages if s.get("kind") == kind)

    cost = plan.get("cost_usd")
    return (
        f"| {md_cell(name)} | {total('LLM calls'):,} | {total('LLM calls', 'prompt_tokens'):,} | "
        f"{total('LLM calls', 'completion_tokens'):,} | {total('entailment pairs'):,} | "
        f"{total('retrieval queries'):,} | {'unpriced' if cost is None else f'{cost:.2f}'} |"
    )


# -- score: the judge of record (or the canary), trusted jobs only ---------------------------


def source_of_event() -> str:
    event, sha, pr = os.environ.get("EVENT", ""), os.environ.get("SHA", ""), os.environ.get("PR", "")
    if event == "workflow_dispatch":
        return f"pull request #{pr} approved at {sha[:12]}"
    return f"{event or 'run'} {sha[:12] or '(local)'}".strip()


def cmd_score(args: argparse.Namespace) -> int:
    board, board_dir = load_board(args.board), Path(args.board).parent
    chosen = role(board, args.role)
    profile = role_profile(board, args.role, args.board)
    if not os.environ.get(JUDGE_URL_ENV):
        say(
            "error",
            f"no endpoint for {profile.id}: the {args.role.replace('_', ' ')} is scored only in a trusted job, "
            f"with the JUDGE_URL and JUDGE_API_KEY secrets (${JUDGE_URL_ENV}, $OPENAI_API_KEY); nothing scored",
        )
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results"
    if args.role == "canary":
        todo = canary_inputs(board, Path(args.board), out / "inputs")
    else:
        published = published_trees(board, role_profile(board, "judge_of_record", args.board).id)
        source = source_of_event()
        todo = []
        for folder, tree in read_folders(args.folders):
            if tree is not None and tree in published:
                print(
                    f"{folder.name}: this very folder is published already (release {published[tree]}); not scored again"
                )
                continue
            todo.append(releases.Scored(folder=folder, source=source, tree=tree))
    problems = []
    for s in todo:
        folder = str(s.folder)
        code = benchmark("validate", "--budget", "--judge-profile", chosen.profile_ref(board_dir), folder)
        if code == 0:
            code = benchmark(
                "score",
                "--submission",
                folder,
                *chosen.flags(board_dir),
                "--results-dir",
                str(results),
                "--no-progress",
            )
        if code == 3:
            problems.append(
                f"{s.folder.name}: incomplete — the judge did not answer enough of it (see above)"
            )
        elif code:
            problems.append(f"{s.folder.name}: not scored (exit status {code}; the reason is above)")
    if problems:
        for p in problems:
            say("error", p)
        say(
            "error",
            f"nothing was published: every result of a run must be complete. Re-run this job once {profile.id}'s "
            "endpoint answers (what was scored is asked again; a re-run on the same runner resumes).",
        )
        summary("### Not published\n\n" + "\n".join(f"- {redact(p)}" for p in problems))
        return 3 if all("incomplete" in p for p in problems) else 1
    (out / SCORED).write_text(
        json.dumps([{**asdict(s), "folder": str(s.folder)} for s in todo], indent=2) + "\n", encoding="utf-8"
    )
    print(f"scored {len(todo)} submission folder(s) with {profile.id}")
    return 0


def read_scored(out: Path) -> list[releases.Scored]:
    path = out / SCORED
    if not path.is_file():
        return []
    return [releases.Scored(**{**row, "folder": Path(row["folder"])}) for row in json.loads(path.read_text())]


def published_trees(board: Board, judge: str) -> dict[str, int]:
    """Submission folders (by git tree) already on the board of record: a merge of an
    approved pull request is not scored twice.  Nothing is skipped when the dataset cannot
    be read (it is public; the publish step will say if it is gone)."""
    try:
        with dataset(board) as root:
            base = releases.base_of(root, judge)
    except (RuntimeError, InputError) as exc:
        say("warning", f"the results dataset could not be read ({exc}); every folder is scored")
        return {}
    return {e.tree: base.number for e in base.entries if e.tree} if base else {}


def canary_inputs(board: Board, board_file: Path, dest: Path) -> list[releases.Scored]:
    """Every entry of the current release, as the submission folder it was scored from."""
    record = role_profile(board, "judge_of_record", board_file).id
    with dataset(board) as root:
        current = releases.base_of(root, record)
        if current is None:
            raise InputError(
                Problem(remote(board), f"no release of the judge of record {record} to re-score")
            )
        todo = []
        for i, e in enumerate(current.entries):
            src = releases.release_dir(root, e.data) / "submissions" / e.folder
            shutil.copytree(src, dest / str(i) / e.folder)
            todo.append(
                releases.Scored(
                    folder=dest / str(i) / e.folder,
                    source=f"canary: release {current.number}'s entries re-scored",
                    tree=e.tree,
                    data=e.data,
                )
            )
    print(f"canary: {len(todo)} entries of release {current.number} ({record}) to re-score")
    return todo


# -- the results dataset, a git repository ---------------------------------------------------


def remote(board: Board) -> str:
    return os.environ.get("RESULTS_REMOTE") or board.remote


def git_env() -> dict[str, str]:
    """The environment git runs in: $HF_TOKEN as an HTTP header set through the
    environment (never on a command line), after any configuration already there."""
    env = dict(os.environ)
    token = env.get("HF_TOKEN")
    if token:
        n = int(env.get("GIT_CONFIG_COUNT", "0"))
        basic = base64.b64encode(f"groundcover-bot:{token}".encode()).decode()
        env.update(
            {
                "GIT_CONFIG_COUNT": str(n + 1),
                f"GIT_CONFIG_KEY_{n}": "http.extraHeader",
                f"GIT_CONFIG_VALUE_{n}": f"Authorization: Basic {basic}",
            }
        )
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, text=True)
    if check and done.returncode:
        raise RuntimeError(f"git {args[0]} failed: {redact(done.stderr.strip())[-500:]}")
    return done


@contextmanager
def dataset(board: Board):  # type: ignore[no-untyped-def]
    """A fresh clone of the results dataset, on its newest main (empty when it has none)."""
    with tempfile.TemporaryDirectory(prefix="groundcover-dataset-") as tmp:
        root = Path(tmp) / "dataset"
        git(Path(tmp), "clone", "--quiet", remote(board), str(root))
        yield root


def sync(root: Path) -> None:
    """The clone reset to the remote's newest main (or an empty main when there is none)."""
    git(root, "fetch", "--quiet", "origin")
    if git(root, "rev-parse", "--verify", "--quiet", "origin/main", check=False).returncode == 0:
        git(root, "checkout", "--quiet", "-B", "main", "origin/main")
        git(root, "reset", "--quiet", "--hard", "origin/main")
    else:
        git(root, "checkout", "--quiet", "--orphan", "main")
        git(root, "rm", "-rfq", "--ignore-unmatch", ".")
    git(root, "clean", "-fdqx")


def deleted_folders(base: str, sha: str) -> list[str]:
    """Submission folders present at ``base`` and gone at ``sha`` (this checkout's history)."""
    if not base or not sha:
        return []
    cwd = Path.cwd()
    for rev in (base, sha):
        if git(cwd, "cat-file", "-e", f"{rev}^{{commit}}", check=False).returncode:
            say("warning", f"{rev} is not in this clone; deleted submissions are not looked for")
            return []
    changed = git(cwd, "diff", "--name-only", base, sha, "--", "submissions/").stdout.splitlines()
    names = sorted({p.split("/")[1] for p in changed if p.count("/") >= 2})
    return [n for n in names if git(cwd, "cat-file", "-e", f"{sha}:submissions/{n}", check=False).returncode]


def profile_file(board: Board, role_name: str, board_file: Path) -> Path:
    ref = role(board, role_name).profile_ref(board_file.parent)
    return Path(ref) if Path(ref).is_file() else paths.PROFILES_DIR / f"{ref}.yaml"


def cmd_publish(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    candidate = args.kind == "candidate"
    role_name = "canary" if candidate else "judge_of_record"
    judge = role_profile(board, role_name, args.board).id
    record = role_profile(board, "judge_of_record", args.board).id
    scored = read_scored(Path(args.scored))
    removed = [] if candidate else deleted_folders(os.environ.get("BASE", ""), os.environ.get("SHA", ""))
    source = scored[0].source if scored else f"push {os.environ.get('SHA', '')[:12]}".strip()
    with dataset(board) as root:
        for attempt in range(1, args.attempts + 1):
            sync(root)
            compares_to = releases.base_of(root, record) if candidate else None
            if candidate and compares_to is None:
                say("error", f"no release of the judge of record {record} to compare the canary with")
                return 1
            manifest = releases.cut(
                root,
                kind=args.kind,
                judge=judge,
                role=role_name.replace("_", " "),
                results=Path(args.scored) / "results",
                scored=scored,
                removed=removed,
                source=source,
                profile_file=profile_file(board, role_name, Path(args.board)),
                groundcover=git_sha(),
                redact=secrets(),
                compares_to=compares_to.number if compares_to else None,
            )
            if manifest is None:
                print("publish: the board of record has these results already; nothing to publish")
                return 0
            git(root, "add", "-A")
            git(root, *BOT, "commit", "--quiet", "-m", manifest.changelog)
            if git(root, "push", "--quiet", "origin", "HEAD:main", check=False).returncode == 0:
                commit = git(root, "rev-parse", "HEAD").stdout.strip()
                print(f"publish: {manifest.changelog}")
                print(f"publish: dataset commit {commit} (attempt {attempt})")
                pin = f"--release {manifest.number}" if not candidate else f"--candidate {manifest.number}"
                summary(
                    f"### Published {manifest.kind} {manifest.number}\n\n{manifest.changelog}\n\n"
                    f"Show it in the Space by a reviewed change of the pin: "
                    f"`python scripts/hosted_board.py pin {pin}`"
                )
                if candidate and (comparison := releases.read_comparison(root, manifest.number)):
                    text = comparison.markdown()
                    print(text)
                    summary(text)
                return 0
            print(f"publish: the dataset moved during attempt {attempt}; starting again from it")
    say("error", f"could not publish after {args.attempts} attempts")
    return 1


# -- the pin, the Space's choice of release -------------------------------------------------


def cmd_pin(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    old = results_dataset.read_pin(Path(args.pin_file))
    with dataset(board) as root:
        sync(root)
        commit = git(root, "rev-parse", "HEAD").stdout.strip()
        release = args.release or (old.release if old else None)
        candidate = None if args.promote else (args.candidate or (old.candidate if old else None))
        if args.promote:
            release = old.candidate if old and old.candidate else release
        if release is None:
            say("error", "name the release to show (--release N)")
            return 1
        pin = results_dataset.Pin(
            repo=board.results_dataset, revision=commit, release=release, candidate=candidate
        )
        problems = pin_problems(board, pin, root, Path(args.board))
    for p in problems:
        say("warning", p)
    results_dataset.write_pin(Path(args.pin_file), pin)
    print(f"pinned {pin.label} in {args.pin_file}: commit it and open a pull request")
    return 0


def pin_problems(board: Board, pin: results_dataset.Pin, root: Path, board_file: Path) -> list[str]:
    """What is wrong with a pin, against the dataset checkout and board.yaml: releases that
    are not there, or judged by another judge than the role board.yaml gives them, or a
    promoted candidate that misses what was published after it (:func:`releases.unseen_since`)."""
    problems = []
    have = releases.numbers(root)
    record = role_profile(board, "judge_of_record", board_file).id
    canary = role_profile(board, "canary", board_file).id if board.canary else None
    for number, want, what in (
        (pin.release, record, "the judge of record"),
        (pin.candidate, canary, "the canary"),
    ):
        if number is None:
            continue
        if number not in have:
            problems.append(f"release {number} is not in {pin.dataset}")
        elif (judge := releases.read_manifest(root, number).judge) != want:
            problems.append(
                f"release {number} was judged by {judge}, not by {what} board.yaml names ({want})"
            )
    if pin.release in have and (gap := releases.unseen_since(root, pin.release)):
        problems.append(gap + "; run the canary again")
    return problems


def cmd_check_pin(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    pin = results_dataset.read_pin(Path(args.pin_file))
    if pin is None:
        print(f"{args.pin_file}: no pin; the Space shows the local copy")
        return 0
    with dataset(board) as root:
        git(root, "checkout", "--quiet", pin.revision)
        problems = pin_problems(board, pin, root, Path(args.board))
    for p in problems:
        say("error", p)
    if not problems:
        print(f"{args.pin_file}: {pin.label} is the board of record of board.yaml's judges")
    return 1 if problems else 0


# -- health: can the Space and the pinned release be read? -----------------------------------


def cmd_health(args: argparse.Namespace) -> int:
    import httpx

    board = load_board(args.board)
    problems = []
    url = args.space_url or board.space_url
    try:
        resp = httpx.get(url, timeout=30, follow_redirects=True)
        if resp.status_code != 200:
            problems.append(f"the Space {url} answered HTTP {resp.status_code}")
    except httpx.HTTPError as exc:
        problems.append(f"the Space {url} could not be reached ({type(exc).__name__})")
    try:
        pin = results_dataset.read_pin(Path(args.pin_file))
        if pin is None:
            problems.append(f"{args.pin_file} pins no release")
        else:
            with dataset(board) as root:
                git(root, "checkout", "--quiet", pin.revision)
                for number in filter(None, (pin.release, pin.candidate)):
                    manifest = releases.read_manifest(root, number)
                    board_of = releases.board(root, number)
                    if len(board_of.entries) == 0 and manifest.entries:
                        problems.append(f"release {number}'s results cannot be read: {board_of.skipped[:3]}")
    except (RuntimeError, InputError) as exc:
        problems.append(f"the results dataset cannot be read: {redact(str(exc))}")
    report = "\n".join(f"- {p}" for p in problems)
    Path(args.report).write_text(
        ("The hosted board's health check failed:\n\n" + report + "\n") if problems else "healthy\n",
        encoding="utf-8",
    )
    for p in problems:
        say("error", p)
    if not problems:
        print(f"healthy: {url} and the pinned release answer")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--board",
        type=Path,
        default=Path("leaderboard/board.yaml"),
        help="the roles file (in the checkout run in)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="pipeline check and judge-of-record plan of a pull request")
    c.add_argument("--folders", type=Path, default=Path("folders.txt"))
    c.add_argument("--results", default="leaderboard/results")
    c.add_argument("--snapshot", default="leaderboard/snapshot")
    c.add_argument("--comment", default="comment.md")
    c.set_defaults(func=cmd_check)
    s = sub.add_parser("score", help="score with the judge of record (or the canary): trusted jobs only")
    s.add_argument("--role", choices=["judge_of_record", "canary"], default="judge_of_record")
    s.add_argument("--folders", type=Path, default=Path("folders.txt"))
    s.add_argument("--out", default="record")
    s.set_defaults(func=cmd_score)
    u = sub.add_parser("publish", help="cut the next release (or candidate) and push it")
    u.add_argument("--kind", choices=["release", "candidate"], default="release")
    u.add_argument("--scored", default="record")
    u.add_argument("--attempts", type=int, default=10)
    u.set_defaults(func=cmd_publish)
    n = sub.add_parser("pin", help="pin a release (and a candidate) for the Space")
    n.add_argument("--release", type=int)
    n.add_argument("--candidate", type=int)
    n.add_argument("--promote", action="store_true", help="show the pinned candidate as the release")
    n.add_argument("--pin-file", default="hf_space/results.yaml")
    n.set_defaults(func=cmd_pin)
    k = sub.add_parser("check-pin", help="the pin against the dataset and board.yaml")
    k.add_argument("--pin-file", default="hf_space/results.yaml")
    k.set_defaults(func=cmd_check_pin)
    h = sub.add_parser("health", help="can the Space and the pinned release be read?")
    h.add_argument("--space-url")
    h.add_argument("--pin-file", default="hf_space/results.yaml")
    h.add_argument("--report", default="health.md")
    h.set_defaults(func=cmd_health)
    args = p.parse_args(argv)
    try:
        return int(args.func(args))
    except InputError as exc:
        say("error", redact(str(exc)))
        return 2
    except RuntimeError as exc:
        say("error", redact(str(exc)))
        return 1


if __name__ == "__main__":
    sys.exit(main())
