"""A scripted argument judge: replies by prompt, with every score known by hand.

Shared by the unit tests (through :class:`~tests.helpers.fakes.FakeLLM`) and the
integration test that serves it over a real OpenAI-compatible HTTP server.
"""

from __future__ import annotations

import json
import re

from benchmark.families.arguments import formulas as F
from benchmark.families.arguments import judges as J

CRITERIA = [
    "direct_relevance",
    "breadth_of_coverage",
    "quality_of_evidence",
    "applicability_to_argumentation",
    "consistency_with_topic_relevance",
    "noise_and_unrelated_content",
]


def scripted(msgs: list[dict[str, str]]) -> str:
    """Replies by prompt; the Listwise judge rates overall 3, 2, 2 in the three SC orders
    and never rates clarity in the second order (a partial reply, every time)."""
    u = msgs[-1]["content"]
    if "maps every dimension name above" in u:
        first = re.search(r"1\. (\w+):", u).group(1)  # type: ignore[union-attr]
        ratings = dict.fromkeys(F.DIMENSIONS, 2)
        if first == "local_acceptability":
            ratings["overall_quality"] = 3
        if first == "overall_quality":
            del ratings["clarity"]
        return json.dumps(ratings)
    if "0 (irrelevant) to 10" in u:
        return "Score: 6"
    if "direct_relevance: together" in u:
        return json.dumps({"scores": {c: i < 3 for i, c in enumerate(CRITERIA)}})
    if "Write the evaluation steps" in u:
        return "- read\n- compare\n- rate"
    if "Follow the evaluation steps" in u:
        return "Score: 5"
    if "key points that a strong argument" in u:
        return "- point one\n- point two\n- point three\n- point four"
    if "For each key point, rate how thoroughly" in u:
        return "1: 5\n2: 3\n3: 1\n4: 3"
    if '"preference": "Argument 1"' in u:  # RAG-Direct: argument 1 always wins
        g = {"argument_1": 5, "argument_2": 1}
        return json.dumps({k: g for k in J.RAG_KEYS} | {"preference": "Argument 1"})
    if '"key_points"' in u:
        kp = [
            {"point": i, "documents": 4, "argument_1": 3, "argument_2": 3, "better": "both"}
            for i in range(1, 5)
        ]
        return json.dumps(
            {"key_points": kp, "document_points": [{"point": "p", "argument_1": 5, "argument_2": 1}]}
        )
    if "a list with one rating per document" in u:
        return "I cannot do this."  # malformed every time: recorded, never scored
    if "taken together, are for this argument" in u:
        return json.dumps(
            {"context_relevance": 4, "answer_relevance": 4, "answer_groundedness": 2}
            | dict.fromkeys(F.DIMENSIONS, 1)
        )
    return "?"
