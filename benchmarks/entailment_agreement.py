"""Agreement of entailment judges with hand labels; prints a table.

The offline profile has no NLI model, so its stand-in (cosine similarity of sentence
windows with number/negation guards) must be measured, not trusted.  This script:

1. scores every pair of ``tests/fixtures/entailment_pairs.jsonl`` (hand-written,
   labelled entailment / not_entailment, split into dev and test by premise);
2. picks the threshold that maximises Cohen's kappa on the dev split;
3. reports accuracy, precision/recall/F1 for "entailment" and kappa on the test split,
   at the picked threshold and at the profile's threshold, per kind of pair, and for a
   token-overlap baseline.

Usage::

    python benchmarks/entailment_agreement.py [--profile offline-smollm2-minilm-sim] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, cohen_kappa_score, precision_recall_fscore_support

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "entailment_pairs.jsonl"


def load_pairs() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]


def overlap_score(premise: str, hypothesis: str) -> float:
    """Share of the claim's content words found in the passage (a lexical baseline)."""
    words = lambda s: {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 3}  # noqa: E731
    h = words(hypothesis)
    return len(h & words(premise)) / len(h) if h else 0.0


def metrics(labels: list[int], scores: np.ndarray, threshold: float) -> dict[str, float]:
    pred = (scores >= threshold).astype(int)
    p, r, f, _ = precision_recall_fscore_support(labels, pred, average="binary", zero_division=0)
    return {
        "threshold": round(float(threshold), 3),
        "accuracy": round(float(accuracy_score(labels, pred)), 3),
        "precision": round(float(p), 3),
        "recall": round(float(r), 3),
        "f1": round(float(f), 3),
        "kappa": round(float(cohen_kappa_score(labels, pred)), 3),
    }


def best_threshold(labels: list[int], scores: np.ndarray) -> float:
    grid = np.round(np.arange(0.30, 0.96, 0.01), 2)
    kappas = [cohen_kappa_score(labels, (scores >= t).astype(int)) for t in grid]
    return float(grid[int(np.argmax(kappas))])


def evaluate(profile_name: str) -> dict:
    from benchmark.cache import ModelCallCache
    from benchmark.entailment import load_entailment
    from benchmark.profiles import load_profile

    prof = load_profile(profile_name)
    model = load_entailment(
        prof.entailment, embedder_model=prof.embedder.model, cache=ModelCallCache(enabled=False)
    )
    pairs = load_pairs()
    scores = np.array(
        [
            s if s is not None else 0.0
            for s in model.support_scores([(p["premise"], p["hypothesis"]) for p in pairs])
        ]
    )
    base = np.array([overlap_score(p["premise"], p["hypothesis"]) for p in pairs])
    y = [int(p["label"] == "entailment") for p in pairs]
    dev = [i for i, p in enumerate(pairs) if p["split"] == "dev"]
    test = [i for i, p in enumerate(pairs) if p["split"] == "test"]
    y_dev, y_test = [y[i] for i in dev], [y[i] for i in test]
    t_model = best_threshold(y_dev, scores[dev])
    t_base = best_threshold(y_dev, base[dev])
    report = {
        "profile": prof.id,
        "entailment": prof.entailment.kind,
        "n_dev": len(dev),
        "n_test": len(test),
        "dev_threshold": t_model,
        "test_at_dev_threshold": metrics(y_test, scores[test], t_model),
        "test_at_profile_threshold": metrics(y_test, scores[test], prof.entailment.threshold),
        "baseline_overlap_test": metrics(y_test, base[test], t_base),
        "per_kind_accuracy_test": {},
    }
    kinds = sorted({pairs[i]["kind"] for i in test})
    for kind in kinds:
        idx = [i for i in test if pairs[i]["kind"] == kind]
        pred = (scores[idx] >= prof.entailment.threshold).astype(int)
        report["per_kind_accuracy_test"][kind] = {
            "n": len(idx),
            "accuracy": round(float(np.mean(pred == np.array([y[i] for i in idx]))), 3),
        }
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="offline-smollm2-minilm-sim")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    r = evaluate(args.profile)
    print(
        f"entailment agreement with hand labels — {r['profile']} ({r['entailment']}), dev n={r['n_dev']}, test n={r['n_test']}"
    )
    print(f"{'setting':38} {'thr':>5} {'acc':>6} {'prec':>6} {'rec':>6} {'F1':>6} {'kappa':>6}")
    for name, key in (
        ("test, threshold picked on dev", "test_at_dev_threshold"),
        ("test, profile threshold", "test_at_profile_threshold"),
        ("test, token-overlap baseline", "baseline_overlap_test"),
    ):
        m = r[key]
        print(
            f"{name:38} {m['threshold']:>5} {m['accuracy']:>6} {m['precision']:>6} {m['recall']:>6} {m['f1']:>6} {m['kappa']:>6}"
        )
    print(
        "per kind (test, profile threshold): "
        + ", ".join(f"{k} {v['accuracy']} (n={v['n']})" for k, v in r["per_kind_accuracy_test"].items())
    )
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
