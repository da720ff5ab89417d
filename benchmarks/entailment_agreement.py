"""Agreement of the offline entailment substitute with human labels; prints a table.

The offline profile has no NLI model, so its stand-in (cosine similarity of sentence
windows with number/negation guards) must be measured, not trusted, and measured on
labels this project did not write:

* ``fixture`` — ``tests/fixtures/entailment_pairs.jsonl``: 120 pairs written for this
  project (a test of the code, not evidence of agreement); its dev split (50 pairs)
  picks each embedder's threshold, by Cohen's kappa;
* ``sick``, ``rte`` — public human-labelled NLI data (``benchmark.metaeval.human_sets``: sources,
  pinned commits, licences), never used to pick anything.

For every source it reports n, the accuracy of always answering the majority class,
ROC AUC, accuracy / precision / recall of "supported" at the threshold, and two trivial
baselines: content-word overlap and hypothesis length (shorter hypotheses are more
often entailed).  Where AUC is near 0.5 or accuracy is at the majority class, the judge
is at chance there, and the table says so.

``--judge llm`` measures the profile's LLM as a yes/no support judge instead (prompt
``entailment@1``; what DecompScore asks of every subclaim), with its rate of "yes"
answers next to the human rate: a judge that says yes to nearly everything only counts.

    .venv/bin/python benchmarks/entailment_agreement.py                    # the profile's embedder
    .venv/bin/python benchmarks/entailment_agreement.py --embedder /path/to/all-mpnet-base-v2
    .venv/bin/python benchmarks/entailment_agreement.py --judge llm --max-pairs 300
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, cohen_kappa_score, precision_recall_fscore_support, roc_auc_score

from benchmark.metaeval import human_sets
from benchmark.metaeval.judge_cards import overlap as overlap_score
from benchmark.metaeval.judge_cards import sample

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "entailment_pairs.jsonl"


def fixture_pairs() -> list[dict]:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**r, "label": int(r["label"] == "entailment")} for r in rows]


def length_score(premise: str, hypothesis: str) -> float:
    return -float(len(hypothesis.split()))


def best_threshold(labels: list[int], scores: np.ndarray) -> float:
    grid = np.round(np.arange(0.30, 0.96, 0.01), 2)
    kappas = [cohen_kappa_score(labels, (scores >= t).astype(int)) for t in grid]
    return float(grid[int(np.argmax(kappas))])


def report(labels: list[int], scores: np.ndarray, threshold: float | None) -> dict[str, float]:
    y = np.asarray(labels)
    out = {
        "n": int(y.size),
        "majority_acc": round(float(max(y.mean(), 1 - y.mean())), 3),
        "auc": round(float(roc_auc_score(y, scores)), 3) if 0 < y.sum() < y.size else float("nan"),
    }
    if threshold is not None:
        pred = (scores >= threshold).astype(int)
        p, r, _, _ = precision_recall_fscore_support(y, pred, average="binary", zero_division=0)
        out |= {
            "threshold": threshold,
            "acc": round(float(accuracy_score(y, pred)), 3),
            "precision": round(float(p), 3),
            "recall": round(float(r), 3),
            "kappa": round(float(cohen_kappa_score(y, pred)), 3),
        }
    return out


def judge_scores(model: object, pairs: list[dict]) -> np.ndarray:
    scores = model.support_scores([(p["premise"], p["hypothesis"]) for p in pairs])  # type: ignore[attr-defined]
    return np.array([0.0 if s is None else s for s in scores])


def evaluate(
    profile_name: str,
    embedder: str | None,
    sources: list[str],
    judge: str = "entailment",
    max_pairs: int | None = None,
) -> dict:
    from benchmark.models.backends import load_llm
    from benchmark.models.cache import ModelCallCache
    from benchmark.models.entailment import LLMEntailment, load_entailment
    from benchmark.models.profiles import EntailmentSpec, load_profile

    prof = load_profile(profile_name)
    spec = prof.entailment if embedder is None else prof.entailment.model_copy(update={"model": embedder})
    if judge == "llm":
        spec = EntailmentSpec(kind="llm", threshold=0.5, model=prof.llm.model)
        model = LLMEntailment(spec, load_llm(prof.llm, cache=ModelCallCache(enabled=False)))
    else:
        model = load_entailment(spec, embedder_model=prof.embedder.model, cache=ModelCallCache(enabled=False))
    fixture = fixture_pairs()
    dev = [p for p in fixture if p["split"] == "dev"]
    test = [p for p in fixture if p["split"] == "test"]
    t0 = time.perf_counter()
    dev_scores = judge_scores(model, dev)
    threshold = best_threshold([p["label"] for p in dev], dev_scores) if embedder else spec.threshold
    data = {"fixture test (project-written)": test} | {
        human_sets.SETS[s].title: [p.__dict__ for p in sample(human_sets.load(s), max_pairs)] for s in sources
    }
    rows = {}
    for name, pairs in data.items():
        labels = [int(p["label"]) for p in pairs]
        scores = judge_scores(model, pairs)
        rows[name] = {
            "judge": report(labels, scores, threshold)
            | {
                "yes_rate": round(float((scores >= threshold).mean()), 3),
                "human_yes_rate": round(float(np.mean(labels)), 3),
            },
            "overlap": report(
                labels, np.array([overlap_score(p["premise"], p["hypothesis"]) for p in pairs]), None
            ),
            "length": report(
                labels, np.array([length_score(p["premise"], p["hypothesis"]) for p in pairs]), None
            ),
        }
    return {
        "profile": prof.id,
        "judge": judge,
        "embedder": spec.model,
        "threshold": threshold,
        "threshold_from": "fixture dev split (kappa)" if embedder else "the profile",
        "seconds": round(time.perf_counter() - t0, 1),
        "sources": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="offline-smollm2-minilm-sim")
    ap.add_argument(
        "--embedder", help="another sentence-transformers model (path or id) in place of the profile's"
    )
    ap.add_argument("--sources", default="sick,rte", help="public sets (benchmark.metaeval.human_sets)")
    ap.add_argument("--judge", choices=["entailment", "llm"], default="entailment")
    ap.add_argument("--max-pairs", type=int, help="a seeded sample of each public source")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    r = evaluate(
        args.profile, args.embedder, [s for s in args.sources.split(",") if s], args.judge, args.max_pairs
    )
    print(
        f"{r['judge']} judge vs human labels — {r['profile']}, model {r['embedder']}, "
        f"threshold {r['threshold']} ({r['threshold_from']}), {r['seconds']} s"
    )
    head = f"{'source':34} {'n':>5} {'major.':>6} {'AUC':>6} {'acc':>6} {'prec':>6} {'recall':>6} {'kappa':>6} {'yes':>5} {'human yes':>9} {'AUC overlap':>11} {'AUC length':>10}"
    print(head)
    for name, row in r["sources"].items():
        j = row["judge"]
        at_chance = " (at chance)" if j["auc"] < 0.6 or j["acc"] <= j["majority_acc"] else ""
        print(
            f"{name:34} {j['n']:>5} {j['majority_acc']:>6} {j['auc']:>6} {j['acc']:>6} {j['precision']:>6} "
            f"{j['recall']:>6} {j['kappa']:>6} {j['yes_rate']:>5} {j['human_yes_rate']:>9} "
            f"{row['overlap']['auc']:>11} {row['length']['auc']:>10}{at_chance}"
        )
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
