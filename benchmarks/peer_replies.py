"""Replayed judge replies in the format each tool parses, so each completes its normal flow.

Why replay rather than a model: the cost asked of a judge is its requests and their prompt
tokens, which the tool decides before any reply is read; a replay that always parses keeps
every tool on its normal path (no repair turns, no give-ups) and takes no model time on a
shared 2-core machine.  The completion tokens counted are the replay's (the shortest reply
each format allows), so they are a floor, not what a real model would write.

The reply depends on the request only through what the format needs (how many nuggets,
statements or claims to label); the label itself comes from word overlap between the item
and the text it is judged against, so replies vary like a judge's would.  Each request is
recognised by its system prompt (or, for tools without one, its instruction text) and named
by the judgement it belongs to, e.g. ``nuggetizer/assign``.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from counting_server import text_of

WORD = re.compile(r"[a-z0-9]+")


def overlap(item: str, text: str) -> float:
    """Share of ``item``'s content words (over three letters) that occur in ``text``."""
    words = {w for w in WORD.findall(item.lower()) if len(w) > 3}
    return len(words & set(WORD.findall(text.lower()))) / len(words) if words else 0.0


def numbered(block: str) -> list[str]:
    """Items of a ``1. text`` numbered list."""
    return [m.group(1) for m in re.finditer(r"^\s*\d+[.)]\s*(.+)$", block, flags=re.M)]


def between(text: str, start: str, end: str | None = None) -> str:
    part = text.split(start, 1)[1] if start in text else ""
    return part.split(end, 1)[0] if end and end in part else part


# --- groundcover (prompts in benchmark/prompts/*.yaml; the last user turn is the item) ----


def groundcover(system: str, user: str) -> tuple[str, str] | None:
    if system.startswith("You check which facts a text states"):  # nugget-assign@1 and @2
        answer, facts = between(user, "Answer:\n", "\nFacts:"), numbered(between(user, "Facts:\n"))
        labels = [
            "support"
            if overlap(f, answer) >= 0.6
            else "partial_support"
            if overlap(f, answer) >= 0.3
            else "not_support"
            for f in facts
        ]
        return "groundcover/nugget-assign", "\n".join(f"{i}: {lab}" for i, lab in enumerate(labels, 1))
    if system.startswith("You check whether a sentence is backed"):  # citation-support@1
        cited, sentence = between(user, "Cited text:\n", "\nSentence:"), between(user, "Sentence: ", "\n")
        score = overlap(sentence, cited)
        return (
            "groundcover/citation-support",
            "full" if score >= 0.6 else "partial" if score >= 0.3 else "none",
        )
    if system.startswith("You check which questions a text answers"):  # subq-coverage@1
        text, questions = between(user, "Text:\n", "\nQuestions:"), numbered(between(user, "Questions:\n"))
        hit = [str(i) for i, q in enumerate(questions, 1) if overlap(q, text) >= 0.5]
        return "groundcover/subq-coverage", "Answered: " + (", ".join(hit) if hit else "none")
    if system.startswith("You answer exam questions"):  # exam-reader@1
        text = between(user, "Text:\n", "\nQuestion:")
        options = re.findall(r"^([A-J])\) (.+)$", user, flags=re.M)
        best = max(options, key=lambda o: overlap(o[1], text), default=None)
        letter = best[0] if best and overlap(best[1], text) >= 0.5 else "none"
        return "groundcover/exam-reader", f"Answer: {letter}"
    if system.startswith("You are an expert search analyst"):  # aspects@1
        query = between(user, "Query: ", "\n").strip()
        facets = ("definition", "causes", "costs", "risks", "alternatives")
        return "groundcover/aspects", "\n".join(f"- {facet} of {query}" for facet in facets)
    if "covered by a list of statements" in system:  # alignment@1
        aspects, claims = (
            numbered(between(user, "Aspects:\n", "\nStatements:")),
            numbered(between(user, "Statements:\n")),
        )
        lines = []
        for a, aspect in enumerate(aspects, 1):
            hit = [c for c, claim in enumerate(claims, 1) if overlap(aspect, claim) >= 0.5]
            if hit:
                lines.append(json.dumps({"aspect": a, "claims": hit}))
        return "groundcover/alignment", "\n".join(lines) or "NONE"
    return None


