"""Argument-quality scores from a trace alone, importing no model: how a published result is checked."""

from __future__ import annotations

from typing import Any

from benchmark.families.arguments import formulas as F
from benchmark.families.arguments.trace import ArgumentTrace


def _sys(parsed: dict[str, Any], key: str) -> float | None:
    pair = parsed.get(key)
    return None if pair is None else pair[parsed["system_position"] - 1]


def _winner(parsed: dict[str, Any], vote: str | None) -> str | None:
    if vote is None:
        return None
    if vote == "tie":
        return "tie"
    return "system" if int(vote) == parsed["system_position"] else "reference"


def trace_scores(t: ArgumentTrace) -> dict[str, float | None]:
    scores: dict[str, float | None] = {}
    for kind in F.QUALITY_JUDGES:
        rec = t.judges.get(kind)
        if rec is None:
            continue
        if "samples" in rec.parsed:
            dims = F.combine(rec.parsed["samples"], rec.parsed.get("combine", "mean"))
            scores["overall_quality_majority"] = F.combine(rec.parsed["samples"], "majority")[
                "overall_quality"
            ]
        else:
            dims = {d: rec.parsed.get("ratings", {}).get(d) for d in F.DIMENSIONS}
        scores.update(dims)
    j = t.judges
    if "direct" in j:
        scores["context_direct"] = F.unit(j["direct"].parsed.get("score"), F.DIRECT_SCALE)
    if "fine_grained" in j:
        scores["context_fine_grained"] = F.share_true(j["fine_grained"].parsed.get("criteria", {}))
    if "geval" in j:
        scores["context_geval"] = F.unit(j["geval"].parsed.get("score"), F.RATING_SCALE)
    if "query_rubric" in j:
        scores["context_query_rubric"] = F.mean_unit(j["query_rubric"].parsed.get("ratings", {}).values())
    if "rag_direct" in j:
        p = j["rag_direct"].parsed
        scores["context_rag_direct"] = F.unit(_sys(p, "context_relevance"), F.RATING_SCALE)
        scores["grounded_rag_direct"] = F.unit(_sys(p, "answer_groundedness"), F.RATING_SCALE)
        scores["win_rag_direct"] = F.preference(_winner(p, p.get("preference")))
    if "rag_rubric" in j:
        p = j["rag_rubric"].parsed
        kps, dps = p.get("key_points"), p.get("document_points")
        pos = p["system_position"]
        scores["context_rag_rubric"] = F.mean_unit(k[0] for k in kps) if kps else None
        scores["grounded_rag_rubric"] = F.mean_unit(d[pos] for d in dps) if dps else None
        scores["win_rag_rubric"] = F.nugget_preference(_winner(p, k[3]) for k in kps) if kps else None
    for name in ("listwise_rag", "listwise_rag_fg"):
        if name not in j:
            continue
        p = j[name].parsed
        ctx = p.get("context_relevance")
        scores[f"context_{name}"] = F.precision(ctx) if isinstance(ctx, list) else F.unit(ctx, F.RATING_SCALE)
        scores[f"grounded_{name}"] = F.unit(p.get("answer_groundedness"), F.RATING_SCALE)
        scores[f"overall_{name}"] = p.get("overall_quality")
    return scores
