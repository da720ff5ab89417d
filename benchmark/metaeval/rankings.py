"""Ranking cards: does a judge order *systems* as people do?

Two leaderboards of the same systems are compared on the systems' means over the shared
topics (Kendall's τ, Spearman's ρ, τ_AP from ``autojudge-evaluate``, top-k overlap, per-topic
τ), each with a bootstrap interval over topics, next to trivial baselines measured the same
way (docs/meta-evaluation.md, Ranking cards).
"""

from __future__ import annotations

import functools
import json
import math
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchmark.core.errors import InputError, rel

#: system -> topic -> score
Board = Mapping[str, Mapping[str, float]]

RESAMPLES = 1000
TOP_K = 10
LEVEL = 0.95
HUMAN_MEASURE = "nDCG@10"
AUTOJUDGE = "autojudge-evaluate (autojudge_evaluate.pyircore.tauap_b)"


# -- leaderboards from a graded-runs file -------------------------------------------------


def _ranked(paragraphs: Iterable[Any], rank_cutoff: int) -> dict[tuple[str, str], list[tuple[int, Any]]]:
    """(system, topic) -> [(rank, paragraph)] within the cut-off, best first."""
    out: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    for p in paragraphs:
        for method, rank in p.rankings:
            if rank <= rank_cutoff:
                out.setdefault((method, p.query_id), []).append((rank, p))
    for v in out.values():
        v.sort(key=lambda x: x[0])
    return out


def human_leaderboard(paragraphs: Sequence[Any], depth: int = 10) -> dict[str, dict[str, float]]:
    """nDCG@``depth`` per system and topic from the file's NIST grades (``ir_measures``).  A
    rank the file does not record (an unjudged passage) gets a placeholder no qrel grades, so
    the passages below keep their positions, as trec_eval counts them."""
    import ir_measures
    from ir_measures import Qrel, ScoredDoc, nDCG

    qrels = [
        Qrel(p.query_id, p.paragraph_id, int(p.relevance)) for p in paragraphs if p.relevance is not None
    ]
    if not qrels:
        raise InputError.at("--grades", "the file holds no judged passages (judgments[].relevance)")
    run = []
    for (system, topic), ranked in _ranked(paragraphs, 10**9).items():
        first = ranked[0][0] if ranked[0][0] in (0, 1) else 1  # some runs count ranks from 0
        seen = {r for r, _ in ranked}
        docs = [(r, p.paragraph_id) for r, p in ranked] + [
            (r, f"(unjudged rank {r})") for r in range(first, first + depth) if r not in seen
        ]
        run += [ScoredDoc(f"{system}\x1f{topic}", doc, -float(r)) for r, doc in docs]
    # one pseudo-query per (system, topic), so every run is measured in one call
    by_topic: dict[str, list[Qrel]] = {}
    for q in qrels:
        by_topic.setdefault(q.query_id, []).append(q)
    pseudo = [
        Qrel(key, q.doc_id, q.relevance)
        for key in {d.query_id for d in run}
        for q in by_topic.get(key.split("\x1f")[1], [])
    ]
    out: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc([nDCG @ depth], pseudo, run):
        system, topic = m.query_id.split("\x1f")
        out.setdefault(system, {})[topic] = float(m.value)
    return out


def _baseline(paragraphs: Sequence[Any], rank_cutoff: int, stat: Callable[[list[Any]], float]) -> Board:
    """A trivial baseline: ``stat`` of each system's passages within the cut-off, per topic."""
    out: dict[str, dict[str, float]] = {}
    for (system, topic), ranked in _ranked(paragraphs, rank_cutoff).items():
        out.setdefault(system, {})[topic] = float(stat([p for _, p in ranked]))
    return out


# -- τ_AP from autojudge-evaluate -------------------------------------------------------

_TAU_AP_SCRIPT = (
    "import importlib.util as u,json,os,sys\n"
    "spec=u.find_spec('autojudge_evaluate')\n"
    "path=os.path.join(spec.submodule_search_locations[0],'pyircore.py')\n"
    "m=u.module_from_spec(u.spec_from_file_location('pyircore',path))\n"
    "m.__spec__.loader.exec_module(m)\n"
    "json.dump([float(m.tauap_b(a,b)) for a,b in json.load(sys.stdin)],sys.stdout)\n"
)


