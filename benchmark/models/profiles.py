"""Judge profiles: named, versioned configurations of every model a score depends on.

The *resolved* profile is written into every result file, and the leaderboard only ranks
results that share a profile name and version, so changing anything that can change a score
means bumping ``version``.  Profiles are data (``benchmark/profiles/*.yaml``, or a user's
``--judge-profile path.yaml``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

from benchmark.core import paths
from benchmark.core.errors import InputError, field_problems, rel, usage_error
from benchmark.core.untrusted import read_text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Price(_Strict):
    """What a hosted judge costs, in US dollars per million tokens (a dry run's money line).
    Kept out of the recorded profile: a price changes what a run costs, not what it scores."""

    prompt: float = Field(ge=0, description="US dollars per million prompt tokens")
    completion: float = Field(ge=0, description="US dollars per million completion tokens")


class LLMArgs(BaseModel):
    """The judge LLM's backend arguments, typed: each backend reads the fields it documents.
    Only the fields a profile sets are recorded (a result's ``judge_profile`` and the cache
    identities stay what the YAML says); a vLLM judge's engine arguments pass through as extras."""

    model_config = ConfigDict(extra="allow", frozen=True)

    # openai, openai-batch: where and how the server is asked
    base_url: str | list[str] | None = Field(default=None, description="one server, or a fleet of one model")
    api_key: str | None = None
    endpoint: Literal["chat", "completions"] | None = None
    max_concurrency: int | None = Field(default=None, ge=1)
    timeout: int | float | None = Field(default=None, gt=0)
    max_attempts: int | None = Field(default=None, ge=1)
    backoff: int | float | None = Field(default=None, ge=0)
    max_backoff: int | float | None = Field(default=None, ge=0)
    # openai-batch
    poll_interval: int | float | None = Field(default=None, gt=0)
    max_poll_interval: int | float | None = Field(default=None, gt=0)
    completion_window: str | None = None
    batch_timeout: int | float | None = Field(default=None, gt=0)
    # vllm-batch
    vllm_command: str | None = None
    vllm_args: list[str] | None = None
    # transformers, ctranslate2
    gguf_file: str | None = None
    dtype: str | None = None
    device: str | None = None
    repetition_penalty: int | float | None = Field(default=None, gt=0)
    # ctranslate2: the weights' type (int8, int8_float32, float32, ...; default int8)
    compute_type: str | None = None

    @model_serializer(mode="wrap")
    def _only_set(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        return {k: v for k, v in data.items() if k in self.model_fields_set or k in (self.model_extra or {})}

    def as_dict(self) -> dict[str, Any]:
        """The arguments the profile set, as it set them (an engine's keyword arguments)."""
        return dict(self.model_dump())


class LLMSpec(_Strict):
    """An LLM judge: which backend and which model (see :mod:`benchmark.judging.stack`)."""

    backend: Literal["transformers", "ctranslate2", "openai", "openai-batch", "vllm", "vllm-batch"] = (
        "transformers"
    )
    model: str
    revision: str | None = None
    args: LLMArgs = Field(
        default_factory=lambda: LLMArgs(), description="backend-specific: base_url, gguf_file, dtype, ..."
    )
    max_new_tokens: int = Field(default=512, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    seed: int = 0
    batch_size: int = Field(default=4, ge=1)
    max_retries: int = Field(default=2, ge=0)
    not_asked_for: list[Annotated[str, Field(pattern=r"^[a-z][a-z-]*$")]] = Field(
        default_factory=list,
        description="judge roles this LLM is not given unless a command names the scores that need "
        "them (ICAT's --variants s,a): a model known to be unfit for them is not run for minutes "
        "to have its scores withheld; another model (--judge-model) is asked again.  Names a family's "
        "judge role (checked before a family prepares: benchmark.families.base.prepare)",
    )
    price: Price | None = Field(default=None, exclude=True, description="for --dry-run's cost estimate")
    served_as: str | None = Field(
        default=None,
        exclude=True,
        description="the id a server lists for this model where that id is a local path (what requests "
        "carry); the recorded model is its name (benchmark.models.preflight.served_name), never the path",
    )


class EntailmentSpec(_Strict):
    """How CG decides that a passage supports a claim."""

    kind: Literal["nli", "llm", "embedding-similarity"]
    model: str | None = None  # nli: HF id or path; similarity: embedder (default: embedder.model)
    threshold: float = 0.5  # nli: P(entailment); similarity: cosine
    batch_size: int = Field(default=16, ge=1)
    max_length: int = Field(default=512, ge=8)
    # embedding-similarity only: windows of 1..windows sentences (0: the whole passage); with
    # guards, a window that disagrees with the claim on numbers or negation cannot support it
    windows: int = Field(default=2, ge=0, le=8)
    guards: bool = True


class EmbedderSpec(_Strict):
    model: str
    revision: str | None = None
    batch_size: int = 32
    normalize: bool = True
    query_prefix: str = ""
    passage_prefix: str = ""


#: the recall@10 an IVF index is tuned for unless a profile sets ``retriever.ivf_recall_target``
IVF_RECALL_TARGET = 0.95


class RetrieverSpec(_Strict):
    kind: Literal["bm25", "dense", "hybrid"] = "hybrid"
    k: int = Field(default=10, ge=1, description="passages retrieved per claim")
    chunk_words: int = Field(default=128, ge=1)
    chunk_overlap: int = Field(default=32, ge=0)
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    rrf_k: int = 60
    dense_index: Literal["auto", "flat", "ivf-hnsw"] = "auto"
    ivf_threshold: int = 50_000  # passages above which "auto" builds IVF with an HNSW quantizer
    ivf_recall_target: float = Field(
        default=IVF_RECALL_TARGET,
        gt=0,
        le=1,
        description="recall@10 against exact search that an IVF index's nprobe is chosen for, on "
        "real queries held out from the task's own; another value searches another number of lists, "
        "so changing it is a version bump",
    )
    candidate_docs: int | None = Field(
        default=None,
        ge=1,
        description="ground a query's claims only in passages of its BM25 top-N documents "
        "(the ICAT paper: 1000); null searches the whole corpus",
    )
    candidate_query: Literal["text", "text+description"] = Field(
        default="text",
        description="what the candidate search is given: the query text (the paper: the topic title) "
        "or the text and the task's description of the information need",
    )

    @model_serializer(mode="wrap")
    def _target_when_set(self, handler: Any) -> dict[str, Any]:
        """The recall target is recorded only when it is not the default, so profiles resolved
        before it was a setting (published results, run keys) stay equal to today's."""
        data = handler(self)
        if data.get("ivf_recall_target") == IVF_RECALL_TARGET:
            data.pop("ivf_recall_target")
        return data

    @model_validator(mode="after")
    def _chunking(self) -> RetrieverSpec:
        if self.chunk_overlap >= self.chunk_words:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_words ({self.chunk_words})"
            )
        return self


class ClaimsSpec(_Strict):
    """How ``AC(y)`` is formed; every claim dropped by these settings is counted in the trace."""

    extractor: Literal["llm", "sentences", "factscore", "wice", "chen", "russellian", "dependency"] = Field(
        default="llm",
        description="'llm' rewrites the answer into atomic facts (the paper); 'sentences' takes the "
        "answer's own sentences (offline substitute for models too small to rewrite); the others are "
        "claim decomposition methods (benchmark.judging.decomposition) applied sentence by sentence",
    )
    min_words: int = Field(default=1, ge=1, description="shorter candidates are not claims (counted)")
    max_claims: int | None = Field(default=None, ge=1, description="cost cap; null: no cap (counted)")


class JudgeProfile(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    version: str
    description: str
    offline: bool = Field(description="runs with no network, on models shipped by PyPI packages")
    limitations: list[str] = Field(default_factory=list, description="what this profile cannot judge well")
    llm: LLMSpec
    entailment: EntailmentSpec
    embedder: EmbedderSpec
    retriever: RetrieverSpec = Field(default_factory=RetrieverSpec)
    claims: ClaimsSpec = Field(default_factory=ClaimsSpec)
    prompts: dict[str, str] = Field(description="prompt name -> prompt file id (name@version)")
    not_as_in_paper: list[str] = Field(
        default_factory=list, description="where this profile departs from the papers it implements, and why"
    )

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and "claim_extractor" in raw:
            raise ValueError(
                "'claim_extractor' is now 'claims: {extractor: ...}' (with min_words and max_claims); "
                "update the profile and bump its version"
            )
        return raw

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def resolved(self) -> dict[str, Any]:
        """The full profile as recorded in results."""
        return self.model_dump(mode="json")


DEFAULT_PROFILE = "offline-smollm2-minilm-sim"


def list_profiles() -> list[str]:
    return sorted(p.stem for p in paths.PROFILES_DIR.glob("*.yaml"))


def load_profile(ref: str | Path | None = None, **overrides: Any) -> JudgeProfile:
    """Load a profile by name (shipped) or path; ``overrides`` replace top-level sections."""
    ref = ref or DEFAULT_PROFILE
    path = Path(ref)
    if not path.is_file():
        if path.suffix or os.sep in str(ref) or str(ref).startswith("."):
            raise InputError.at(rel(path), "judge profile file does not exist", field="--judge-profile")
        path = paths.PROFILES_DIR / f"{ref}.yaml"
        if not path.exists():
            raise InputError.at(
                str(ref),
                f"no such judge profile; shipped profiles: {list_profiles()} (or give a YAML file's path)",
                field="--judge-profile",
            )
    text = read_text(path, field="--judge-profile")
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError.at(
            rel(path), f"not valid YAML: {getattr(exc, 'problem', exc)}", line=mark.line + 1 if mark else None
        ) from exc
    if not isinstance(raw, dict):
        raise InputError.at(rel(path), "a judge profile must be a YAML mapping of sections")
    raw.update(overrides)
    try:
        return JudgeProfile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(field_problems(exc, rel(path), text)) from exc


#: environment variables that point a profile's LLM judge elsewhere without copying its YAML
JUDGE_URL_ENV = "GROUNDCOVER_JUDGE_URL"
JUDGE_MODEL_ENV = "GROUNDCOVER_JUDGE_MODEL"


def with_judge(profile: JudgeProfile, *, model: str | None = None, url: str | None = None) -> JudgeProfile:
    """``profile`` with its LLM judge served at ``url`` and/or named ``model`` (``--judge-url`` /
    ``--judge-model``, or the environment variables above).  A URL alone keeps the profile's id;
    another model is another judge, so the version gains ``+llm:<model>``."""
    model = model or os.environ.get(JUDGE_MODEL_ENV) or None
    url = url or os.environ.get(JUDGE_URL_ENV) or None
    if model is None and url is None:
        return profile
    llm = profile.llm
    if url is not None:
        urls = [u.strip().rstrip("/") for u in url.split(",") if u.strip()]
        bad = [u for u in urls if not u.startswith(("http://", "https://"))]
        if bad or not urls:
            raise usage_error(f"{(bad or [url])[0]!r} is not an http(s) URL", "--judge-url")
        from benchmark.core.secrets import secret_value

        # every result records the endpoint: a key in it would be published with them
        if leaks := [why for u in urls if (why := secret_value(u))]:
            raise usage_error(
                f"the judge URL holds {leaks[0]}; give the key in OPENAI_API_KEY instead (results record the URL)",
                "--judge-url",
            )
        served_backend = llm.backend in ("openai", "openai-batch")
        if not served_backend and model is None:
            raise usage_error(
                f"profile {profile.id} runs {llm.model} locally; name the model the server at {url} "
                "serves with --judge-model",
                "--judge-model",
            )
        args = llm.args.as_dict() if served_backend else {}  # a local backend's args mean nothing to a server
        served: str | list[str] = urls[0] if len(urls) == 1 else urls  # several: a fleet of one model
        backend = llm.backend if served_backend else "openai"  # a batch judge stays a batch judge
        llm = llm.model_copy(update={"backend": backend, "args": LLMArgs(**{**args, "base_url": served})})
    elif llm.backend in ("transformers", "ctranslate2"):
        raise usage_error(
            f"profile {profile.id} runs its judge locally; give --judge-url with --judge-model", "--judge-url"
        )
    version = profile.version
    if model is not None and model != profile.llm.model:
        name, revision, served_as = model, None, None
        if url is not None and llm.backend in ("openai", "openai-batch"):
            from benchmark.models.preflight import is_local_path, served_name

            if is_local_path(model):  # a llama.cpp server without --alias lists its file's path
                served_as = model
                name, revision = served_name(
                    urls[0], model, what="the judge LLM", hint="--judge-url and --judge-model"
                )
        llm = llm.model_copy(
            update={
                "model": name,
                "revision": revision,
                "price": None,
                "served_as": served_as,
                "not_asked_for": [],  # what the profile's model was unfit for, another may do
            }
        )
        version = f"{profile.version}+llm:{name}" + (f"@{revision}" if revision else "")
    return profile.model_copy(
        update={"llm": llm, "version": version, "offline": False if url else profile.offline}
    )
