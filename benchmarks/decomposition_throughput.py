"""Claim decomposition throughput on this machine: subclaims per second per method.

Every method decomposes the same sentences (the first sentences of the published
decomposition texts, ``leaderboard/texts/bm25-extractive-top3.jsonl``), sentence by
sentence, with the model-call cache disabled (cold), using the offline judge profile's
LLM and embedder for the prompted methods.  Model loading is done before the clock
starts.  Prints a table.

    .venv/bin/python benchmarks/decomposition_throughput.py [--sentences 24] [--methods ...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tabulate import tabulate

from benchmark.core.text import sentences
from benchmark.judging.decomposition import LLM_METHODS, METHODS, Decomposer, spacy_pipeline
from benchmark.models.backends import load_llm
from benchmark.models.cache import ModelCallCache
from benchmark.models.embeddings import Embedder
from benchmark.models.profiles import load_profile

TEXTS = Path(__file__).resolve().parents[1] / "leaderboard" / "texts" / "bm25-extractive-top3.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=24)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--judge-profile", default=None)
    args = parser.parse_args()
    rows_in = [json.loads(line)["text"] for line in TEXTS.read_text(encoding="utf-8").splitlines()]
    units = [s for text in rows_in for s in sentences(text)][: args.sentences]
    profile = load_profile(args.judge_profile)
    cold = ModelCallCache(enabled=False)
    llm = load_llm(profile.llm, cache=cold)
    embed = Embedder(profile.embedder, cache=cold).encode
    llm.generate([[{"role": "user", "content": "Hello"}]], max_new_tokens=2)  # load the weights
    embed(["warm up"])
    spacy_pipeline()
    rows = []
    for method in args.methods.split(","):
        dec = Decomposer(method, llm=llm if method in LLM_METHODS else None, embed=embed)
        t = time.perf_counter()
        out = dec.decompose(units)
        seconds = time.perf_counter() - t
        subclaims = sum(len(u.subclaims) for u in out)
        rows.append(
            {
                "method": method,
                "sentences": len(units),
                "subclaims": subclaims,
                "failed units": sum(u.error is not None for u in out),
                "seconds": round(seconds, 2),
                "subclaims/s": round(subclaims / seconds, 1) if seconds else None,
                "sentences/s": round(len(units) / seconds, 2) if seconds else None,
            }
        )
    print(f"judge profile {profile.id}; LLM {profile.llm.model}; cache disabled")
    print(tabulate(rows, headers="keys", tablefmt="github"))


if __name__ == "__main__":
    main()