def _local_tauap_b() -> Callable[[Sequence[float], Sequence[float]], float] | None:
    """autojudge-evaluate's ``tauap_b`` if installed here, loaded from its module file: the
    package's ``__init__`` imports its whole command line (tira, nltk data)."""
    import importlib.util

    spec = importlib.util.find_spec("autojudge_evaluate")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0]) / "pyircore.py"
    mod_spec = importlib.util.spec_from_file_location("autojudge_evaluate_pyircore", path)
    if mod_spec is None or mod_spec.loader is None:
        return None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module.tauap_b  # type: ignore[no-any-return]


def tau_ap_provider(
    python: str | None = None,
) -> Callable[[list[tuple[list[float], list[float]]]], list[float]] | None:
    """τ_AP-b (truth first) for many pairs of score vectors at once, from ``autojudge-evaluate``:
    imported when installed here, else run in ``python`` (it pulls in tira and matplotlib, so it
    is not a groundcover dependency); None when neither is available."""
    if (tauap_b := _local_tauap_b()) is not None:
        return lambda pairs: [float(tauap_b(a, b)) for a, b in pairs]
    if not (python := python or os.environ.get("GROUNDCOVER_AUTOJUDGE_PYTHON")):
        return None

    def run(pairs: list[tuple[list[float], list[float]]]) -> list[float]:
        done = subprocess.run(
            [python, "-c", _TAU_AP_SCRIPT],
            input=json.dumps(pairs),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise InputError.at(
                python,
                f"autojudge-evaluate's tauap_b failed: {done.stderr.strip()[-300:]}",
                field="--autojudge-python",
            )
        return [float(v) for v in json.loads(done.stdout)]

    return run


# -- agreement --------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass
class Agreement:
    """One automatic leaderboard against the human one, on the same systems and topics."""

    name: str
    systems: int
    topics: int
    kendall: Figure
    spearman: Figure
    tau_ap: Figure
    top_k: Figure
    per_topic_kendall: Figure
    k: int
    tau_ap_note: str | None = None
    means: dict[str, float] = field(default_factory=dict)


def _matrix(board: Board, systems: Sequence[str], topics: Sequence[str]) -> np.ndarray:
    return np.array([[float(board[s][t]) for t in topics] for s in systems])


#: means are rounded to this many decimals before they are ranked: two systems with the same
#: per-topic scores in another order must tie, whatever order floating-point addition took
TIE_DECIMALS = 12


def _means(m: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
    return np.round((m if columns is None else m[:, columns]).mean(axis=1), TIE_DECIMALS)


def common(auto: Board, human: Board) -> tuple[list[str], list[str]]:
    """The systems on both boards, and the topics every one of them has on both."""
    systems = sorted(set(auto) & set(human))
    topic_sets = [set(auto[s]) & set(human[s]) for s in systems]
    topics = sorted(set.intersection(*topic_sets)) if topic_sets else []
    return systems, topics


def _corr(name: str, a: np.ndarray, b: np.ndarray) -> float:
    """``scipy.stats``' ``name`` (kendalltau, spearmanr) of two score vectors; NaN where one is constant."""
    from scipy import stats

    return math.nan if np.ptp(a) == 0 or np.ptp(b) == 0 else float(getattr(stats, name)(a, b).statistic)


_kendall = functools.partial(_corr, "kendalltau")


def top_k_overlap(auto: np.ndarray, human: np.ndarray, k: int) -> float:
    """Share of the human top ``k`` in the automatic top ``k`` (ties at the boundary broken
    by position, i.e. by system name, the same way on both sides)."""
    k = min(k, len(auto))
    top = lambda x: set(np.argsort(-x, kind="stable")[:k].tolist())  # noqa: E731
    return len(top(auto) & top(human)) / k


def _interval(values: Sequence[float]) -> tuple[float | None, float | None]:
    v = np.asarray([x for x in values if not math.isnan(x)])
    if v.size == 0:
        return None, None
    tail = (1 - LEVEL) / 2 * 100
    return float(np.percentile(v, tail)), float(np.percentile(v, 100 - tail))


def _nanmean(x: np.ndarray) -> float:
    """Mean over the topics where τ is defined (NaN when it is defined on none)."""
    kept = x[~np.isnan(x)]
    return float(kept.mean()) if kept.size else math.nan


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def agreement(
    name: str,
    auto: Board,
    human: Board,
    *,
    k: int = TOP_K,
    resamples: int = RESAMPLES,
    seed: int = 0,
    tau_ap: Callable[[list[tuple[list[float], list[float]]]], list[float]] | None = None,
) -> Agreement:
    """How far ``auto`` orders the systems as ``human`` does, with bootstrap intervals over
    topics (the same resampled topic sets for every figure and every board: same ``seed``)."""
    systems, topics = common(auto, human)
    if len(systems) < 3 or not topics:
        raise InputError.at(
            name, f"{len(systems)} common systems on {len(topics)} common topics: need 3 and 1"
        )
    a, h = _matrix(auto, systems, topics), _matrix(human, systems, topics)
    ma, mh = _means(a), _means(h)
    per_topic = np.array([_kendall(a[:, j], h[:, j]) for j in range(len(topics))])
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(topics), len(topics)) for _ in range(resamples)]
    boot_means = [(_means(a, d), _means(h, d)) for d in draws]

    def fig(stat: Callable[[np.ndarray, np.ndarray], float]) -> Figure:
        lo, hi = _interval([stat(x, y) for x, y in boot_means])
        return Figure(_num(stat(ma, mh)), lo, hi)

    note = None
    if tau_ap is None:
        tap = Figure(None)
        note = f"not measured: {AUTOJUDGE} is not installed here (give --autojudge-python)"
    else:
        # truth first, as autojudge-evaluate's meta-evaluate passes them (its tauap_b averages
        # τ_AP over both directions; a one-sided τ_AP weighs the first order's top)
        values = tau_ap([(mh.tolist(), ma.tolist())] + [(y.tolist(), x.tolist()) for x, y in boot_means])
        lo, hi = _interval(values[1:])
        tap = Figure(values[0], lo, hi)
    pt_lo, pt_hi = _interval([_nanmean(per_topic[d]) for d in draws])
    return Agreement(
        name=name,
        systems=len(systems),
        topics=len(topics),
        kendall=fig(_kendall),
        spearman=fig(functools.partial(_corr, "spearmanr")),
        tau_ap=tap,
        top_k=fig(lambda x, y: top_k_overlap(x, y, k)),
        per_topic_kendall=Figure(_num(_nanmean(per_topic)), pt_lo, pt_hi),
        k=min(k, len(systems)),
        tau_ap_note=note,
        means=dict(zip(systems, ma.tolist(), strict=True)),
    )


