"""The hosted board's roles, declared once in ``leaderboard/board.yaml``: the pipeline check,
the judge of record and its canary (docs/hosted-board.md).

A role names its profile *and* that profile's version: a profile edited without a version
bump no longer matches and stops the job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmark.core import paths
from benchmark.core.errors import InputError, field_problems, rel
from benchmark.models.profiles import JudgeProfile, load_profile

BOARD_FILE = paths.REPO_ROOT / "leaderboard" / "board.yaml"
#: a Hub repository id, ``org/name``
HUB_ID = r"^[A-Za-z0-9][\w.-]*/[\w.-]+$"


class Role(BaseModel):
    """A judge profile in one role, with the scoring flags that role scores under."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    profile: str = Field(description="a shipped profile's name, or a YAML path relative to the board file")
    version: str = Field(description="the profile's version: the role names exactly one judge")
    metrics: list[str] | None = Field(default=None, description="families scored (null: the task card's)")
    options: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="family flags without their dashes, e.g. {exam-answerer: llm}"
    )

    @model_validator(mode="after")
    def _flags(self) -> Role:
        if bad := [k for k in self.options if not k.replace("-", "").isalnum() or k.startswith("-")]:
            raise ValueError(f"options must be flag names such as exam-answerer, not {bad}")
        return self

    def flags(self, board_dir: Path) -> list[str]:
        """The ``benchmark score`` arguments of this role: profile, families, options."""
        args = ["--judge-profile", self.profile_ref(board_dir)]
        if self.metrics:
            args += ["--metrics", ",".join(self.metrics)]
        for key, value in self.options.items():
            if value is True:
                args.append(f"--{key}")
            elif value is not False:
                args += [f"--{key}", str(value)]
        return args

    def profile_ref(self, board_dir: Path) -> str:
        """A shipped profile's name as it is; a path, resolved against the board file's folder."""
        if "/" in self.profile or self.profile.endswith((".yaml", ".yml")):
            return str((board_dir / self.profile).resolve())
        return self.profile


class Board(BaseModel):
    """``leaderboard/board.yaml``: who judges what, and where the board of record lives."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pipeline_check: Role
    judge_of_record: Role
    canary: Role | None = None
    results_dataset: str = Field(pattern=HUB_ID, description="the Hub dataset (a git repository) of releases")
    space_url: str = Field(pattern=r"^https?://", description="the Space's app URL, for the health check")

    @model_validator(mode="after")
    def _distinct(self) -> Board:
        canary, record = self.canary, self.judge_of_record
        if canary is not None and (canary.profile, canary.version) == (record.profile, record.version):
            raise ValueError("the canary is the judge of record already: give it another profile or version")
        return self

    @property
    def remote(self) -> str:
        """The results dataset as a git remote (the Hub serves every repository over git)."""
        return f"https://huggingface.co/datasets/{self.results_dataset}"


ROLES = ("pipeline_check", "judge_of_record", "canary")


def load_board(path: Path | str | None = None) -> Board:
    """The board file, validated; every problem named with its line and field."""
    path = Path(path or BOARD_FILE)
    try:
        text = path.read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as exc:
        raise InputError.at(rel(path), f"cannot read the board file: {exc}") from exc
    try:
        return Board.model_validate(raw)
    except ValidationError as exc:
        raise InputError(field_problems(exc, rel(path), text)) from exc


def role(board: Board, name: str) -> Role:
    found: Any = getattr(board, name, None) if name in ROLES else None
    if found is None:
        raise InputError.at("board.yaml", f"no {name} is declared", field=name)
    return found


def role_profile(board: Board, name: str, board_file: Path | str | None = None) -> JudgeProfile:
    """The profile a role names, checked against the version the role declares."""
    declared = role(board, name)
    board_dir = Path(board_file or BOARD_FILE).parent
    profile = load_profile(declared.profile_ref(board_dir))
    if profile.version != declared.version:
        raise InputError.at(
            rel(Path(board_file or BOARD_FILE)),
            f"names {profile.name} version {declared.version!r}, but the profile is version "
            f"{profile.version!r}: a changed judge is a new version, and a new judge of record "
            "goes through a canary (docs/hosted-board.md)",
            field=f"{name}.version",
        )
    return profile
