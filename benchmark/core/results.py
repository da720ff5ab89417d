"""Result files: one validated JSON per (model, task, judge profile, family), laid out as
:func:`result_path` says, beside a traces file.  A result carries everything needed to decide
whether two results may be ranked together (task version and data fingerprint, the *full*
judge profile, package versions) and to trust the number (bootstrap intervals, per-query
scores, failure counts: a failure is never silently a zero).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import re
import subprocess
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from benchmark.core import paths, stats
from benchmark.core.checkpoint import write_atomic
from benchmark.core.version import __version__

RESULT_SCHEMA_VERSION = "2"

#: the share of queries per score on which a judge may fail before the score is withheld:
#: small, yet one lost request in a large task (1 of 54) does not throw a run away
MAX_FAILURE_RATE = 0.05

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


#: what every human-corrected figure says of itself (the interval's guarantee rests on it)
RANDOM_SAMPLE_CAVEAT = (
    "valid only if the labelled units are a random sample of all the units the judge labelled"
)


class HumanCorrected(_Strict):
    """A score corrected with human labels of some of its units (``--human-labels``,
    :func:`benchmark.core.ppi.corrected_mean`)."""

    value: float
    ci_low: float
    ci_high: float
    raw: float = Field(description="the judge's own weighted unit mean over the same units")
    n_labels: int = Field(description="units with a human label")
    n_units: int = Field(description="units in all, labelled or not")
    unit: str = Field(description="what was labelled: claim, nugget, …")
    confidence: float
    labels_file: str = Field(description="the labels file's name and sha256")
    caveat: str = RANDOM_SAMPLE_CAVEAT


class JudgeRepeats(_Strict):
    """A score judged ``repeats`` times per query by a sampled judge (``--judge-repeats``,
    :mod:`benchmark.core.repeats`)."""

    repeats: int
    noise_share: float | None = Field(
        description="share of the mean's variance that is the judge's noise (0 to 1; null: not measurable)"
    )


class Score(_Strict):
    """A macro-average over queries with a bootstrap confidence interval."""

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = Field(description="queries that contributed (failed queries are left out, never counted as 0)")
    failed: int = Field(
        default=0,
        description="queries whose value is undetermined because a judge failed on them (left out of n, "
        "never counted as 0)",
    )
    unreachable: int = Field(default=0, description="of the failed, those whose judge gave no reply at all")
    incomplete: str | None = Field(
        default=None,
        description="why the score is withheld (its judge failed on more queries than --max-failure-rate "
        "allows): shown on no board as a number, never ranked",
    )
    ci_method: str | None = Field(
        default=None, description="BCa, percentile, constant, or null (no interval)"
    )
    human_corrected: HumanCorrected | None = Field(
        default=None, description="the score corrected with human labels of its units (--human-labels)"
    )
    judge_repeats: JudgeRepeats | None = Field(
        default=None, description="the interval and noise share over the judge's repeats (--judge-repeats)"
    )

    @model_serializer(mode="wrap")
    def _recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Absent, the optional figures are not written (published results recompute key for key)."""
        out = handler(self)
        for key in ("human_corrected", "judge_repeats", "incomplete"):
            if out.get(key) is None:
                out.pop(key, None)
        return out


