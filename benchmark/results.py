"""Result files: one validated JSON per (model, task, judge profile).

Layout (after MTEB)::

    results/<org>__<model>/<revision>/<judge-profile>/<task>.json          aggregate + per-query
    results/<org>__<model>/<revision>/<judge-profile>/<task>.traces.jsonl  one trace per query

A result file carries everything needed to decide whether two results may be ranked
together — task version and data fingerprint, the *full* judge profile, package and
dependency versions — and everything needed to trust the number: bootstrap confidence
intervals over queries, per-query scores, and counts of failures (a failure is never
silently a zero).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import platform
import re
import subprocess
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from benchmark import __version__, paths

RESULT_SCHEMA_VERSION = "1"

TRACKED_PACKAGES = (
    "torch",
    "transformers",
    "sentence-transformers",
    "datasets",
    "pyserini",
    "faiss-cpu",
    "lm-eval",
    "vllm",
    "numpy",
    "scipy",
    "pandas",
    "pydantic",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Score(_Strict):
    """A macro-averaged score with a bootstrap confidence interval over queries."""

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = Field(description="queries that contributed (failed queries excluded)")


class ModelInfo(_Strict):
    id: str
    revision: str = "main"
    backend: str | None = None
    generation: dict[str, Any] = Field(default_factory=dict)


class TaskInfo(_Strict):
    id: str
    version: str
    data: str = Field(description="data fingerprint: sha256 of local files or hub repo@revision")
    corpus: str | None = Field(default=None, description="fingerprint of the knowledge corpus used")


class RunInfo(_Strict):
    groundcover_version: str
    packages: dict[str, str]
    python: str
    git_sha: str | None
    seed: int
    started: str
    finished: str
    durations_s: dict[str, float] = Field(default_factory=dict)
    cache: dict[str, Any] = Field(default_factory=dict)
    command: str | None = None


class QueryScores(_Strict):
    query_id: str
    scores: dict[str, float | None]
    counts: dict[str, int] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)


class TaskResult(_Strict):
    schema_version: str = RESULT_SCHEMA_VERSION
    model: ModelInfo
    task: TaskInfo
    judge_profile: dict[str, Any] = Field(description="the full, resolved judge profile")
    metric_family: str
    scores: dict[str, Score]
    curves: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="e.g. ICAT_beta sweep"
    )
    per_query: list[QueryScores]
    failures: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list, description="what was not computed, and why")
    run: RunInfo

    @property
    def profile_id(self) -> str:
        return f"{self.judge_profile.get('name')}@{self.judge_profile.get('version')}"


# ---------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------


def bootstrap_score(
    values: Sequence[float | None], *, seed: int = 0, n_resamples: int = 1000, level: float = 0.95
) -> Score:
    """Mean over queries with a percentile bootstrap CI (``scipy.stats.bootstrap``).

    ``None`` values (queries that failed) are excluded and reported through ``n``:
    the mean is over the queries we could actually score.
    """
    from scipy import stats

    data = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if data.size == 0:
        return Score(value=None, n=0)
    mean = float(data.mean())
    if data.size < 2 or np.all(data == data[0]):
        return Score(
            value=mean,
            ci_low=mean if data.size >= 2 else None,
            ci_high=mean if data.size >= 2 else None,
            n=int(data.size),
        )
    res = stats.bootstrap(
        (data,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=level,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return Score(
        value=mean,
        ci_low=float(res.confidence_interval.low),
        ci_high=float(res.confidence_interval.high),
        n=int(data.size),
    )


def model_dir_name(model_id: str) -> str:
    """``org/model`` -> ``org__model`` (a local path becomes its last component)."""
    name = model_id.rstrip("/")
    if name.startswith((".", "/")) or Path(name).exists():
        name = Path(name).name
    return name.replace("/", "__")


#: Characters allowed in one folder name of a result path (submission revisions too).
SEGMENT_CHARS = "A-Za-z0-9._+=-"


def path_segment(value: str) -> str:
    """``value`` as one safe folder name: revisions come from users and submissions, and
    one like ``../../x`` or ``a/b`` must never place a result outside its model's folder."""
    segment = re.sub(f"[^{SEGMENT_CHARS}]+", "_", value).strip("._") or "_"
    return segment[:96]


def result_path(root: Path, model: ModelInfo, profile_name: str, task_id: str) -> Path:
    folders = (model_dir_name(model.id), model.revision or "main", profile_name)
    return root.joinpath(*map(path_segment, folders), f"{task_id}.json")


def traces_path(result_file: Path) -> Path:
    return result_file.with_name(result_file.stem + ".traces.jsonl")


def write_result(result: TaskResult, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(result.model_dump_json(indent=2), encoding="utf-8")
    tmp.replace(path)
    return path


def read_result(path: Path) -> TaskResult:
    return TaskResult.model_validate_json(Path(path).read_text(encoding="utf-8"))


def iter_results(root: Path) -> Iterable[tuple[Path, TaskResult]]:
    for path in sorted(Path(root).rglob("*.json")):
        yield path, read_result(path)


# ---------------------------------------------------------------------------------
# Run metadata
# ---------------------------------------------------------------------------------


def package_versions(names: Iterable[str] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def git_sha() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=paths.REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def run_info(
    *, seed: int, started: str, durations: dict[str, float], cache: dict[str, Any], command: str | None
) -> RunInfo:
    return RunInfo(
        groundcover_version=__version__,
        packages=package_versions(),
        python=platform.python_version(),
        git_sha=git_sha(),
        seed=seed,
        started=started,
        finished=now_iso(),
        durations_s=durations,
        cache=cache,
        command=command,
    )


def dumps_line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)
