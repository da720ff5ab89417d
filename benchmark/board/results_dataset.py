"""The board of record as the Space reads it: a numbered release of the results dataset, pinned.

The Space reads the dataset at the commit and release(s) its pin file names
(``hf_space/results.yaml``), so what it shows changes only by a reviewed commit; a pinned
release it cannot read is no board, never another set of results (docs/hosted-board.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from benchmark.core.errors import InputError
from benchmark.core.untrusted import load_yaml

log = logging.getLogger(__name__)

#: What the Space reads of a release: results with traces, model cards, its manifest and a
#: candidate's comparison.  Nothing else is downloaded (the answers stay in the dataset).
RELEASE_PATTERNS = (
    "results/**/*.json",
    "results/**/*.traces.jsonl",
    "submissions/*/model.yaml",
    "release.yaml",
    "canary.json",
)


class Pin(BaseModel):
    """A results dataset at one commit (a full 40-hex sha: branches move, shas do not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", description="Hub dataset id, org/name")
    revision: str = Field(pattern=r"^[0-9a-f]{40}$", description="commit sha of that dataset")
    release: int = Field(ge=1, description="the release shown as the board of record")
    candidate: int | None = Field(default=None, ge=1, description="a canary's release, shown beside it")

    @property
    def dataset(self) -> str:
        return f"hf://datasets/{self.repo}@{self.revision[:7]}"

    @property
    def label(self) -> str:
        beside = f" (candidate {self.candidate} beside it)" if self.candidate else ""
        return f"release {self.release}{beside} of {self.dataset}"


@dataclass(frozen=True)
class Located:
    """Where the board's files are, and a sentence saying which source that is."""

    results: Path
    submissions: Path
    source: str
    pin: Pin | None = None
    #: the dataset's files at the pinned commit (its ``releases/<n>/`` folders), when read
    root: Path | None = None


def read_pin(path: Path) -> Pin | None:
    """The pin in ``path``, or None when there is no such file."""
    if not path.is_file():
        return None
    try:
        return Pin.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except ValueError as exc:  # YAMLDataError and pydantic's ValidationError both are
        raise InputError.at(str(path), f"not a results pin (repo, revision, release): {exc}") from exc


def write_pin(path: Path, pin: Pin) -> None:
    text = (
        "# The release of the results dataset the Space shows, at one commit.  Written by\n"
        "# `python scripts/hosted_board.py pin`; change it only by a reviewed commit.\n"
    )
    path.write_text(text + yaml.safe_dump(pin.model_dump(), sort_keys=False), encoding="utf-8")


def download(pin: Pin) -> Path:
    """The pinned releases' files at the pinned commit (huggingface_hub's cache; offline-aware)."""
    from huggingface_hub import snapshot_download

    patterns = [
        f"releases/{n}/{p}" for n in filter(None, (pin.release, pin.candidate)) for p in RELEASE_PATTERNS
    ]
    return Path(
        snapshot_download(pin.repo, repo_type="dataset", revision=pin.revision, allow_patterns=patterns)
    )


def locate(pin_file: Path, local_results: Path, local_submissions: Path) -> Located:
    """The pinned release if there is a pin, else the local copy; an unreadable pin shows
    no board (an empty folder) and says why."""
    local = Located(local_results, local_submissions, f"local copy ({local_results})")
    nothing = Path(pin_file).parent / ".no-results"  # never created: a board with no entries
    try:
        pin = read_pin(pin_file)
    except InputError as exc:
        log.warning("%s; no board is shown", exc)
        return Located(nothing, nothing, f"no board: the pin is invalid: {exc}")
    if pin is None:
        return local
    from benchmark.board import releases  # the boards' machinery, for the Space only

    try:
        root = download(pin)
        judge = releases.read_manifest(root, pin.release).judge
    except Exception as exc:  # offline, unknown repo or revision, Hub down, no such release
        log.warning("results dataset %s unreadable (%s); no board is shown", pin.label, exc)
        return Located(
            nothing, nothing, f"no board: {pin.label} could not be read ({type(exc).__name__})", pin
        )
    where = releases.release_dir(root, pin.release)
    return Located(
        where / "results", where / "submissions", f"{pin.label}, judge of record {judge}", pin, root
    )