class RAGSetting(_Strict):
    """How a retrieval-augmented system was given evidence: part of the model's identity."""

    # `sub_questions` is written as "subq", the key files have always used
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    #: "run": the system's own retrieval, known only by the passages it returned
    retriever: Literal["bm25", "dense", "hybrid", "run"]
    k: int = Field(
        ge=1, le=100, description="passages put in the prompt (a TREC RAG run: the most references)"
    )
    prompt: str = Field(description="prompt file id, e.g. rag-answer@1")
    corpus: str = Field(description="label of the corpus retrieved from")
    chunking: tuple[int, int] = (128, 32)
    embedder: str | None = Field(default=None, description="dense and hybrid: the query/passage embedder")
    rerank: Literal["generic", "stance"] | None = Field(
        default=None,
        description="RAArg: listwise LLM reranking of the retrieved documents, and its instruction",
    )
    depth: int | None = Field(default=None, ge=1, description="RAArg: documents retrieved, then reranked")
    sub_questions: Literal["retrieval", "rerank", "prompt", "all"] | None = Field(
        default=None,
        alias="subq",
        description="core sub-questions used in retrieval, in reranking, in the prompt, or all three (Xie et al.)",
    )

    @property
    def slug(self) -> str:
        """``rag-bm25-k5``: names folders and tells closed-book and RAG entries apart."""
        rerank = f"-{self.rerank}-rerank{self.depth or ''}" if self.rerank else ""
        subq = f"-subq-{self.sub_questions}" if self.sub_questions else ""
        return f"rag-{self.retriever}{rerank}{subq}-k{self.k}"

    @property
    def label(self) -> str:
        rerank = f" + {self.rerank} LLM rerank" if self.rerank else ""
        subq = f" + core sub-questions ({self.sub_questions})" if self.sub_questions else ""
        return f"RAG {self.retriever}{rerank}{subq} k={self.k}"

    @property
    def short(self) -> str:
        """``RAG bm25+subq(all) k5``: the setting in a figure's legend or on an axis."""
        rerank = f"+{self.rerank} rerank" if self.rerank else ""
        subq = f"+subq({self.sub_questions})" if self.sub_questions else ""
        return f"RAG {self.retriever}{rerank}{subq} k{self.k}"


class ModelInfo(_Strict):
    id: str = Field(min_length=1, max_length=200)
    revision: str = "main"
    backend: str | None = None
    generation: dict[str, Any] = Field(default_factory=dict)
    rag: RAGSetting | None = Field(default=None, description="null: closed-book")

    @field_validator("id", "revision")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        """The name rule every door applies (:func:`benchmark.core.untrusted.name_problems`)."""
        from benchmark.core.untrusted import name_problems

        if why := name_problems(value):
            raise ValueError(why)
        return value

    @property
    def setting(self) -> str:
        return "closed-book" if self.rag is None else self.rag.slug

    @property
    def label(self) -> str:
        """How the leaderboard names this entry: closed-book and RAG runs are two entries."""
        name = self.id if self.revision in ("main", "", None) else f"{self.id}@{self.revision}"
        return name if self.rag is None else f"{name} ({self.rag.label})"

    @property
    def short_label(self) -> str:
        """The name a figure shows: the model's own name and, for a RAG run, its setting in short."""
        name = self.id.rsplit("/", 1)[-1]
        return name if self.rag is None else f"{name} · {self.rag.short}"


class QuerySet(_Strict):
    """Which queries were scored: results on different query sets are never ranked together."""

    n: int
    sha256: str = Field(description="hash of the sorted query ids")

    @classmethod
    def of(cls, query_ids: Iterable[str]) -> QuerySet:
        ids = sorted(set(query_ids))
        return cls(n=len(ids), sha256=hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest())


class TaskInfo(_Strict):
    id: str
    version: str
    data: str = Field(description="data fingerprint: sha256 of local files or hub repo@revision")
    corpus: str | None = Field(default=None, description="fingerprint of the knowledge corpus used")
    queries: QuerySet


class Statistics(_Strict):
    """How the intervals were computed, and how the leaderboard ranks this result (``benchmark.core.stats``)."""

    ci_level: float
    bootstrap_resamples: int
    seed: int
    bca_min_n: int
    rank_test: str = stats.RANK_METHOD
    alpha: float = stats.ALPHA
    rank_resamples: int = stats.PERMUTATION_RESAMPLES


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
    max_failure_rate: float | None = Field(default=None, description="the --max-failure-rate it ran with")


class QueryScores(_Strict):
    query_id: str
    scores: dict[str, float | None]
    counts: dict[str, int] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)
    failed: bool = Field(default=False, description="no score at all: shown as failed, never as 0")
    unreachable: bool = Field(
        default=False, description="the judge could not be reached for some of this query's judgements"
    )
    repeats: dict[str, list[float | None]] | None = Field(
        default=None,
        description="--judge-repeats: per score, its value in each repeat (``scores`` holds their mean)",
    )

    @model_serializer(mode="wrap")
    def _recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if out.get("repeats") is None:
            out.pop("repeats", None)
        return out


