"""What a scoring run scores against: the judge, the families, the knowledge.  The fields of
:class:`ScoringConfig` are the library's keywords and, generated from them, the command line's flags.
"""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from benchmark.core.settings import option
from benchmark.families.base import ScoringInputs
from benchmark.models.profiles import (
    DEFAULT_PROFILE,
    JUDGE_MODEL_ENV,
    JUDGE_URL_ENV,
    JudgeProfile,
    list_profiles,
    load_profile,
    with_judge,
)
from benchmark.scoring.options import Options


class ScoringConfig(Options):
    """The judge profile (and where its LLM is served), the metric families, the corpus and files."""

    judge_profile: str | JudgeProfile = option(
        DEFAULT_PROFILE, f"judge profile name or YAML path (shipped: {', '.join(list_profiles())})"
    )
    judge_url: str | None = option(
        None,
        f"serve the profile's LLM judge from this OpenAI-compatible endpoint, e.g. http://127.0.0.1:8001/v1 "
        f"(or ${JUDGE_URL_ENV}); several, comma-separated, are a fleet of one model (requests spread by least "
        "outstanding, retries move to another server); the profile stays the same judge",
    )
    judge_model: str | None = option(
        None,
        f"the LLM judge's model name at that endpoint (or ${JUDGE_MODEL_ENV}); another model is another "
        "judge: results carry the profile version +llm:<model> and get boards of their own",
    )
    metrics: tuple[str, ...] | None = option(
        None,
        "metric families by id, comma-separated: any registered family whose tables the task has (each "
        "family's options below name its id; none given: the task card's list)",
    )
    corpus: str | None = option(
        None,
        "your own knowledge corpus: .jsonl(.gz) or .parquet with doc_id and text (MS MARCO v2.1 "
        "segment files as they are), or irds:<ir_datasets id> for looking up cited documents",
    )
    lucene_index: str | None = option(
        None, "an existing Lucene index dir, or prebuilt:<name> (pyserini, needs internet)"
    )
    #: the families' own input files by :class:`~benchmark.families.base.InputFile` name
    #: (their flags, e.g. ``--nuggets``, are declared by the families)
    files: dict[str, str] = option({}, "the families' input files, by name", cli=False)

    @field_validator("metrics", mode="before")
    @classmethod
    def _some(cls, value: Any) -> tuple[str, ...] | None:
        if value is None:
            return None
        items = value.split(",") if isinstance(value, str) else list(value)
        ids = tuple(str(m).strip() for m in items if str(m).strip())
        if not ids:
            raise ValueError("name at least one metric family")
        return ids

    @field_validator("judge_profile", mode="before")
    @classmethod
    def _profile_ref(cls, value: Any) -> Any:
        return str(value) if not isinstance(value, str | JudgeProfile) and value is not None else value

    def profile(self) -> JudgeProfile:
        """The judge profile, with ``judge_url`` / ``judge_model`` (or their variables) applied."""
        base = self.judge_profile
        if not isinstance(base, JudgeProfile):
            base = load_profile(base)
        return with_judge(base, model=self.judge_model, url=self.judge_url)

    def requested(self) -> list[str] | None:
        """The families asked for (``None``: the task card's list)."""
        return list(self.metrics) if self.metrics is not None else None

    def inputs(self, evidence: dict[str, list[str]] | None = None) -> ScoringInputs:
        return ScoringInputs(
            corpus=self.corpus, lucene_index=self.lucene_index, files=dict(self.files), evidence=evidence
        )