def leaderboard_correlation(
    scores: Mapping[str, float], official_rank: Mapping[str, float]
) -> tuple[float, float]:
    """Spearman's ρ and Kendall's τ between a leaderboard's scores and official ranks (ties
    allowed), as EXAM++'s ``leaderboard_rank_correlation`` reports them."""
    from scipy import stats

    if missing := sorted(set(official_rank) - set(scores)):
        raise InputError.at("leaderboard", f"official systems without a score: {', '.join(missing)}")
    systems = list(official_rank)
    ranks = stats.rankdata([-round(scores[s], TIE_DECIMALS) for s in systems], method="average")
    official = [official_rank[s] for s in systems]
    return float(stats.spearmanr(official, ranks).statistic), float(
        stats.kendalltau(official, ranks).statistic
    )


# -- the card ---------------------------------------------------------------------------


def verdict(judge: Agreement, baselines: Sequence[Agreement]) -> str:
    """Plain words: the judge's Kendall τ against the best trivial baseline's, decided on the
    judge's interval (its lower end must clear the baseline's point)."""
    if judge.kendall.value is None or judge.kendall.low is None:
        return "not measured"
    scored = [b for b in baselines if b.kendall.value is not None]
    best = max(scored, key=lambda b: b.kendall.value or 0.0, default=None)
    if judge.kendall.low <= 0:
        return "no better than chance: its Kendall τ interval reaches 0"
    if best is not None and judge.kendall.low <= (best.kendall.value or 0.0):
        return (
            f"not better than the trivial baseline '{best.name}' (Kendall τ {best.kendall.value:.3f}): "
            f"the judge's interval [{judge.kendall.low:.3f}, {judge.kendall.high:.3f}] reaches it"
        )
    return "orders systems better than every trivial baseline (Kendall τ interval above the best baseline)"


