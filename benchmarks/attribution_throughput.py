"""Attribution's citation support judges on this machine: sentences judged per second, and
whether they tell a right citation from a wrong one.

Sentences are taken word for word from the ``webtrack-2009-2012`` starter corpus (the
second sentence of each document), so the truth is known without a human label: each is
cited three ways —

* **right**: the document it was taken from (should be supported),
* **wrong**: a document of another topic (should not be),
* **right + wrong**: both (recall holds; the wrong citation is redundant, so ALCE
  precision is ½ and one leave-one-out judgement is asked).

Per judge it prints sentences judged per second (each answer is one sentence; the judge
asks one question per citation, one for the pair, and one leave-one-out where it decides),
and the share supported per way of citing.  The offline profile's models are loaded before
the clock starts; the model-call cache is disabled (cold).

    .venv/bin/python benchmarks/attribution_throughput.py [--judges entailment,llm] [--llm-sentences 6]
"""

from __future__ import annotations

import argparse
import time

from tabulate import tabulate

from benchmark.answers.citations import CitedSentence
from benchmark.core.text import sentences
from benchmark.families.attribution.judges import EntailmentSupport, LLMSupport, SupportJudge
from benchmark.families.attribution.pipeline import AttributionState, score_batch
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import DEFAULT_PROFILE, load_profile
from benchmark.tasks import load_task

WAYS = {"right": (0,), "wrong": (1,), "right + wrong": (0, 1)}


def items(task_id: str = "webtrack-2009-2012") -> tuple[dict[str, str], list[tuple[str, list[str], str]]]:
    """Passage texts by id, and (sentence, [its document, another topic's document], topic)."""
    corpus = load_task(task_id).table("corpus")
    texts = dict(zip(corpus.doc_id, corpus.text, strict=True))
    docs = list(texts)
    topic = lambda d: d.rsplit("-", 1)[0]  # noqa: E731
    out = []
    for i, d in enumerate(docs):
        sents = sentences(texts[d])
        if len(sents) < 2:
            continue
        other = next(o for o in docs[i + 1 :] + docs[:i] if topic(o) != topic(d))
        out.append((sents[1], [d, other], topic(d)))
    return texts, out


def run(
    judge: SupportJudge, texts: dict[str, str], picked: list[tuple[str, list[str], str]]
) -> tuple[list, float]:
    rows, seconds = [], 0.0
    for way, cites in WAYS.items():
        given = {f"{n}": ids for n, (_, ids, _) in enumerate(picked)}
        split = {f"{n}": [CitedSentence(s, cites)] for n, (s, _, _) in enumerate(picked)}
        state = AttributionState(judge, texts.get, given, split)
        t0 = time.perf_counter()
        traces = score_batch(state, [(f"{n}", topic, s) for n, (s, _, topic) in enumerate(picked)])
        seconds += time.perf_counter() - t0
        recall = [t.scores["citation_recall"] for t in traces if t.scores["citation_recall"] is not None]
        precision = [
            t.scores["citation_precision"] for t in traces if t.scores["citation_precision"] is not None
        ]
        rows.append(
            (
                way,
                f"{sum(recall) / len(recall):.2f}" if recall else "—",
                f"{sum(precision) / len(precision):.2f}" if precision else "—",
                sum(t.failed or bool(t.failures) for t in traces),
            )
        )
    return rows, seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--judges", default="entailment,llm")
    parser.add_argument("--llm-sentences", type=int, default=6, help="sentences the LLM judge reads per way")
    parser.add_argument("--judge-profile", default=DEFAULT_PROFILE)
    args = parser.parse_args()
    texts, picked = items()
    stack = JudgeStack.load(load_profile(args.judge_profile), ModelCallCache(enabled=False), progress=False)
    speed, quality = [], []
    for name in args.judges.split(","):
        if name == "entailment":
            stack.entailment.support_scores([("warm up", "warm up")])
            judge: SupportJudge = EntailmentSupport(stack.entailment)
            mine = picked
        else:
            stack.llm.generate([[{"role": "user", "content": "Hello"}]], max_new_tokens=1)
            judge, mine = LLMSupport(stack.llm), picked[: args.llm_sentences]
        rows, seconds = run(judge, texts, mine)
        n = len(mine) * len(WAYS)
        speed.append([name, n, f"{n / seconds:.1f}", f"{seconds:.1f}"])
        quality += [[name, *r] for r in rows]
    print(f"{stack.profile.id}; {len(picked)} sentences from the starter corpus")
    print(tabulate(speed, headers=["judge", "sentences", "sentences/s", "seconds"], tablefmt="github"))
    print()
    print(
        tabulate(
            quality,
            headers=["judge", "cited", "citation recall", "citation precision", "failed"],
            tablefmt="github",
        )
    )


if __name__ == "__main__":
    main()
