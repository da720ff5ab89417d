"""``benchmark space``: run the leaderboard Space locally, or publish it to the Hub."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
from pathlib import Path

from benchmark import paths
from benchmark.cli import PUBLISHED_RESULTS, add_command
from benchmark.results import git_sha

SPACE_DIR = paths.REPO_ROOT / "hf_space"
SPACE_FILES = ("app.py", "README.md", "requirements.txt")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "space",
        help="serve the Gradio leaderboard locally, or publish it as a Hugging Face Space",
        description=(
            "`serve` starts hf_space/app.py on 127.0.0.1 over --results-dir. `publish` stages the app, "
            "its Space card, the result files (with traces, for drill-down) and the model cards, then "
            "uploads them with huggingface_hub; --dry-run prints what would be uploaded."
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
        default=PUBLISHED_RESULTS,
        help="result files to serve (default: the published ones in leaderboard/results)",
    )
    p.add_argument("--submissions-dir", default="submissions")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--repo-id", help="Space repo id, e.g. org/leaderboard (publish)")
    p.add_argument("--dry-run", action="store_true", help="list the files and sizes, upload nothing")
    p.set_defaults(func=run)


REQUIREMENT = re.compile(r"(groundcover\[space\] @ git\+\S+?)@\S+")


def stage(results_dir: Path, submissions_dir: Path, dest: Path, *, ref: str | None = None) -> list[Path]:
    """Copy what the Space serves into ``dest``: app, card, results and model cards only.

    ``ref`` (default: this checkout's commit) pins the Space's groundcover requirement to
    exactly the code that built the results it shows.
    """
    files = []
    for name in SPACE_FILES:
        shutil.copy2(SPACE_DIR / name, dest / name)
        files.append(dest / name)
    pin = ref or git_sha()
    if pin:
        req = dest / "requirements.txt"
        req.write_text(
            REQUIREMENT.sub(lambda m: f"{m.group(1)}@{pin}", req.read_text(encoding="utf-8")),
            encoding="utf-8",
        )
    for src in sorted(results_dir.rglob("*")):
        if (
            src.is_file()
            and not src.is_symlink()
            and (src.suffix == ".json" or src.name.endswith(".traces.jsonl"))
        ):
            target = dest / "data" / "results" / src.relative_to(results_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
            files.append(target)
    for card in sorted(submissions_dir.glob("*/model.yaml")):
        if card.is_symlink():
            continue
        target = dest / "data" / "submissions" / card.parent.name / "model.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(card, target)
        files.append(target)
    return files


def run(args: argparse.Namespace) -> int:
    results_dir, submissions_dir = Path(args.results_dir), Path(args.submissions_dir)
    if args.action == "serve":
        os.environ["GROUNDCOVER_RESULTS"] = str(results_dir.resolve())
        os.environ["GROUNDCOVER_SUBMISSIONS"] = str(submissions_dir.resolve())
        import importlib.util

        spec = importlib.util.spec_from_file_location("groundcover_space", SPACE_DIR / "app.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.build_app().launch(server_name="127.0.0.1", server_port=args.port)
        return 0
    if not args.repo_id:
        raise SystemExit("error: publish needs --repo-id")
    with tempfile.TemporaryDirectory(prefix="groundcover-space-") as tmp:
        files = stage(results_dir, submissions_dir, Path(tmp))
        total = 0
        for f in files:
            size = f.stat().st_size
            total += size
            print(f"{size:>12,d}  {f.relative_to(tmp)}")
        print(f"{len(files)} files, {total:,d} bytes -> space {args.repo_id} (replacing data/**)")
        if args.dry_run:
            print("dry run: nothing uploaded")
            return 0
        from huggingface_hub import HfApi

        api = HfApi()
        api.create_repo(args.repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
        info = api.upload_folder(
            folder_path=tmp,
            repo_id=args.repo_id,
            repo_type="space",
            commit_message="update leaderboard",
            # results and cards removed here are removed from the Space too
            delete_patterns=["data/**"],
        )
        print(f"uploaded: {info}")
    return 0
