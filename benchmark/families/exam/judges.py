"""Question answerers behind one interface: read a text, answer an exam question.

Entailment (options as assertions over the text's sentence windows), the judge LLM
(``exam-reader``; free text: ``exam-rate`` and ``exam-verify``, as EXAM++) and embedding
similarity (free text only: whether the text addresses the question).  Every model call is
batched; an unusable reply is a failure of its question, never an abstention.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from benchmark.families.exam import formulas
from benchmark.families.exam.bank import ExamQuestion
from benchmark.judging.similarity import closest_windows
from benchmark.models.cache import stage
from benchmark.models.entailment import EntailmentModel, parse_yes_no, sentence_windows
from benchmark.models.example_copies import refusing_label_copies, request_text
from benchmark.models.llm import LLM
from benchmark.models.prompts import load_prompt
from benchmark.models.structured import run_structured

if TYPE_CHECKING:
    from benchmark.families.exam.family import ExamSettings
    from benchmark.judging.stack import JudgeStack

PROMPTS = {"reader": "exam-reader@1", "rate": "exam-rate@1", "verify": "exam-verify@1"}
#: prompts whose examples' whole replies are copies however short: the answerability
#: rating's "Rating: 0 / Answer: -" (a multiple-choice "Answer: B" stays a plain label)
LABEL_COPIES = frozenset({"rate"})
LETTERS = "ABCDEFGHIJ"


@dataclass
class Reading:
    """What an answerer made of one question, read from one text."""

    correct: bool | None = None
    answered: bool | None = None
    choice: str | None = None  # the option chosen (multiple choice), or the answer given (free text)
    evidence: str | None = None  # the sentence window that supports the choice
    support: list[float] = field(default_factory=list)  # per option (entailment answerer)
    rating: int | None = None  # answerability self-rating 0-5 (free text, LLM answerer)
    error: str | None = None
    raw: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> formulas.Verdict:
        return formulas.Verdict(correct=self.correct, answered=self.answered)


class Answerer(Protocol):
    name: str

    @property
    def identity(self) -> dict[str, Any]: ...

    def read(self, items: Sequence[tuple[ExamQuestion, str]]) -> list[Reading]: ...


def assertion(question: str, option: str) -> str:
    """The statement an option makes when it answers the question."""
    return f"{question.strip()} {option.strip()}"


def windows(text: str) -> list[str]:
    """The premises a text offers: windows of up to two consecutive sentences."""
    return sentence_windows(text) if text.strip() else []


class EntailmentAnswerer:
    name = "entailment"

    def __init__(self, entailment: EntailmentModel, threshold: float, margin: float = 0.0) -> None:
        self.entailment = entailment
        self.threshold = threshold
        self.margin = margin

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "answerer": self.name,
            "entailment": getattr(self.entailment, "identity", type(self.entailment).__name__),
            "threshold": self.threshold,
            "margin": self.margin,
        }

    def read(self, items: Sequence[tuple[ExamQuestion, str]]) -> list[Reading]:
        plans: list[tuple[list[str], list[str]]] = []  # per item: its windows, its assertions
        pairs: list[tuple[str, str]] = []
        readings = [Reading() for _ in items]
        for (q, text), r in zip(items, readings, strict=True):
            if q.kind == "multiple-choice":
                claims = [assertion(q.question, o) for o in q.options]
            elif q.answer:
                claims = [assertion(q.question, q.answer)]
            else:
                claims = []
                r.error = (
                    "a free-text question without an answer key needs the LLM or the similarity answerer "
                    "(--exam-answerer llm | similarity)"
                )
            ws = windows(text) if claims else []
            plans.append((ws, claims))
            pairs += [(w, c) for c in claims for w in ws]
        scores = iter(self.entailment.support_scores(pairs) if pairs else [])
        for (q, _), r, (ws, claims) in zip(items, readings, plans, strict=True):
            if r.error:
                continue
            # per claim, its best window (an empty text supports nothing: every option at 0)
            best: list[tuple[float | None, str | None]] = []
            for _c in claims:
                got = [(next(scores), w) for w in ws]
                if any(s is None for s, _ in got):
                    best.append((None, None))
                else:
                    best.append(max(got, key=lambda g: g[0], default=(0.0, None)))  # type: ignore[arg-type]
            if any(s is None for s, _ in best):
                r.error = "entailment: a support score could not be computed"
                continue
            r.support = [round(float(s), 4) for s, _ in best]  # type: ignore[arg-type]
            if q.kind == "multiple-choice":
                pick = formulas.choose_option([s for s, _ in best], self.threshold, self.margin)
                r.answered = pick is not None
                r.choice = None if pick is None else q.options[pick]
                r.evidence = None if pick is None else best[pick][1]
                r.correct = pick is not None and pick == q.key_index
            else:
                supported = bool(best[0][0] >= self.threshold)  # type: ignore[operator]
                r.answered = r.correct = supported
                r.choice = q.answer if supported else None
                r.evidence = best[0][1] if supported else None
        return readings


class SimilarityAnswerer:
    name = "similarity"

    def __init__(self, embedder: Any, threshold: float) -> None:
        self.embedder = embedder
        self.threshold = threshold

    @property
    def identity(self) -> dict[str, Any]:
        return {"answerer": self.name, "embedder": self.embedder.identity, "threshold": self.threshold}

    def read(self, items: Sequence[tuple[ExamQuestion, str]]) -> list[Reading]:
        """A free-text question is answered (and, having no way to check a key, counted
        correct — EXAM++'s answerability counting) when its closest window reaches the
        threshold; a multiple-choice question is a failure: choosing among options needs a
        reader (the entailment or LLM answerer)."""
        readings = [Reading() for _ in items]
        free = []
        for i, (q, _) in enumerate(items):
            if q.kind == "multiple-choice":
                readings[i].error = (
                    "a multiple-choice question needs the entailment or the LLM answerer "
                    "(--exam-answerer entailment | llm)"
                )
            else:
                free.append(i)
        best = closest_windows(self.embedder, [(windows(items[i][1]), [items[i][0].question]) for i in free])
        for i, [(score, window)] in zip(free, best, strict=True):
            r = readings[i]
            r.support = [round(score, 4)]
            r.answered = r.correct = score >= self.threshold
            r.evidence = window if r.answered else None
        return readings


# -- the LLM answerer -------------------------------------------------------------------


def parse_choice(text: str, options: Sequence[str]) -> int | None:
    """``Answer: B`` -> 1; ``Answer: none`` -> None; small models' echoes of the option list
    are read when unambiguous: ``B) Uranus`` -> 1 (label and text must agree), ``Uranus``
    -> 1; ``ValueError`` for anything else, including a label whose text is another option's."""
    n = len(options)
    reply = text.strip()
    norm = lambda t: " ".join(t.lower().strip(" .").split())  # noqa: E731
    m = re.search(r"answer\s*[:\-]?\s*\(?([A-Za-z]+)\)?", reply, flags=re.IGNORECASE)
    label = re.match(r"\(?([A-Ja-j])\)\s*(.*)", reply, flags=re.S)
    if m:
        token = m.group(1)
    elif label:
        token, rest = label.group(1), norm(label.group(2).splitlines()[0] if label.group(2) else "")
        k = LETTERS.find(token.upper())
        if rest and k < n and not norm(options[k]).startswith(rest[:30]):
            raise ValueError(f'the letter {token.upper()} and the text "{rest[:40]}" name different options')
    elif norm(reply) in [norm(o) for o in options]:
        return [norm(o) for o in options].index(norm(reply))
    else:
        token = reply.strip(".()")
    if token.lower() in ("none", "unanswerable", "no"):
        return None
    if len(token) == 1 and token.upper() in LETTERS[:n]:
        return LETTERS.index(token.upper())
    raise ValueError(f'reply "Answer: " with one of {", ".join(LETTERS[:n])} or "none"')


