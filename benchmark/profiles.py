"""Judge profiles: named, versioned configurations of every model a score depends on.

A score is only meaningful together with the judges that produced it: the LLM that
extracted claims and aligned them to aspects, the entailment model, the embedder and
retriever, ``k``, the chunking and the prompt versions.  A profile names all of them;
the *resolved* profile is written into every result file, and the leaderboard only
ranks results that share a profile name and version.

Profiles are data (``benchmark/profiles/*.yaml``); users add their own with
``--judge-profile path/to/profile.yaml``.  Changing anything that can change a
score means bumping the profile's ``version``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark import paths
from benchmark.errors import InputError, Problem, rel


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LLMSpec(_Strict):
    """An LLM judge: which backend and which model (see :mod:`benchmark.judges`)."""

    backend: Literal["transformers", "openai", "vllm"] = "transformers"
    model: str
    revision: str | None = None
    args: dict[str, Any] = Field(
        default_factory=dict, description="backend-specific: base_url, gguf_file, dtype, ..."
    )
    max_new_tokens: int = 512
    temperature: float = 0.0
    seed: int = 0
    batch_size: int = 4
    max_retries: int = 2


class EntailmentSpec(_Strict):
    """How CG decides that a passage supports a claim."""

    kind: Literal["nli", "llm", "embedding-similarity"]
    model: str | None = (
        None  # nli: HF id or path; embedding-similarity: embedder (defaults to embedder.model)
    )
    threshold: float = 0.5  # nli: P(entailment); similarity: cosine
    batch_size: int = 16
    max_length: int = 512


class EmbedderSpec(_Strict):
    model: str
    revision: str | None = None
    batch_size: int = 32
    normalize: bool = True
    query_prefix: str = ""
    passage_prefix: str = ""


class RetrieverSpec(_Strict):
    kind: Literal["bm25", "dense", "hybrid"] = "hybrid"
    k: int = 10
    chunk_words: int = 128
    chunk_overlap: int = 32
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    rrf_k: int = 60
    dense_index: Literal["auto", "flat", "ivf-hnsw"] = "auto"
    ivf_threshold: int = 50_000  # passages above which "auto" builds IVF with an HNSW quantizer


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
    claim_extractor: Literal["llm", "sentences"] = Field(
        default="llm",
        description="AC(y): 'llm' rewrites the answer into atomic facts (the paper); 'sentences' "
        "takes the answer's own sentences (offline substitute for models too small to rewrite)",
    )
    prompts: dict[str, str] = Field(description="prompt name -> prompt file id (name@version)")

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
    if not path.suffix:
        path = paths.PROFILES_DIR / f"{ref}.yaml"
        if not path.exists():
            raise InputError(Problem(str(ref), f"no such judge profile; shipped profiles: {list_profiles()}"))
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        raw.update(overrides)
        return JudgeProfile.model_validate(raw)
    except FileNotFoundError as exc:
        raise InputError(Problem(rel(path), "judge profile file does not exist")) from exc
    except ValidationError as exc:
        raise InputError(
            [Problem(rel(path), e["msg"], field=".".join(str(x) for x in e["loc"])) for e in exc.errors()]
        ) from exc
