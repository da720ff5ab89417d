"""Entailment: does a passage support a claim?  One interface, three implementations.

* :class:`NLIEntailment` — a transformers NLI model (the ICAT paper uses
  ``MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli``); support = P(entailment).
* :class:`LLMEntailment` — the judge LLM answers yes/no (prompt ``entailment@1``).
* :class:`SimilarityEntailment` — the *offline substitute*, not NLI: some window of 1 to
  ``entailment.windows`` sentences of the passage is very close to the claim (cosine of
  sentence embeddings) and, with ``entailment.guards``, agrees with it on numbers and
  negation.  ``benchmark judge-card`` measures what it is worth.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from benchmark.core.text import sentences
from benchmark.models import local_models
from benchmark.models.cache import ModelCallCache, default_cache
from benchmark.models.profiles import EmbedderSpec, EntailmentSpec

if TYPE_CHECKING:
    from benchmark.models.embeddings import EmbeddingStore


class EntailmentModel(Protocol):
    identity: str
    threshold: float

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]: ...


def entailment_label_index(id2label: dict[int, str] | dict[str, str]) -> int:
    """Index of the entailment class in a model's ``config.id2label``."""
    for idx, label in id2label.items():
        if str(label).lower().startswith("entail"):
            return int(idx)
    raise ValueError(f"the model's labels {dict(id2label)} have no entailment class; is it an NLI model?")


class NLIEntailment:
    def __init__(self, spec: EntailmentSpec, cache: ModelCallCache | None = None) -> None:
        if not spec.model:
            raise ValueError("entailment kind 'nli' needs a model")
        self.spec = spec
        self.threshold = spec.threshold
        self.cache = cache if cache is not None else default_cache()
        self.identity = f"nli:{local_models.hub_id(spec.model)}:max{spec.max_length}"
        self._model: Any = None
        self._tok: Any = None
        self._entail: int | None = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        path, _ = local_models.resolve(self.spec.model)
        self._tok = AutoTokenizer.from_pretrained(path)
        self._model = AutoModelForSequenceClassification.from_pretrained(path).eval()
        if torch.cuda.is_available():
            self._model.to("cuda")
        self._entail = entailment_label_index(self._model.config.id2label)

    def _tokenize(self, batch: list[dict[str, str]], padding: bool) -> Any:
        return self._tok(
            [p["premise"] for p in batch],
            [p["hypothesis"] for p in batch],
            truncation="only_first",
            max_length=self.spec.max_length,
            padding=padding,
            return_tensors="pt" if padding else None,
        )

    def _score(self, batch: list[dict[str, str]]) -> list[float]:
        """P(entailment) per pair, the score it gets alone whatever it is batched with: on CPU
        each pair runs alone on one torch thread, because MKL sums a row of the head's product in
        another order for 1, 2–3 and 4+ rows (batching by length saved only 1% of CPU)."""
        import torch

        from benchmark.models.embeddings import by_length, invariant_kernels

        self._load()
        device = self._model.device
        if device.type == "cpu":
            chunks = [[i] for i in range(len(batch))]
        else:
            lengths = [len(ids) for ids in self._tokenize(batch, padding=False)["input_ids"]]
            step = self.spec.batch_size
            chunks = [rows[s : s + step] for rows in by_length(lengths) for s in range(0, len(rows), step)]
        out = [0.0] * len(batch)
        with invariant_kernels(device), torch.inference_mode():
            for chunk in chunks:
                enc = self._tokenize([batch[i] for i in chunk], padding=True).to(device)
                probs = torch.softmax(self._model(**enc).logits.float(), dim=-1)[:, self._entail]
                for i, p in zip(chunk, probs.cpu().tolist(), strict=True):
                    out[i] = float(p)
        return out

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        payloads = [{"premise": p, "hypothesis": h} for p, h in pairs]
        # up to 8 model batches per call, so that pairs of equal length can fill them (_score)
        return self.cache.cached_batch(
            "entail", self.identity, payloads, self._score, batch_size=self.spec.batch_size * 8
        )


_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|cannot|can't|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|won't|without|neither|nor)\b",
    re.IGNORECASE,
)


def sentence_windows(passage: str, max_sentences: int = 2) -> list[str]:
    """Windows of 1..``max_sentences`` consecutive sentences of a passage."""
    sents = sentences(passage)
    windows = []
    for size in range(1, max_sentences + 1):
        windows.extend(" ".join(sents[i : i + size]) for i in range(len(sents) - size + 1))
    return windows or [passage]


