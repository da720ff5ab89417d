"""The published results as a Hub dataset, read back at a pinned revision.

Like MTEB's results repository: result JSON files with their per-query traces and the
model cards live in a dataset repo (``results/…``, ``submissions/<folder>/model.yaml``,
the same layout as this repository's ``leaderboard/results`` and ``submissions``), and
the Space reads it at the commit named in its pin file (``hf_space/results.yaml``), so
what the Space shows changes only when the pin does — by a reviewed commit.  When the
dataset cannot be read (no pin, offline, the Hub down), the local copy is the default
and the page says which one it shows.
"""

from __future__ import annotations

import logging
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from benchmark.core.errors import InputError, Problem
from benchmark.core.untrusted import load_yaml

log = logging.getLogger(__name__)

#: What the dataset holds: results with traces, and model cards.  Nothing else is read.
ALLOW_PATTERNS = ["results/**/*.json", "results/**/*.traces.jsonl", "submissions/*/model.yaml"]


class Pin(BaseModel):
    """A results dataset at one commit (a full 40-hex sha: branches move, shas do not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", description="Hub dataset id, org/name")
    revision: str = Field(pattern=r"^[0-9a-f]{40}$", description="commit sha of that dataset")

    @property
    def label(self) -> str:
        return f"hf://datasets/{self.repo}@{self.revision[:7]}"


@dataclass(frozen=True)
class Located:
    """Where the board's files are, and a sentence saying which source that is."""

    results: Path
    submissions: Path
    source: str
    pin: Pin | None = None


def read_pin(path: Path) -> Pin | None:
    """The pin in ``path``, or None when there is no such file."""
    if not path.is_file():
        return None
    try:
        return Pin.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except ValueError as exc:  # YAMLDataError and pydantic's ValidationError both are
        raise InputError(Problem(str(path), f"not a results pin (repo, revision): {exc}")) from exc


def write_pin(path: Path, pin: Pin) -> None:
    text = (
        "# The results dataset the Space shows, at one commit.  Written by\n"
        "# `benchmark space publish-results`; change it only by a reviewed commit.\n"
    )
    path.write_text(text + yaml.safe_dump(pin.model_dump(), sort_keys=False), encoding="utf-8")


def stage(results_dir: Path, submissions_dir: Path, dest: Path) -> list[Path]:
    """Copy results (with traces) and model cards into ``dest`` in the dataset layout.

    Only regular files that match :data:`ALLOW_PATTERNS` are copied; symlinks (to a file or
    to a submission folder) are skipped so that a crafted link cannot publish a file from
    outside the folders.
    """
    files = []
    for src in sorted(results_dir.rglob("*")):
        if (
            src.is_file()
            and not src.is_symlink()
            and (src.suffix == ".json" or src.name.endswith(".traces.jsonl"))
        ):
            files.append(_copy(src, dest / "results" / src.relative_to(results_dir)))
    for card in sorted(submissions_dir.glob("*/model.yaml")):
        if not (card.is_symlink() or card.parent.is_symlink()):  # a linked folder, as a linked file
            files.append(_copy(card, dest / "submissions" / card.parent.name / "model.yaml"))
    return files


def _copy(src: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, target)
    return target


def publish(folder: Path, repo: str, *, api: Any = None) -> Pin:
    """Upload a staged ``folder`` as the whole content of dataset ``repo``; return its pin.

    ``delete_patterns="**"``: files removed locally are removed from the dataset too.
    """
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    api.create_repo(repo, repo_type="dataset", exist_ok=True)
    info = api.upload_folder(
        folder_path=str(folder),
        repo_id=repo,
        repo_type="dataset",
        commit_message="update groundcover results",
        delete_patterns="**",
    )
    revision = getattr(info, "oid", None) or _sha_from_url(str(getattr(info, "commit_url", info)))
    return Pin(repo=repo, revision=revision)


def _sha_from_url(url: str) -> str:
    match = re.search(r"[0-9a-f]{40}", url)
    if not match:
        raise RuntimeError(f"the Hub did not return a commit sha for the upload: {url}")
    return match.group(0)


def download(pin: Pin) -> Path:
    """The dataset's files at the pinned commit (huggingface_hub's cache; offline-aware)."""
    from huggingface_hub import snapshot_download

    return Path(
        snapshot_download(pin.repo, repo_type="dataset", revision=pin.revision, allow_patterns=ALLOW_PATTERNS)
    )


def locate(pin_file: Path, local_results: Path, local_submissions: Path) -> Located:
    """The pinned dataset if it can be read, else the local copy (saying why)."""
    local = Located(local_results, local_submissions, f"local copy ({local_results})")
    try:
        pin = read_pin(pin_file)
    except InputError as exc:
        log.warning("%s; showing the local copy", exc)
        return Located(
            local_results, local_submissions, f"local copy ({local_results}); the pin is invalid: {exc}"
        )
    if pin is None:
        return local
    try:
        root = download(pin)
    except Exception as exc:  # offline, unknown repo or revision, Hub down: all fall back
        log.warning("results dataset %s unreadable (%s); showing the local copy", pin.label, exc)
        reason = f"{type(exc).__name__}"
        return Located(
            local_results,
            local_submissions,
            f"local copy ({local_results}): the results dataset {pin.label} could not be read ({reason})",
            pin,
        )
    return Located(root / "results", root / "submissions", f"results dataset {pin.label}", pin)
