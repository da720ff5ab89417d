"""The judge stack: the loaded models of one judge profile, shared by every family and task.

Retrievers open lazily, one per (corpus, retriever kind): building an index is the slowest
step.  Tests build a stack from fakes (``tests/helpers/fakes.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchmark.models.backends import load_llm
from benchmark.models.cache import ModelCallCache, default_cache
from benchmark.models.embeddings import Embedder, EmbeddingStore
from benchmark.models.entailment import EntailmentModel, load_entailment
from benchmark.models.llm import LLM
from benchmark.models.profiles import JudgeProfile, RetrieverSpec
from benchmark.retrieval import CorpusRef, Retriever

if TYPE_CHECKING:
    from benchmark.judging.decomposition import Decomposer
    from benchmark.tasks import Task

RetrieverFactory = Callable[[CorpusRef, "Task", RetrieverSpec], Retriever]


@dataclass
class JudgeStack:
    profile: JudgeProfile
    llm: LLM
    entailment: EntailmentModel
    cache: ModelCallCache
    retriever_factory: RetrieverFactory | None = None
    progress: bool = True
    #: every query-side vector this run computed, shared by all families (see
    #: :class:`~benchmark.models.embeddings.EmbeddingStore`: it changes no number)
    embeddings: EmbeddingStore | None = field(default_factory=EmbeddingStore)
    _retrievers: dict[tuple[str, str], Retriever] = field(default_factory=dict, repr=False)

    @classmethod
    def load(
        cls,
        profile: JudgeProfile,
        cache: ModelCallCache | None = None,
        *,
        progress: bool = True,
        preflight: bool = True,
        share_embeddings: bool = False,
    ) -> JudgeStack:
        """The models a profile names; weights load lazily, on the first uncached call.

        A served judge is asked now whether it is there (:func:`preflight_judge`), unless
        ``preflight=False`` (a dry run plans only).  ``share_embeddings=True`` shares one
        :class:`EmbeddingStore`: the same numbers, no CPU saved where the model-call cache is on
        (``benchmarks/answer_cpu.py``), and a dry run's exact request counts would no longer match."""
        cache = cache or default_cache()
        llm = load_llm(profile.llm, cache=cache)
        if preflight:
            preflight_judge(profile, llm)
        store = EmbeddingStore() if share_embeddings else None
        entailment = load_entailment(
            profile.entailment, embedder_model=profile.embedder.model, llm=llm, cache=cache, store=store
        )
        return cls(
            profile=profile, llm=llm, entailment=entailment, cache=cache, progress=progress, embeddings=store
        )

    def embedder(self) -> Embedder:
        """The profile's embedder, its query-side vectors shared with every family of the run."""
        return Embedder(self.profile.embedder, cache=self.cache, store=self.embeddings)

    def retriever(self, corpus: CorpusRef, task: Task, kind: str | None = None) -> Retriever:
        """A retriever over ``corpus`` of the profile's kind (or ``kind``), built once per run."""
        spec = (
            self.profile.retriever
            if kind is None
            else self.profile.retriever.model_copy(update={"kind": kind})
        )
        key = (corpus.key + f"|{task.id if corpus.kind == 'table' else ''}", spec.kind)
        if key not in self._retrievers:
            if self.retriever_factory is not None:
                self._retrievers[key] = self.retriever_factory(corpus, task, spec)
            else:
                from benchmark.retrieval import open_retriever
                from benchmark.retrieval.cached import CachedRetriever

                self._retrievers[key] = CachedRetriever(
                    open_retriever(
                        corpus, task, spec, self.profile.embedder, cache=self.cache, progress=self.progress
                    ),
                    self.cache,
                )
        return self._retrievers[key]

    def decomposer(self, method: str, **settings: Any) -> Decomposer:
        """A decomposition method run by this stack: its LLM for the prompted methods, its
        embedder (loaded on first use) to retrieve in-context examples, the profile's retries."""
        from benchmark.judging.decomposition import LLM_METHODS, Decomposer

        return Decomposer(
            method,
            llm=self.llm if method in LLM_METHODS else None,
            embed=self.embedder().encode,
            max_retries=self.profile.llm.max_retries,
            **settings,
        )


def preflight_judge(profile: JudgeProfile, llm: LLM | None = None) -> None:
    """Ask the profile's served LLM judge, once, whether it is there and serves its model;
    ``llm``: the loaded judge (a fleet drops its dead servers), else a throwaway client."""
    if llm is None:
        if profile.llm.backend not in ("openai", "openai-batch", "vllm-batch"):
            return
        llm = load_llm(profile.llm, cache=ModelCallCache(enabled=False))
    check = getattr(llm, "preflight", None)
    if check is not None:
        check(what="the judge LLM", hint=f"--judge-url, or llm.args.base_url of judge profile {profile.id}")