def guard_conflict(claim: str, window: str) -> bool:
    """True when a claim's numbers are not all in the window, or one of the two is negated and
    the other not: the commonest ways a near-duplicate sentence says the opposite."""
    claim_numbers = {n.replace(",", "") for n in _NUMBER.findall(claim)}
    window_numbers = {n.replace(",", "") for n in _NUMBER.findall(window)}
    if claim_numbers - window_numbers:
        return True
    return bool(_NEGATION.search(claim)) != bool(_NEGATION.search(window))


class SimilarityEntailment:
    def __init__(
        self,
        spec: EntailmentSpec,
        embedder_model: str | None,
        cache: ModelCallCache | None = None,
        store: EmbeddingStore | None = None,
    ) -> None:
        from benchmark.models.embeddings import Embedder

        if not (model := spec.model or embedder_model):
            raise ValueError("entailment kind 'embedding-similarity' needs an embedding model")
        self.spec = spec
        self.threshold = spec.threshold
        self.cache = cache if cache is not None else default_cache()
        self.embedder = Embedder(EmbedderSpec(model=model, batch_size=spec.batch_size), self.cache, store)
        self.windows, self.guards = spec.windows, spec.guards
        shape = f"windows{spec.windows}-pysbd" if spec.windows else "whole"
        self.identity = f"sim:{self.embedder.identity}:{shape}:guards{int(spec.guards)}"

    def _score(self, batch: list[dict[str, str]]) -> list[float]:
        windows = [
            sentence_windows(p["premise"], self.windows) if self.windows else [p["premise"]] for p in batch
        ]
        flat = [w for ws in windows for w in ws]
        texts = list(dict.fromkeys(flat + [p["hypothesis"] for p in batch]))
        vecs = self.embedder.encode(texts, kind="query")
        row = {t: vecs[i] for i, t in enumerate(texts)}
        scores = []
        for p, ws in zip(batch, windows, strict=True):
            claim_vec = row[p["hypothesis"]]
            # only windows that agree with the claim on numbers and negation can support it
            sims = [
                float(row[w] @ claim_vec)
                for w in ws
                if not (self.guards and guard_conflict(p["hypothesis"], w))
            ]
            scores.append(max(0.0, max(sims, default=0.0)))
        return scores

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        payloads = [{"premise": p, "hypothesis": h} for p, h in pairs]
        return self.cache.cached_batch("entail", self.identity, payloads, self._score, batch_size=256)


def parse_yes_no(text: str) -> float:
    """1.0 for yes, 0.0 for no; ``ValueError`` for anything else."""
    words = re.findall(r"[a-z]+", text.lower())
    if words and words[0] in ("yes", "no"):
        return 1.0 if words[0] == "yes" else 0.0
    raise ValueError('answer with exactly one word: "yes" or "no"')


class LLMEntailment:
    def __init__(self, spec: EntailmentSpec, llm: Any, prompt_ref: str = "entailment@1") -> None:
        if llm is None:
            raise ValueError("entailment kind 'llm' needs the judge LLM")
        self.spec = spec
        self.llm = llm
        self.prompt_ref = prompt_ref
        self.threshold = 0.5
        self.identity = f"llm:{llm.identity}:{prompt_ref}"
        self.failures: list[str] = []

    def support_scores(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        from benchmark.models.prompts import load_prompt
        from benchmark.models.structured import run_structured

        prompt = load_prompt(self.prompt_ref)
        msgs = [prompt.render(passage=p, claim=h) for p, h in pairs]
        outs = run_structured(self.llm, msgs, parse_yes_no, max_retries=1, max_new_tokens=4)
        self.failures += [f"{o.error}: {o.raw[-1][:80] if o.raw else ''}" for o in outs if not o.ok]
        return [o.value if o.ok else None for o in outs]


def load_entailment(
    spec: EntailmentSpec,
    *,
    embedder_model: str | None = None,
    llm: Any = None,
    cache: ModelCallCache | None = None,
    store: EmbeddingStore | None = None,
) -> Any:
    """The judge ``spec`` names; ``store``: the run's shared sentence vectors (similarity judge)."""
    if spec.kind == "nli":
        return NLIEntailment(spec, cache)
    if spec.kind == "llm":
        return LLMEntailment(spec, llm)
    return SimilarityEntailment(spec, embedder_model, cache, store)
