"""Measuring a profile's judges on public human-labelled sets: the numbers of a judge card.

Each role is measured with the judge the profile uses, next to trivial baselines on the same
items, and its verdict rests on intervals (docs/meta-evaluation.md, Judge cards).  Roles beyond
the shared ``entailment`` and ``llm-support`` are declared by their families
(:class:`~benchmark.families.base.JudgeRole`); a role not measured is listed with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats as st
from sklearn.metrics import roc_auc_score

from benchmark.core.version import __version__
from benchmark.families import REGISTRY
from benchmark.families.base import JudgeRole
from benchmark.metaeval import human_sets
from benchmark.metaeval.human_sets import ArgumentPair, Pair
from benchmark.models.cards import (
    ALL_FAILED,
    JudgeCard,
    RoleCard,
    SetFigure,
    Verdict,
    best_baseline,
    worst,
)
from benchmark.models.example_copies import COPY_ERROR
from benchmark.models.profiles import JudgeProfile

if TYPE_CHECKING:
    from benchmark.families.base import JudgedPassage

CHANCE_AUC = 0.5
RESAMPLES = 1000
#: the extra figure a rating judge's example matches are counted under, and the share that flags it
MATCH_SHARE = "share of ratings equal to the worked example's"
MOSTLY = 0.5

#: why a shared role (one that several families' scores depend on) is not measured yet;
#: a family's own roles say it themselves (``MetricFamily.judge_roles``)
NOT_MEASURED = {
    "entailment": "measured on the public entailment sets of --sets when its model loads",
    "llm-support": "measured only with --llm-pairs N (the profile's LLM as a yes/no support judge)",
}


def family_role(role: str) -> JudgeRole | None:
    """The declaration of ``role`` by the registered family that brings it, if one does."""
    return next((r for fam in REGISTRY.values() for r in fam.judge_roles if r.name == role), None)


def not_measured(role: str) -> str:
    """Why ``role`` is not measured on this card (yet), in words."""
    if (declared := family_role(role)) is not None:
        return declared.not_measured
    return NOT_MEASURED.get(role, "no measurement for this role yet")


def overlap(premise: str, hypothesis: str) -> float:
    """Share of the hypothesis's content words (4+ letters) found in the premise."""
    words = lambda s: {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 3}  # noqa: E731
    h = words(hypothesis)
    return len(h & words(premise)) / len(h) if h else 0.0


def auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    y = np.asarray(labels)
    return float(roc_auc_score(y, np.asarray(scores))) if 0 < y.sum() < y.size else None