# --- nuggetizer 0.0.5 (nuggetizer/models/nuggetizer.py: a Python list of labels) ---------


def nuggetizer(system: str, user: str) -> tuple[str, str] | None:
    if not system.startswith("You are NuggetizeAssignerLLM"):
        return None
    passage = between(user, "Passage: ", "\nNugget List: ")
    nuggets = ast.literal_eval(between(user, "Nugget List: ", "\nOnly return").strip())
    labels = [
        "support"
        if overlap(n, passage) >= 0.6
        else "partial_support"
        if overlap(n, passage) >= 0.3
        else "not_support"
        for n in nuggets
    ]
    return "nuggetizer/assign", repr(labels)


# --- ragas 0.4.3 (ragas/metrics/_faithfulness.py, _context_recall.py: PydanticPrompt JSON) --


def last_json_input(user: str) -> dict[str, Any]:
    """The item of a ragas PydanticPrompt (``PydanticPrompt.to_string``): the JSON after
    "Now perform the same with the following input", up to the closing ``Output:``."""
    tail = user.rsplit("following input\ninput: ", 1)[1]
    return json.loads(tail.rsplit("Output:", 1)[0])


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 3]


def ragas(system: str, user: str) -> tuple[str, str] | None:
    text = system + "\n" + user
    if "Given a question and an answer, analyze the complexity of each sentence" in text:
        item = last_json_input(user)
        return "ragas/faithfulness:statements", json.dumps({"statements": sentences(item["answer"])})
    if "judge the faithfulness of a series of statements based on a given context" in text:
        item = last_json_input(user)
        context = item["context"]
        verdicts = [
            {
                "statement": s,
                "reason": "word overlap with the context",
                "verdict": int(overlap(s, context) >= 0.6),
            }
            for s in item["statements"]
        ]
        return "ragas/faithfulness:verdicts", json.dumps({"statements": verdicts})
    if "Given a context, and an answer, analyze each sentence in the answer" in text:
        item = last_json_input(user)
        context = item["context"]
        rows = [
            {
                "statement": s,
                "reason": "word overlap with the context",
                "attributed": int(overlap(s, context) >= 0.6),
            }
            for s in sentences(item["answer"]) or [item["answer"]]
        ]
        return "ragas/context_recall", json.dumps({"classifications": rows})
    return None


# --- RAGChecker 0.1.9 / refchecker 0.2.x (triplet extraction, joint checking) -----------


def ragchecker(system: str, user: str) -> tuple[str, str] | None:
    if "please extract a KG from the candidate answer" in user:  # LLM_TRIPLET_EXTRACTION_PROMPT_Q
        answer = between(user.rsplit("### Candidate Answer:", 1)[-1], "\n", "### KG:")
        triplets = []
        for s in sentences(answer):
            words = s.replace('"', "'").split()
            triplets.append(json.dumps([" ".join(words[:2]), "states", " ".join(words[2:12])])[1:-1])
        return "ragchecker/extract", "\n".join(f"({t})" for t in triplets)
    if user.startswith("I have a list of claims that made by a language model"):  # JOINT_CHECKING_PROMPT_Q
        reference = between(user, "### Reference:\n", "\n### Claims:")
        claims = [
            c for c in between(user, "### Claims:\n", "\nYour answer").splitlines() if c.startswith("(")
        ]
        labels = ["Entailment" if overlap(c, reference) >= 0.6 else "Neutral" for c in claims]
        return "ragchecker/check", "\n".join(labels)
    return None


TOOLS = (groundcover, nuggetizer, ragas, ragchecker)


def respond(messages: list[dict[str, Any]]) -> tuple[str, str]:
    """(judgement, reply) for one chat request; an unknown request is counted as such and
    answered with an empty reply (so a format this replay does not know shows in the table)."""
    system = next((text_of(m.get("content")) for m in messages if m.get("role") == "system"), "")
    user = "\n".join(text_of(m.get("content")) for m in messages if m.get("role") != "system")
    last = next((text_of(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), user)
    for tool in TOOLS:
        got = tool(system, last if tool is groundcover else user)
        if got is not None:
            return got
    return "unrecognised", ""
