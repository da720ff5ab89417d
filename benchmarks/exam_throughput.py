"""EXAM's question answerers on this machine: questions answered per second, and what they answer.

Both answerers read the written ``webtrack-2009-2012`` exam (60 multiple-choice questions,
12 topics) with the offline profile's models and the model-call cache disabled (cold);
models are loaded before the clock starts.  Per answerer it prints questions per second
and seconds per query, then the EXAM each answerer gives five kinds of text, the check
that it reads what a text says rather than guessing from the topic:

* the gold articles (written to answer every question),
* the starter corpus's eight documents of the topic, concatenated,
* the next topic's gold article (wrong topic: should answer nothing),
* the topic's aspects only (on topic, but no answers),
* an empty text.

    .venv/bin/python benchmarks/exam_throughput.py [--llm-queries 2] [--answerers entailment,llm]
"""

from __future__ import annotations

import argparse
import time

from tabulate import tabulate

from benchmark.families.exam import formulas
from benchmark.families.exam.bank import task_bank
from benchmark.families.exam.family import ExamSettings
from benchmark.families.exam.judges import Answerer, EntailmentAnswerer, LLMAnswerer
from benchmark.families.exam.pipeline import gold_articles, read_all
from benchmark.judging.stack import JudgeStack
from benchmark.models.cache import ModelCallCache
from benchmark.models.profiles import DEFAULT_PROFILE, load_profile
from benchmark.tasks import load_task


def texts(task_id: str = "webtrack-2009-2012") -> tuple[dict[str, list], dict[str, dict[str, str]]]:
    task = load_task(task_id)
    bank, gold = task_bank(task), gold_articles(task)
    qids = list(bank)
    corpus, aspects = task.table("corpus"), task.table("aspects")
    kinds = {
        "gold article": gold,
        "topic's corpus documents": {
            q: "\n".join(corpus[corpus.doc_id.str.startswith(f"gc-starter-{q}-")].text) for q in qids
        },
        "next topic's gold article": {q: gold[qids[(i + 1) % len(qids)]] for i, q in enumerate(qids)},
        "topic's aspects only": {q: " ".join(aspects[aspects.query_id == q].text) for q in qids},
        "empty text": dict.fromkeys(qids, ""),
    }
    return bank, kinds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answerers", default="entailment,llm")
    parser.add_argument(
        "--llm-queries", type=int, default=2, help="queries the LLM answerer reads per text kind"
    )
    parser.add_argument("--judge-profile", default=DEFAULT_PROFILE)
    args = parser.parse_args()
    bank, kinds = texts()
    stack = JudgeStack.load(load_profile(args.judge_profile), ModelCallCache(enabled=False), progress=False)
    defaults = ExamSettings()
    answerers: dict[str, tuple[Answerer, list[str]]] = {}
    for name in args.answerers.split(","):
        if name == "entailment":
            stack.entailment.support_scores([("warm up", "warm up")])
            answerers[name] = (
                EntailmentAnswerer(stack.entailment, defaults.threshold, defaults.margin),
                list(bank),
            )
        elif name == "llm":
            stack.llm.generate([[{"role": "user", "content": "Hello"}]], max_new_tokens=1)
            answerers[name] = (LLMAnswerer(stack.llm), list(bank)[: args.llm_queries])
    speed, quality = [], []
    for name, (answerer, qids) in answerers.items():
        row = [name]
        seconds = questions = 0.0
        for by_query in kinds.values():
            t0 = time.perf_counter()
            read = read_all(answerer, bank, [(q, by_query[q]) for q in qids])
            seconds += time.perf_counter() - t0
            questions += sum(len(r) for r in read)
            scores = [formulas.exam([x.verdict for _, x in r]) for r in read]
            failed = sum(s is None for s in scores)
            done = [s for s in scores if s is not None]
            row.append(
                f"{sum(done) / len(done):.2f}" + (f" ({failed} failed)" if failed else "") if done else "—"
            )
        quality.append(row)
        speed.append(
            [name, int(questions), f"{questions / seconds:.1f}", f"{seconds / (len(qids) * len(kinds)):.2f}"]
        )
    print(f"{stack.profile.id}; entailment answerer threshold {defaults.threshold}, margin {defaults.margin}")
    print(tabulate(speed, headers=["answerer", "questions", "questions/s", "s per query"], tablefmt="github"))
    print()
    print(tabulate(quality, headers=["EXAM of →", *kinds], tablefmt="github"))


if __name__ == "__main__":
    main()