def auc_interval(labels: Sequence[int], scores: Sequence[float], seed: int = 0) -> tuple[float, float] | None:
    """95% percentile bootstrap interval of the ROC AUC, resampling items (scipy.stats)."""
    y, s = np.asarray(labels), np.asarray(scores, dtype=float)
    if not 0 < y.sum() < y.size:
        return None

    def stat(yy: np.ndarray, ss: np.ndarray) -> float:
        return float(roc_auc_score(yy, ss)) if 0 < yy.sum() < yy.size else CHANCE_AUC

    res = st.bootstrap(
        (y, s),
        stat,
        paired=True,
        vectorized=False,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=seed,
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


#: one comparison a verdict rests on: (what is compared, the baseline, judge − baseline, low, high)
Difference = tuple[str, str, float, float, float]


def fast_auc(y: np.ndarray, s: np.ndarray) -> float | None:
    """ROC AUC from ranks (ties averaged), as :func:`auc` but cheap enough for a thousand
    resamples of thousands of items; ``None`` when one class is missing."""
    pos = int(y.sum())
    neg = y.size - pos
    if pos == 0 or neg == 0:
        return None
    ranks = st.rankdata(s)
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def difference(
    what: str,
    baseline: str,
    stat: Callable[[np.ndarray], float | None],
    n: int,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Difference | None:
    """``stat`` (judge minus baseline, on the items an index array picks) on all ``n`` items,
    with its 95% interval from a seeded paired bootstrap over items; resamples where it is
    undefined (one class drawn) are dropped."""
    whole = stat(np.arange(n))
    if whole is None or n < 2:
        return None
    rng = np.random.default_rng(seed)
    draws = [stat(rng.integers(0, n, n)) for _ in range(resamples)]
    kept = np.array([d for d in draws if d is not None])
    if kept.size == 0:
        return None
    low, high = np.percentile(kept, [2.5, 97.5])
    return what, baseline, float(whole), float(low), float(high)


def auc_difference(
    labels: Sequence[int],
    scores: Sequence[float],
    baselines: dict[str, Sequence[float]],
    seed: int = 0,
    metric: str = "ROC AUC",
) -> Difference | None:
    """The judge's AUC minus the best baseline's, with its bootstrap interval over items."""
    y, s = np.asarray(labels), np.asarray(scores, dtype=float)
    aucs = {k: fast_auc(y, np.asarray(v, dtype=float)) for k, v in baselines.items()}
    if (best := best_baseline(aucs)) is None:
        return None
    b = np.asarray(baselines[best[0]], dtype=float)

    def stat(i: np.ndarray) -> float | None:
        mine, theirs = fast_auc(y[i], s[i]), fast_auc(y[i], b[i])
        return None if mine is None or theirs is None else mine - theirs

    return difference(metric, best[0], stat, y.size, seed)


def decision_differences(labels: Sequence[int], said: Sequence[bool], seed: int = 0) -> list[Difference]:
    """The pipeline's decision at the profile's threshold against the trivial ones: accuracy
    minus the majority class's, and F1 of "supported" minus always saying "supported"'s."""
    y = np.asarray(labels, dtype=int)
    a = np.asarray(said, dtype=bool)
    if y.size < 2:
        return []
    majority = int(y.mean() >= 0.5)

    def accuracy(i: np.ndarray) -> float:
        return float(np.mean(a[i] == y[i]) - np.mean(y[i] == majority))

    def f1_gap(i: np.ndarray) -> float | None:
        gold = y[i]
        if gold.sum() == 0:
            return None
        return _f1(a[i], gold) - _f1(np.ones_like(a[i]), gold)

    label = "always not supported" if majority == 0 else "always supported"
    out = [
        difference("accuracy at the threshold", f"majority class ({label})", accuracy, y.size, seed),
        difference("F1 of support at the threshold", "always supported", f1_gap, y.size, seed + 1),
    ]
    return [d for d in out if d is not None]


def verdict(
    n: int,
    value: float | None,
    ci: tuple[float, float] | None,
    chance: float,
    differences: Sequence[Difference] = (),
) -> tuple[Verdict, str | None]:
    """Plain words for a figure, and what decided them.  Nothing measured is said so, never
    "at chance"; an interval reaching chance is at chance; then each comparison with a trivial
    baseline is decided by the interval of the *difference*, never the point estimates, and
    the worst comparison decides."""
    if n == 0:
        return ALL_FAILED, "every item failed: nothing was measured"
    if value is None or ci is None or ci[0] <= chance:
        if ci is not None and ci[1] < chance:  # worse than chance: the judge's order is inverted
            return "at chance", f"its 95% interval lies below {chance:g}: it ranks worse than chance"
        return "at chance", None if ci is None else f"its 95% interval reaches {chance:g}"
    below = [d for d in differences if d[4] < 0]
    level = [d for d in differences if d[3] <= 0 <= d[4]]
    words = lambda ds: "; ".join(  # noqa: E731
        f"{w} − {b} {v:+.3f} [{lo:+.3f}, {hi:+.3f}]" for w, b, v, lo, hi in ds
    )
    if below:
        return "below a baseline", words(below)
    if level:
        return "no better than a baseline", words(level)
    return "informative", words(differences) or None


def _differences_extra(differences: Sequence[Difference]) -> dict[str, float | None]:
    """The comparisons as a card's ``extra`` figures (value, then its interval's ends)."""
    out: dict[str, float | None] = {}
    for what, base, value, low, high in differences:
        key = f"{what} − {base}"
        out |= {key: value, f"{key}, 95% low": low, f"{key}, 95% high": high}
    return out


def _figure(
    set_id: str,
    n: int,
    metric: str,
    value: float | None,
    ci: tuple[float, float] | None,
    chance: float,
    baselines: dict[str, float | None],
    extra: dict[str, float | None],
    about: tuple[str, str, str | None] | None = None,
    differences: Sequence[Difference] = (),
) -> SetFigure:
    """One set's figure, with its title, licence and source (``about``, else the set's) and verdict."""
    title, licence, source = about or (lambda hs: (hs.title, hs.licence, hs.source))(human_sets.SETS[set_id])
    said, why = verdict(n, value, ci, chance, differences)
    return SetFigure(
        set=set_id,
        title=title,
        licence=licence,
        source=source,
        n=n,
        metric=metric,
        value=value,
        ci_low=None if ci is None else ci[0],
        ci_high=None if ci is None else ci[1],
        chance=chance,
        baselines=baselines,
        extra=extra | _differences_extra(differences),
        verdict=said,
        why=why,
    )


def entailment_figure(
    set_id: str,
    pairs: Sequence[Pair],
    support: Callable[[list[tuple[str, str]]], list[float | None]],
    threshold: float,
    cosine: Callable[[list[tuple[str, str]]], list[float]] | None = None,
    seed: int = 0,
    variants: dict[str, Callable[[list[tuple[str, str]]], list[float | None]]] | None = None,
) -> SetFigure:
    """A support scorer on entailment pairs: ROC AUC with its interval, the decision at the
    profile's threshold, and the baselines.  A pair the judge could not score is left out and
    counted, never scored 0.  ``variants`` (other settings of the same judge) add their AUCs on
    the same items to ``extra``, so a card shows whether the profile keeps the best."""
    raw = support([(p.premise, p.hypothesis) for p in pairs])
    kept = [(p, s) for p, s in zip(pairs, raw, strict=True) if s is not None]
    labels = [p.label for p, _ in kept]
    scores = [float(s) for _, s in kept]
    value, ci = auc(labels, scores), auc_interval(labels, scores, seed)
    share = float(np.mean(labels)) if labels else 0.0
    base_scores: dict[str, list[float]] = {
        "word overlap": [overlap(p.premise, p.hypothesis) for p, _ in kept],
        "hypothesis length": [-float(len(p.hypothesis.split())) for p, _ in kept],
    }
    if cosine is not None and kept:
        base_scores["plain cosine"] = cosine([(p.premise, p.hypothesis) for p, _ in kept])
    baselines: dict[str, float | None] = {k: auc(labels, v) for k, v in base_scores.items()}
    said = [s >= threshold for s in scores]
    a, y = np.asarray(said, dtype=bool), np.asarray(labels, dtype=int)
    extra: dict[str, float | None] = {
        "failed": float(len(pairs) - len(kept)),
        "threshold": threshold,
        "accuracy": float(np.mean(a == (y == 1))) if kept else None,
        "majority-class accuracy": max(share, 1 - share) if kept else None,
        "recall of support": float(np.mean(a[y == 1])) if any(labels) else None,
        "share said supported": float(np.mean(said)) if kept else None,
        "F1 of support": _f1(a, y) if any(labels) else None,
        "F1 of always supported": 2 * share / (1 + share) if any(labels) else None,
    }
    for name, scorer in (variants or {}).items():
        other = scorer([(p.premise, p.hypothesis) for p, _ in kept])
        extra[f"ROC AUC, {name}"] = auc(labels, [0.0 if v is None else float(v) for v in other])
    differences = [d for d in [auc_difference(labels, scores, base_scores, seed)] if d is not None]
    differences += decision_differences(labels, said, seed)
    return _figure(set_id, len(kept), "ROC AUC", value, ci, CHANCE_AUC, baselines, extra, None, differences)


def _f1(pred: np.ndarray, gold: np.ndarray) -> float:
    """F1 of the positive class, predictions ``pred`` (bools) against labels ``gold`` (0/1)."""
    total = pred.sum() + gold.sum()
    return 2 * float(np.sum(pred & (gold == 1))) / float(total) if total else 0.0


def answerability_figure(
    grades: str, passages: Sequence[JudgedPassage], licence: str, seed: int = 0
) -> SetFigure:
    """An exam answerer on graded passages (EXAM++'s qrels mode): ROC AUC of the questions it
    answers from a passage against the passage being relevant, next to passage length and the
    file's own grader's AUC.  A passage the answerer failed on is left out and counted."""
    kept = [p for p in passages if p.ours is not None]
    labels = [int(p.relevance >= 1) for p in kept]
    ours = [float(p.ours or 0) for p in kept]
    value, ci = auc(labels, ours), auc_interval(labels, ours, seed)
    share = float(np.mean(labels)) if labels else 0.0
    extra: dict[str, float | None] = {
        "failed": float(len(passages) - len(kept)),
        "queries": float(len({p.query_id for p in kept})),
        "relevant passages": float(sum(labels)),
        "majority-class accuracy": max(share, 1 - share) if kept else None,
        "ROC AUC, the file's own grades": auc(labels, [float(p.theirs) for p in kept]),
    }
    length = [float(p.words) for p in kept]
    baselines: dict[str, float | None] = {"passage length": auc(labels, length)}
    about = (f"EXAM++ judged passages ({grades})", licence, f"file:{grades}")
    differences = [d for d in [auc_difference(labels, ours, {"passage length": length}, seed)] if d]
    return _figure(
        "exampp-qrels", len(kept), "ROC AUC", value, ci, CHANCE_AUC, baselines, extra, about, differences
    )


def _points(pairs: Sequence[tuple[float, float]]) -> np.ndarray:
    """1 where a pair's first item scores higher, 0.5 for a tie, 0 otherwise."""
    return np.array([1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs])


def ordered(pairs: Sequence[tuple[float, float]]) -> float:
    """Share of pairs whose first item scores higher (a tie counts half)."""
    return float(_points(pairs).mean())


def pairwise_interval(pairs: Sequence[tuple[float, float]], seed: int = 0) -> tuple[float, float] | None:
    """95% percentile bootstrap interval of :func:`ordered`, resampling pairs."""
    if len(pairs) < 2:
        return None
    points = _points(pairs)
    if np.ptp(points) == 0:  # the bootstrap has nothing to resample: the exact binomial interval
        ci = st.binomtest(int(points.sum()), len(points)).proportion_ci()
        return float(ci.low), float(ci.high)
    res = st.bootstrap((points,), np.mean, n_resamples=RESAMPLES, method="percentile", random_state=seed)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def argument_figure(
    set_id: str,
    pairs: Sequence[ArgumentPair],
    rate: Callable[[list[tuple[str, str, str]]], list[tuple[float | None, list[str], int]]],
    seed: int = 0,
) -> SetFigure:
    """A quality judge on preference pairs, each argument rated once; a pair with an unrated
    argument is left out and counted, never a tie.  Ratings equal to the prompt's worked
    example's are counted for :func:`flags`."""
    items = sorted({(p.topic, p.stance, t) for p in pairs for t in (p.better, p.worse)})
    rated = dict(zip(items, rate(list(items)), strict=True))
    score = {k: v for k, (v, *_) in rated.items() if v is not None}
    matched = sum(rest[0] > 0 for k, (v, _, *rest) in rated.items() if v is not None and rest)
    used = [
        ((p.topic, p.stance, p.better), (p.topic, p.stance, p.worse))
        for p in pairs
        if (p.topic, p.stance, p.better) in score and (p.topic, p.stance, p.worse) in score
    ]
    judged = [(score[a], score[b]) for a, b in used]
    length = [(float(len(a[2].split())), float(len(b[2].split()))) for a, b in used]
    value = ordered(judged) if judged else None
    ci = pairwise_interval(judged, seed) if judged else None
    baselines: dict[str, float | None] = {"longer argument": ordered(length) if length else None}
    values = list(score.values())
    failures = [f for _, fs, *_ in rated.values() for f in fs]
    extra: dict[str, float | None] = {
        "distinct texts": float(len(items)),
        "texts rated": float(len(score)),
        "pairs left out (an argument unrated)": float(len(pairs) - len(used)),
        "replies refused as example copies": float(sum(COPY_ERROR in f for f in failures)),
        MATCH_SHARE: matched / len(score) if score else None,
        "ties": float(sum(a == b for a, b in judged)),
        "share with the commonest rating": max(values.count(v) for v in set(values)) / len(values)
        if values
        else None,
    }
    gap = _points(judged) - _points(length) if judged else np.array([])
    longer = difference(
        "pairwise accuracy", "longer argument", lambda i: float(gap[i].mean()), len(gap), seed
    )
    differences = [longer] if longer else []
    return _figure(
        set_id, len(used), "pairwise accuracy", value, ci, 0.5, baselines, extra, None, differences
    )


def flags(figures: Sequence[SetFigure]) -> list[str]:
    """What a reader must know beyond the verdict: a judge whose ratings mostly equal its
    prompt's worked example's is echoing its prompt (one such reply is allowed: a real judge may
    agree with an example)."""
    return [
        f"{f.title}: {share:.0%} of its ratings equal the prompt's worked example's "
        "(fresh wording, same numbers): it mostly echoes its example"
        for f in figures
        if (share := f.extra.get(MATCH_SHARE)) is not None and share >= MOSTLY
    ]


def sample_arguments(pairs: list[ArgumentPair], n: int | None, seed: int = 0) -> list[ArgumentPair]:
    """The pairs among a seeded sample of ``n`` arguments: the judge rates arguments, so n bounds cost."""
    args = sorted({t for p in pairs for t in (p.better, p.worse)})
    if n is None or n >= len(args):
        return pairs
    keep = {args[i] for i in np.random.default_rng(seed).choice(len(args), size=n, replace=False)}
    return [p for p in pairs if p.better in keep and p.worse in keep]


def sample(pairs: list[Pair], n: int | None, seed: int = 0) -> list[Pair]:
    """A seeded sample of ``n`` items (all when ``n`` is None or larger)."""
    if n is None or n >= len(pairs):
        return pairs
    idx = np.random.default_rng(seed).choice(len(pairs), size=n, replace=False)
    return [pairs[i] for i in sorted(idx)]


def measure(
    profile: JudgeProfile,
    roles: dict[str, tuple[Callable[[list[tuple[str, str]]], list[float | None]], float, str]],
    sets: dict[str, list[Pair]],
    cosine: Callable[[list[tuple[str, str]]], list[float]] | None,
    all_roles: Sequence[str],
    seed: int = 0,
    figures: dict[str, tuple[str, list[SetFigure]]] | None = None,
    variants: dict[str, dict[str, Callable[[list[tuple[str, str]]], list[float | None]]]] | None = None,
) -> JudgeCard:
    """The card: each role in ``roles`` (support scorer, threshold, judge name) on every
    entailment set, each role in ``figures`` as given, every other role not measured here."""
    cards = []
    for role in all_roles:
        if figures and role in figures:
            judge, done = figures[role]
            cards.append(
                RoleCard(role=role, judge=judge, verdict=worst(done), figures=done, flags=flags(done))
            )
        elif role in roles:
            support, threshold, judge = roles[role]
            measured = [
                entailment_figure(set_id, pairs, support, threshold, cosine, seed, (variants or {}).get(role))
                for set_id, pairs in sets.items()
            ]
            cards.append(RoleCard(role=role, judge=judge, verdict=worst(measured), figures=measured))
        else:
            cards.append(
                RoleCard(
                    role=role,
                    judge=judge_name(profile, role),
                    verdict="not measured here",
                    reason=not_measured(role),
                )
            )
    return JudgeCard(
        profile=profile.id,
        created=datetime.now(UTC).strftime("%Y-%m-%d"),
        groundcover=__version__,
        roles=cards,
    )


def similarity_setting(windows: int, guards: bool) -> str:
    """The offline stand-in's setting in words, as its card names it."""
    shape = f"windows of 1-{windows} sentences" if windows else "whole premise"
    return f"{shape}, guards {'on' if guards else 'off'}"


def judge_name(profile: JudgeProfile, role: str) -> str:
    """Which model fills ``role`` in ``profile``, in words (a family's own roles say it themselves)."""
    if role == "entailment":
        spec = profile.entailment
        if spec.kind == "embedding-similarity":
            return f"{spec.kind}: {spec.model} ({similarity_setting(spec.windows, spec.guards)})"
        return f"{spec.kind}: {spec.model}"
    if (declared := family_role(role)) is not None:
        return declared.judge_name(profile)
    return f"LLM: {profile.llm.model}"


# -- the card file: what wrote it, and where a re-run writes ------------------------------

#: the options of ``benchmark judge-card``, in the order its card records them
OPTIONS = (
    "judge_profile", "sets", "argument_sets", "data_dir", "max_pairs", "llm_pairs", "argument_items",
    "exam_grades", "exam_bank", "exam_grader", "exam_licence", "not_measured", "out",
)  # fmt: skip


def command_line(options: Mapping[str, Any]) -> str:
    """The full command that wrote a card, defaults included."""
    import shlex

    words = ["benchmark", "judge-card"]
    for name in OPTIONS:
        value = options.get(name)
        if value is not None and value is not False and not (isinstance(value, int) and value == 0):
            words += [f"--{name.replace('_', '-')}", str(value)]
    return shlex.join(words)


def default_out(profile_id: str, cwd: Path | None = None) -> Path:
    """Where a card goes without ``--out``: the current folder, never the shipped cards
    (replacing one is a decision to name with ``--out``; run from inside their folder, an error)."""
    from benchmark.core.errors import InputError
    from benchmark.models import cards

    out = (cwd or Path.cwd()) / cards.card_path(profile_id).name
    if out.resolve().parent == cards.CARDS_DIR.resolve():
        raise InputError.at(
            "--out",
            f"without --out the card would replace the shipped {out.name}: name the file with --out "
            "to replace it on purpose",
        )
    return out
