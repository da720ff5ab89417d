"""RAArg: the ranking parser, the sliding-window reranker on a scripted LLM, proportional
trimming, P@10 / nDCG@10 per stance against hand-computed values, and the RAG setting."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from benchmark.core.results import RAGSetting
from benchmark.core.text import trim_proportionally
from benchmark.generation import raarg
from benchmark.retrieval import Hit
from tests.helpers.fakes import FakeLLM


def test_parse_ranking() -> None:
    assert raarg.parse_ranking("[3] > [1] > [2]", 3) == [2, 0, 1]
    assert raarg.parse_ranking("2 > 1", 4) == [1, 0, 2, 3]  # unranked keep their order after
    assert raarg.parse_ranking("[2] > [9] > [2] > [1]", 3) == [1, 0, 2]  # out of range and repeats ignored
    for bad in ("1. 2. 3.", "The first document is best.", "[9] > [7]"):
        with pytest.raises(ValueError):
            raarg.parse_ranking(bad, 3)


def _hits(ids: list[str]) -> list[Hit]:
    return [Hit(i, i, f"text of {i}", float(len(ids) - r), r + 1) for r, i in enumerate(ids)]


def test_sliding_window_moves_the_best_document_to_the_top() -> None:
    """A judge that always puts the document mentioning 'gold' first: with window 4, step 2
    over 8 documents, the gold document climbs from rank 8 to rank 1, bottom-up."""

    def reply(msgs: list[dict[str, str]]) -> str:
        docs = re.findall(r"^\[(\d+)\] (.*)$", msgs[-1]["content"], flags=re.M)
        gold = [n for n, text in docs if "gold" in text]
        rest = [n for n, _ in docs if n not in gold]
        return " > ".join(f"[{n}]" for n in gold + rest)

    ids = [f"d{i}" for i in range(1, 8)] + ["gold"]
    llm = FakeLLM(reply)
    out = raarg.rerank(llm, [("Topic?", "pro")], [_hits(ids)], "stance", window=4, step=2)
    assert out.hits[0][0].doc_id == "gold"
    assert [h.rank for h in out.hits[0]] == list(range(1, 9)) and out.failures == {}
    assert len(llm.requests) == 3  # windows at ranks 5-8, 3-6, 1-4
    assert "pro side of the topic (in favour)" in llm.requests[0][-1]["content"]
    # 7 documents: the windows start at ranks 4 and 2, and a last one at rank 1 is added
    out = raarg.rerank(FakeLLM(reply), [("T", "pro")], [_hits(ids[1:])], "stance", window=4, step=2)
    assert out.hits[0][0].doc_id == "gold"


def test_unusable_window_keeps_its_order_and_is_recorded() -> None:
    llm = FakeLLM(lambda msgs: "I like them all.")
    ids = ["a", "b", "c"]
    out = raarg.rerank(llm, [("T", "con")], [_hits(ids)], "generic", window=3, step=2, max_retries=1)
    assert [h.doc_id for h in out.hits[0]] == ids
    assert len(out.failures[0]) == 1 and len(llm.requests) == 2  # one try, one repair


def test_proportional_trimming() -> None:
    texts = ["a " * 100, "b " * 300, "c " * 10]
    out = trim_proportionally(texts, 205)
    assert [len(t.split()) for t in out] == [51, 151, 6]  # half of each (+ the ellipsis), none dropped
    assert trim_proportionally(["x y"], 10) == ["x y"]
    top = raarg.evidence(_hits(["a", "b", "c"]), 2, 1000)
    assert [h.doc_id for h in top] == ["a", "b"]


def test_ranking_quality_per_stance_by_hand() -> None:
    qrels = pd.DataFrame(
        [("t:pro", "p1", 1), ("t:pro", "c1", 1), ("t:con", "p1", 1), ("t:con", "c1", 1)],
        columns=["query_id", "doc_id", "relevance"],
    )
    stances = pd.DataFrame(
        [("t:pro", "p1", "pro"), ("t:pro", "c1", "con"), ("t:con", "p1", "pro"), ("t:con", "c1", "con")],
        columns=["query_id", "doc_id", "stance"],
    )
    runs = {"bm25": {"t:pro": ["c1", "x", "p1"], "t:con": ["c1", "p1"]}}
    table = raarg.ranking_quality(runs, qrels, stances, {"t:pro": "pro", "t:con": "con"})
    row = table.set_index(["qrels", "queries"]).loc[("own stance", "pro")]
    assert row["P@10"] == pytest.approx(0.1)
    assert row["nDCG@10"] == pytest.approx((1 / math.log2(4)) / 1.0)  # the one pro document at rank 3
    row = table.set_index(["qrels", "queries"]).loc[("own stance", "con")]
    assert row["nDCG@10"] == pytest.approx(1.0)
    both = table.set_index(["qrels", "queries"]).loc[("any stance", "all")]
    ideal = 1 + 1 / math.log2(3)
    assert both["nDCG@10"] == pytest.approx(((1 + 1 / math.log2(4)) / ideal + 1.0) / 2)


def test_rag_setting_names_the_reranking() -> None:
    plain = RAGSetting(retriever="bm25", k=5, prompt="rag-answer@1", corpus="c")
    assert plain.slug == "rag-bm25-k5"
    rr = plain.model_copy(update={"rerank": "stance", "depth": 20, "prompt": raarg.ARGUMENT_PROMPT})
    assert rr.slug == "rag-bm25-stance-rerank20-k5" and "stance LLM rerank" in rr.label