class TaskResult(_Strict):
    schema_version: Literal["2"] = RESULT_SCHEMA_VERSION
    model: ModelInfo
    task: TaskInfo
    judge_profile: dict[str, Any] = Field(description="the full, resolved judge profile")
    metric_family: str
    primary: str = Field(description="the score this result is ranked by")
    settings: dict[str, Any] = Field(default_factory=dict, description="the family's scoring options")
    board_settings: dict[str, Any] = Field(
        default_factory=dict,
        description="the settings that change the ranked numbers (part of the board key)",
    )
    statistics: Statistics
    scores: dict[str, Score]
    curves: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="e.g. ICAT_beta sweep"
    )
    per_query: list[QueryScores]
    failures: dict[str, int] = Field(default_factory=dict, description="failures by stage")
    example_copies: dict[str, int] = Field(
        default_factory=dict,
        description="failures by stage whose judge reproduced its prompt's worked example "
        "(benchmark.models.example_copies); part of `failures`",
    )
    failed_queries: list[str] = Field(default_factory=list)
    judge_card: dict[str, str] = Field(
        default_factory=dict,
        description="the judge card's verdict, when this was scored, for each judge role the ranked "
        "score depends on (benchmark.models.cards; 'card' names the card's date)",
    )
    counts: dict[str, int] = Field(default_factory=dict, description="per-query counts summed")
    notes: list[str] = Field(default_factory=list, description="what was not computed, and why")
    incomplete: list[str] = Field(
        default_factory=list,
        description="why this result is not final (its ranked score is withheld, or too many queries have no "
        "score): kept off every board until a re-run (or --retry-failed) completes it",
    )
    run: RunInfo

    @property
    def profile_id(self) -> str:
        return f"{self.judge_profile.get('name')}@{self.judge_profile.get('version')}"

    def board_key(self) -> tuple[str, ...]:
        """Everything that must be equal for two results to be ranked against each other."""
        return (
            self.metric_family,
            f"{self.task.id}@{self.task.version}",
            self.task.data,
            self.task.corpus or "task",
            self.task.queries.sha256,
            self.profile_id,
            json.dumps(self.board_settings, sort_keys=True),
            self.primary,
        )


def bootstrap_score(
    values: Sequence[float | None], *, seed: int = 0, n_resamples: int = stats.BOOTSTRAP_RESAMPLES
) -> Score:
    """Mean over queries with a seeded bootstrap CI (:func:`benchmark.core.stats.mean_ci`)."""
    ci = stats.mean_ci(values, seed=seed, n_resamples=n_resamples)
    return Score(value=ci.value, ci_low=ci.low, ci_high=ci.high, n=ci.n, ci_method=ci.method)


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
    return (re.sub(f"[^{SEGMENT_CHARS}]+", "_", value).strip("._") or "_")[:96]


def result_path(root: Path, model: ModelInfo, profile: str, task_id: str, family: str) -> Path:
    """``<root>/<org__model>/<revision>/<setting>/<profile>-v<version>/<task>.<family>.json``
    (``profile``: ``name@version``): a re-score under a bumped profile never overwrites the last."""
    name, _, version = profile.partition("@")
    folders = (model_dir_name(model.id), model.revision or "main", model.setting, f"{name}-v{version or '0'}")
    return root.joinpath(*map(path_segment, folders), f"{path_segment(task_id)}.{path_segment(family)}.json")


def traces_path(result_file: Path) -> Path:
    return result_file.with_name(result_file.stem + ".traces.jsonl")


def read_traces(result_file: Path) -> list[dict[str, Any]]:
    """The traces of a result, one per query.  Lines end at "\\n" only: an answer's raw U+2028
    is inside a line."""
    text = traces_path(result_file).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def write_result(result: TaskResult, path: Path) -> Path:
    write_atomic(path, result.model_dump_json(indent=2))
    return path


def read_result(path: Path) -> TaskResult:
    return TaskResult.model_validate_json(Path(path).read_text(encoding="utf-8"))


def iter_results(root: Path) -> Iterable[tuple[Path, TaskResult]]:
    for path in sorted(Path(root).rglob("*.json")):
        yield path, read_result(path)


def family_results(root: Path, family_id: str) -> list[tuple[Path, TaskResult]]:
    """The results of one metric family under ``root`` (a folder, or one result file)."""
    found = [(root, read_result(root))] if Path(root).is_file() else list(iter_results(root))
    return [(path, r) for path, r in found if r.metric_family == family_id]


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
    *,
    seed: int,
    started: str,
    durations: dict[str, float],
    cache: dict[str, Any],
    command: str | None,
    max_failure_rate: float | None = None,
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
        max_failure_rate=max_failure_rate,
    )
