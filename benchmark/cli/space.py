"""``benchmark space``: run the leaderboard Space locally, or publish the Space itself, which
reads the release of the results dataset its pin names (:mod:`benchmark.board.results_dataset`;
releases are cut by the submission workflow, docs/hosted-board.md)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmark.board import results_dataset
from benchmark.cli import PUBLISHED_RESULTS, add_command, default_results_dir
from benchmark.core import paths
from benchmark.core.errors import InputError
from benchmark.core.results import git_sha

SPACE_DIR = paths.REPO_ROOT / "hf_space"
PIN_FILE = SPACE_DIR / "results.yaml"
SPACE_FILES = ("app.py", "README.md", "requirements.txt", "results.yaml")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "space",
        description=(
            "`serve` starts hf_space/app.py on 127.0.0.1 over --results-dir. `publish` uploads the app, "
            "its Space card and its pin, hf_space/results.yaml: the Space shows the release of the results "
            "dataset the pin names, at the pinned commit (releases are cut by the submission workflow; "
            "docs/hosted-board.md). --dry-run prints what would be uploaded."
        ),
        examples=[
            "benchmark space serve --port 7860",
            "benchmark space publish --repo-id groundcover/leaderboard --dry-run",
            "HF_TOKEN=... benchmark space publish --repo-id groundcover/leaderboard",
        ],
    )
    p.add_argument("action", choices=["serve", "publish"])
    p.add_argument(
        "--results-dir",
        help=f"result files to serve (default: the published ones in {PUBLISHED_RESULTS} inside a checkout, "
        "else ./results)",
    )
    p.add_argument("--submissions-dir", default="submissions")
    p.add_argument("--port", type=port, default=7860, help="local port, 1 to 65535 (default 7860)")
    p.add_argument("--repo-id", help="the Space's Hub repo id (org/name)")
    p.add_argument("--dry-run", action="store_true", help="list the files and sizes, upload nothing")
    p.set_defaults(func=run)


def port(text: str) -> int:
    """``--port``: a TCP port number; argparse turns the error into a one-line message."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1 to 65535)")
    return value


@contextmanager
def hub_errors(repo_id: str, what: str) -> Iterator[None]:
    """An upload the Hub does not take — no route to it, offline mode, a refused or missing
    token — as one line naming the repository, never huggingface_hub's chained traceback."""
    from huggingface_hub.errors import HTTPError

    try:
        yield
    except (OSError, HTTPError) as exc:  # huggingface_hub's errors are OSErrors; its transport's, HTTPErrors
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise InputError.at(
            repo_id,
            f"could not upload the {what} to the Hub: {reason} (check the network, HF_HUB_OFFLINE "
            "and HF_TOKEN)",
            field="--repo-id",
        ) from exc


REQUIREMENT = re.compile(r"(groundcover\[space\] @ git\+\S+?)@\S+")


def stage(dest: Path, *, ref: str | None = None) -> list[Path]:
    """Copy the Space into ``dest`` (app, card, requirements, the results pin), its
    groundcover requirement pinned to ``ref`` (default: this checkout's commit), the code that
    built the results it shows."""
    if results_dataset.read_pin(PIN_FILE) is None:
        raise InputError.at(
            str(PIN_FILE),
            "no results pin: pin a release first (`python scripts/hosted_board.py pin --release N`)",
        )
    files = [shutil.copy2(SPACE_DIR / name, dest / name) for name in SPACE_FILES]
    if pin := ref or git_sha():
        req = dest / "requirements.txt"
        req.write_text(
            REQUIREMENT.sub(lambda m: f"{m.group(1)}@{pin}", req.read_text(encoding="utf-8")),
            encoding="utf-8",
        )
    return files


def _list(files: list[Path], root: str, target: str) -> None:
    total = 0
    for f in files:
        total += f.stat().st_size
        print(f"{f.stat().st_size:>12,d}  {f.relative_to(root)}")
    print(f"{len(files)} files, {total:,d} bytes -> {target}")


def run(args: argparse.Namespace) -> int:
    results_dir = Path(args.results_dir or default_results_dir())
    submissions_dir = Path(args.submissions_dir)
    if args.action == "serve":
        os.environ["GROUNDCOVER_RESULTS"] = str(results_dir.resolve())
        os.environ["GROUNDCOVER_SUBMISSIONS"] = str(submissions_dir.resolve())
        from benchmark.space.app import build_app, launch

        launch(build_app(), port=args.port)
        return 0
    if not args.repo_id:
        raise InputError.at("--repo-id", f"`benchmark space {args.action}` needs --repo-id ORG/NAME")
    with tempfile.TemporaryDirectory(prefix="groundcover-space-") as tmp:
        files = stage(Path(tmp))
        _list(files, tmp, f"space {args.repo_id}")
        if args.dry_run:
            print("dry run: nothing uploaded")
            return 0
        from huggingface_hub import HfApi

        api = HfApi()
        with hub_errors(args.repo_id, "Space"):
            api.create_repo(args.repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
            info = api.upload_folder(
                folder_path=tmp,
                repo_id=args.repo_id,
                repo_type="space",
                commit_message="update leaderboard",
                # results once copied into the Space are removed: it reads the pinned dataset
                delete_patterns=["data/**"],
            )
        print(f"uploaded: {info}")
    return 0