def card(
    set_info: Mapping[str, Any],
    judge: Agreement,
    baselines: Sequence[Agreement],
    command: str,
    seconds: float,
    extra: Sequence[Agreement] = (),
    resamples: int = RESAMPLES,
    family: str | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """A ranking card as plain data; ``family`` and ``profile`` say whose leaderboard it is (a
    card from a graded file's own grader has no profile, so no board takes it as its profile's)."""
    from benchmark.core.version import __version__

    return {
        "kind": "ranking-card",
        "created": datetime.now(UTC).strftime("%Y-%m-%d"),
        "groundcover": __version__,
        "family": family,
        "profile": profile,
        "command": command,
        "seconds": round(seconds, 1),
        "set": dict(set_info),
        "human_leaderboard": f"{HUMAN_MEASURE} from the NIST grades (ir_measures)",
        "resamples": resamples,
        "judge": _row(judge),
        "other_judge_measures": [_row(a) for a in extra],
        "baselines": [_row(b) for b in baselines],
        "verdict": verdict(judge, baselines),
    }


def _row(a: Agreement) -> dict[str, Any]:
    row = asdict(a)
    row.pop("means")
    row["leaderboard"] = dict(sorted(a.means.items(), key=lambda kv: -kv[1]))
    return row


# -- a ranking card's run (``benchmark meta-eval rankings``; the command line parses its flags) --


@dataclass(frozen=True)
class RankingOptions:
    """The options of ``benchmark meta-eval rankings`` (``set_id`` is ``--set``; ``grades``
    replaces it; ``min_rating`` None: the set's published setting, else the family's default)."""

    set_id: str = "dl19"
    grades: str | None = None
    data_dir: str | None = None
    grader: str | None = None
    family: str | None = None
    min_rating: int | None = None
    rank_cutoff: int = 20
    top_k: int = TOP_K
    resamples: int = RESAMPLES
    seed: int = 0
    autojudge_python: str | None = None
    #: grade the runs again with this judge profile's own judge instead of the file's grader
    judge_profile: str | None = None
    #: with ``judge_profile``: the first N topics of the file only (a stated subset)
    topics: int | None = None
    #: with ``judge_profile`` and ``grades``: the question bank the file's grader was asked
    bank: str | None = None
    #: with ``judge_profile``: the family's reader of the questions (exam: entailment | llm |
    #: similarity); None: the family's choice for the bank
    answerer: str | None = None


#: the options of a ranking card's command, as the card records them
OPTIONS = (
    "set", "grades", "data_dir", "grader", "family", "min_rating", "rank_cutoff", "top_k", "resamples", "seed",
    "autojudge_python", "judge_profile", "topics", "bank", "answerer",
)  # fmt: skip


def command_line(options: RankingOptions) -> str:
    """The full command that reproduces a card, defaults included."""
    import shlex

    words = ["benchmark", "meta-eval", "rankings"]
    for name in OPTIONS:
        value = getattr(options, "set_id" if name == "set" else name)
        if value is not None and not (name == "set" and options.grades):
            words += [f"--{name.replace('_', '-')}", str(value)]
    return shlex.join(words)


def default_min_rating(family: Any) -> int | None:
    """The family's own least self-rating, so a graded file counts alike whichever command reads it."""
    return getattr(family.settings_model(), "min_rating", None)


def graded_family(name: str | None) -> Any:
    """The registered family that reads graded-runs files (``--family`` names one where several do)."""
    from benchmark.families import REGISTRY
    from benchmark.families.base import hook

    readers = [f for f in REGISTRY.values() if hook(f, "graded_leaderboards")]
    if name:
        readers = [f for f in readers if f.id == name]
    if len(readers) != 1:
        known = ", ".join(f.id for f in readers) or "none"
        raise InputError.at("--family", f"name the family that reads graded-runs files (they are: {known})")
    return readers[0]


@dataclass(frozen=True)
class RankingRun:
    """A ranking card's figures, its set and its options as run."""

    options: RankingOptions
    set_info: dict[str, Any]
    judge: Agreement
    other: list[Agreement]
    baselines: list[Agreement]
    seconds: float
    #: the family whose leaderboards these are (a ranking card's board)
    family: str | None = None
    #: the judge profile whose own judge graded the runs (``--judge-profile``); None: the file's grader
    profile: str | None = None

    @property
    def title(self) -> str:
        return (
            f"Ranking agreement with the human leaderboard ({HUMAN_MEASURE}, NIST grades) on "
            f"{self.set_info.get('title', self.set_info['source'])}; 95% bootstrap intervals over topics"
        )

    @property
    def verdict(self) -> str:
        return verdict(self.judge, self.baselines)

    def card(self) -> dict[str, Any]:
        """The ranking card (YAML-ready)."""
        return card(
            self.set_info,
            self.judge,
            self.baselines,
            command_line(self.options),
            self.seconds,
            self.other,
            self.options.resamples,
            family=self.family,
            profile=self.profile,
        )


def run(options: RankingOptions) -> RankingRun:
    """Measure a ranking card: the family's leaderboards and the human one from the set (or
    the graded file), each measured against the human one on the same resampled topics."""
    from benchmark.families.base import hook
    from benchmark.metaeval import ranking_sets

    started = time.perf_counter()
    family = graded_family(options.family)
    if options.grades:
        path = Path(options.grades)
        set_info: dict[str, Any] = {"id": "file", "source": f"file:{rel(path)}"}
        default_rating, relevant_from = default_min_rating(family), 1
    else:
        path = ranking_sets.fetch(options.set_id, Path(options.data_dir) if options.data_dir else None)
        rs = ranking_sets.SETS[options.set_id]
        set_info = {key: getattr(rs, key) for key in ("id", "title", "source", "sha256", "licence")}
        default_rating, relevant_from = rs.min_rating, rs.relevant_from
    min_rating = options.min_rating if options.min_rating is not None else default_rating
    options = replace(options, min_rating=min_rating)  # the card's command names the setting it ran
    graded = hook(family, "graded_leaderboards")(
        path,
        grader=options.grader,
        min_rating=min_rating,
        rank_cutoff=options.rank_cutoff,
        regrade=_regrading(options),
    )
    assert graded is not None  # graded_family() picks a family that reads graded files
    grader, paragraphs = graded.grader, graded.paragraphs
    if graded.regraded is not None:
        set_info["regraded"] = graded.regraded
        if not options.grades:
            set_info["title"] = ranking_sets.SETS[options.set_id].regraded_title
        if not any(graded.boards[next(iter(graded.boards))].values()):
            raise InputError.at(
                f"--judge-profile {options.judge_profile}",
                f"not measured — all items failed: {graded.regraded['failed_readings']} of "
                f"{graded.regraded['readings']} readings failed ({graded.regraded['failures']})",
            )
    (first, exam), *rest = graded.boards.items()
    human = human_leaderboard(paragraphs)
    tau_ap = tau_ap_provider(options.autojudge_python)
    kw = {"k": options.top_k, "resamples": options.resamples, "seed": options.seed, "tau_ap": tau_ap}
    judge = agreement(first, exam, human, **kw)
    other = [agreement(label, board, human, **kw) for label, board in rest]
    cutoff = options.rank_cutoff
    baselines = [
        agreement(label, _baseline(paragraphs, cutoff, stat), human, **kw)
        for label, stat in [
            (
                f"passage length (words, top {cutoff})",
                lambda ps: statistics.mean(len(p.text.split()) for p in ps),
            ),
            (f"passages kept in the top {cutoff} (judged ones)", len),
        ]
    ]
    seconds = time.perf_counter() - started
    set_info.update({"grader": grader, "min_rating": min_rating, "relevant_from": relevant_from})
    profile = _regrading(options, load=False)
    return RankingRun(options, set_info, judge, other, baselines, seconds, family=family.id, profile=profile)


def _regrading(options: RankingOptions, *, load: bool = True) -> Any:
    """With ``--judge-profile``: what the family needs to grade the file again (without ``load``, its id)."""
    if not options.judge_profile:
        return None
    from benchmark.families.base import Regrading
    from benchmark.judging.stack import JudgeStack
    from benchmark.metaeval import ranking_sets
    from benchmark.models.profiles import load_profile

    profile = load_profile(options.judge_profile)
    if not load:
        return profile.id
    if options.bank:
        bank = Path(options.bank)
    elif options.grades:
        raise InputError.at(
            "--bank", "grading a --grades file again needs the question bank its grader was asked"
        )
    else:
        bank = ranking_sets.fetch(
            options.set_id, Path(options.data_dir) if options.data_dir else None, bank=True
        )
    return Regrading(JudgeStack.load(profile), bank, options.topics, options.answerer)


def write_card(measured: RankingRun, out: str | Path) -> Path:
    """Write ``measured``'s ranking card (YAML) to ``out``; returns the path."""
    return write_yaml(measured.card(), out)


def write_yaml(card: Mapping[str, Any], out: str | os.PathLike[str]) -> Path:
    import yaml

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        yaml.safe_dump(dict(card), sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )
    return path