def parse_rating(text: str) -> tuple[int, str]:
    """``Rating: 4`` / ``Answer: ...`` -> (4, '...'); ``ValueError`` for anything else."""
    m = re.search(r"rating\s*[:=]\s*(\d+)", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError('the first line must be "Rating: " and a whole number from 0 to 5')
    rating = int(m.group(1))
    if rating not in formulas.RATING_SCALE:
        raise ValueError(f"the rating {rating} is outside 0-5")
    a = re.search(r"answer\s*[:=]\s*(.*)", text, flags=re.IGNORECASE)
    answer = a.group(1).strip() if a else ""
    return rating, "" if answer in ("-", "none", "None") else answer


class LLMAnswerer:
    name = "llm"

    def __init__(
        self, llm: LLM, *, min_rating: int = formulas.DEFAULT_MIN_RATING, max_retries: int = 2
    ) -> None:
        self.llm = llm
        self.min_rating = min_rating
        self.max_retries = max_retries

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "answerer": self.name,
            "llm": getattr(self.llm, "identity", type(self.llm).__name__),
            "prompts": {k: load_prompt(v).id + ":" + load_prompt(v).sha256[:12] for k, v in PROMPTS.items()},
            "min_rating": self.min_rating,
        }

    def _ask(self, name: str, messages: list[Any], parsers: Any) -> list[Any]:
        prompt = load_prompt(PROMPTS[name])
        if name in LABEL_COPIES:
            outputs = [out for _, out in prompt.examples]
            parse_each = parsers if isinstance(parsers, list) else [parsers] * len(messages)
            parsers = [
                refusing_label_copies(p, outputs, request_text(m))
                for p, m in zip(parse_each, messages, strict=True)
            ]
        with stage(name):
            return run_structured(
                self.llm, messages, parsers, max_retries=self.max_retries,
                max_new_tokens=int(prompt.meta.get("max_new_tokens", 32)),
            )  # fmt: skip

    def read(self, items: Sequence[tuple[ExamQuestion, str]]) -> list[Reading]:
        readings = [Reading() for _ in items]
        mc = [i for i, (q, _) in enumerate(items) if q.kind == "multiple-choice"]
        ft = [i for i, (q, _) in enumerate(items) if q.kind == "free-text"]
        reader = load_prompt(PROMPTS["reader"])
        outs = self._ask(
            "reader",
            [
                reader.render(
                    text=items[i][1] or "(empty)",
                    question=items[i][0].question,
                    options="\n".join(f"{LETTERS[k]}) {o}" for k, o in enumerate(items[i][0].options)),
                )
                for i in mc
            ],
            [partial(parse_choice, options=items[i][0].options) for i in mc],
        ) if mc else []  # fmt: skip
        for i, out in zip(mc, outs, strict=True):
            q, r = items[i][0], readings[i]
            r.raw = out.raw
            if not out.ok:
                r.error = f"reader: {out.error}"
                continue
            r.answered = out.value is not None
            r.choice = None if out.value is None else q.options[out.value]
            r.correct = out.value is not None and out.value == q.key_index
        rate = load_prompt(PROMPTS["rate"])
        outs = self._ask(
            "rate", [rate.render(text=items[i][1] or "(empty)", question=items[i][0].question) for i in ft], parse_rating
        ) if ft else []  # fmt: skip
        to_verify = []
        for i, out in zip(ft, outs, strict=True):
            q, r = items[i][0], readings[i]
            r.raw = out.raw
            if not out.ok:
                r.error = f"rating: {out.error}"
                continue
            r.rating, r.choice = out.value
            r.answered = formulas.rated_answerable(r.rating, self.min_rating)
            if r.answered and q.answer:
                to_verify.append(i)
            else:
                r.correct = bool(r.answered)  # no key: answerability alone, as in EXAM++
        verify = load_prompt(PROMPTS["verify"])
        outs = self._ask(
            "verify",
            [verify.render(question=items[i][0].question, key=items[i][0].answer, candidate=readings[i].choice or "-") for i in to_verify],
            parse_yes_no,
        ) if to_verify else []  # fmt: skip
        for i, out in zip(to_verify, outs, strict=True):
            r = readings[i]
            r.raw = r.raw + out.raw
            if not out.ok:
                r.error = f"verification: {out.error}"
                continue
            r.correct = bool(out.value)
        return readings


def answerer(judges: JudgeStack, settings: ExamSettings) -> Answerer:
    """The answerer the settings name, on the profile's models."""
    if settings.answerer == "llm":
        return LLMAnswerer(
            judges.llm, min_rating=settings.min_rating, max_retries=judges.profile.llm.max_retries
        )
    if settings.answerer == "similarity":
        return SimilarityAnswerer(judges.embedder(), settings.threshold)
    return EntailmentAnswerer(judges.entailment, settings.threshold, settings.margin)
