"""Run one peer tool's judgements on the workload, inside that tool's own virtual environment.

``benchmarks/peer_cost.py`` runs this file with each peer's interpreter
(``benchmarks/.peer_envs/<tool>/bin/python peer_clients.py <tool> <workload.json>``), with
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` / ``PEER_MODEL`` pointing at the counting server.  It
imports nothing from groundcover (which is not installed there) and calls each tool's public
API as its README shows, one judged answer after another, so the server sees the tool's own
requests.  It prints one JSON line per judgement with what the tool returned, as a check that
the flow completed.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def run_nuggetizer(items: list[dict[str, Any]]) -> None:
    """Nugget assignment (``Nuggetizer.assign``: the answer is the passage, nuggets in windows
    of ten), with the task's nuggets and their importance as the scored nuggets."""
    import nuggetizer.core.llm as llm_module
    from nuggetizer.core.types import ScoredNugget
    from nuggetizer.models.nuggetizer import Nuggetizer

    class ByteLength:
        """tiktoken cannot fetch its BPE file offline; nuggetizer only measures its own reply
        with it (and ``assign`` discards that length), but an exception there makes its
        handler re-send the request forever.  Bytes stand in for that discarded length."""

        def encode(self, text: str) -> list[int]:
            return list(text.encode())

    llm_module.tiktoken.get_encoding = lambda name: ByteLength()
    judge = Nuggetizer(model=os.environ["PEER_MODEL"], api_keys=os.environ["OPENAI_API_KEY"])
    for item in items:
        nuggets = [ScoredNugget(text=n["text"], importance=n["importance"]) for n in item["nuggets"]]
        got = judge.assign(item["query"], item["answer"], nuggets)
        print(json.dumps({"tool": "nuggetizer", "id": item["id"], "labels": [g.assignment for g in got]}))


def run_ragas(items: list[dict[str, Any]]) -> None:
    """Faithfulness and context recall, each with ragas's own ``evaluate`` over a dataset of
    the answers: the question, the answer, the contexts, and the nuggets as the reference."""
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, RunConfig, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import ContextRecall, Faithfulness

    chat = ChatOpenAI(model=os.environ["PEER_MODEL"], temperature=0, max_retries=0)
    llm = LangchainLLMWrapper(chat)
    data = EvaluationDataset.from_list(
        [
            {
                "user_input": item["query"],
                "response": item["answer"],
                "retrieved_contexts": item["contexts"],
                "reference": item["reference"],
            }
            for item in items
        ]
    )
    metric = sys.argv[3]
    chosen = Faithfulness(llm=llm) if metric == "faithfulness" else ContextRecall(llm=llm)
    result = evaluate(
        data,
        metrics=[chosen],
        llm=llm,
        run_config=RunConfig(max_workers=4, max_retries=1),
        show_progress=False,
    )
    for item, score in zip(items, result.to_pandas()[chosen.name], strict=True):
        print(
            json.dumps(
                {"tool": f"ragas/{metric}", "id": item["id"], "score": None if score != score else score}
            )
        )


def run_ragchecker(items: list[dict[str, Any]]) -> None:
    """RAGChecker's faithfulness (response claims checked against the retrieved context) and
    claim recall (reference claims checked against the response), with its LLM extractor
    and LLM checker served by the counting server through litellm."""
    from ragchecker import RAGChecker, RAGResults
    from ragchecker.metrics import claim_recall, faithfulness

    model = "openai/" + os.environ["PEER_MODEL"]
    base = os.environ["OPENAI_BASE_URL"]
    checker = RAGChecker(
        extractor_name=model, checker_name=model, extractor_api_base=base, checker_api_base=base,
        batch_size_extractor=4, batch_size_checker=4,
    )  # fmt: skip
    results = RAGResults.from_dict(
        {
            "results": [
                {
                    "query_id": item["id"],
                    "query": item["query"],
                    "gt_answer": item["reference"],
                    "response": item["answer"],
                    "retrieved_context": [
                        {"doc_id": str(i), "text": c} for i, c in enumerate(item["contexts"])
                    ],
                }
                for item in items
            ]
        }
    )
    metric = sys.argv[3]
    wanted = [faithfulness] if metric == "faithfulness" else [claim_recall]  # the retriever's claim recall
    checker.evaluate(results, wanted)
    for r in results.results:
        print(json.dumps({"tool": f"ragchecker/{metric}", "id": r.query_id, "metrics": r.metrics}))


RUNNERS = {"nuggetizer": run_nuggetizer, "ragas": run_ragas, "ragchecker": run_ragchecker}

if __name__ == "__main__":
    from pathlib import Path

    RUNNERS[sys.argv[1]](json.loads(Path(sys.argv[2]).read_text()))
