"""Cards that cannot flatter: nothing measured is never "at chance", verdicts come from the
interval of the difference to the best baseline (on the ranking and on the decision at the
profile's threshold), a role is its worst set, the card says what command wrote it and a
re-run never replaces a shipped card, and every board carries a ranking line.

No model loads here: the judges are plain functions of the pairs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from benchmark.core.errors import InputError
from benchmark.metaeval import judge_cards
from benchmark.metaeval.human_sets import Pair
from benchmark.models import cards

WORDS = ["apple", "river", "stone", "cloud", "garden", "lamp", "mirror", "candle", "forest", "bridge"]


def _pairs(n: int = 200, seed: int = 0) -> list[Pair]:
    """Pairs whose texts say nothing about the label: every baseline that reads them is blind."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        premise = " ".join(rng.choice(WORDS, 8))
        hypothesis = " ".join(rng.choice(WORDS, 4))
        out.append(Pair(premise, hypothesis, i % 2))
    return out


def test_a_figure_where_every_item_failed_is_not_measured_never_at_chance() -> None:
    pairs = _pairs(40)
    fig = judge_cards.entailment_figure("sick", pairs, lambda ps: [None] * len(ps), 0.5)
    assert fig.n == 0 and fig.verdict == cards.ALL_FAILED
    assert "not measured — all items failed" in fig.line() and "at chance" not in fig.line()
    role = cards.RoleCard(role="entailment", judge="x", verdict="informative", figures=[fig])
    assert role.verdict == cards.ALL_FAILED and role.verdict in cards.WARNINGS
    # a card written before this rule (the shipped v4 card's argument judge: n = 0, "at chance")
    old = fig.model_dump() | {"verdict": "at chance"}
    assert cards.SetFigure.model_validate(old).verdict == cards.ALL_FAILED
    shipped = cards.load_card("offline-smollm2-minilm-sim@4")
    assert shipped is not None
    argument = shipped.role("argument-quality")
    assert argument is not None and argument.verdict == cards.ALL_FAILED


def test_a_point_estimate_above_the_baseline_is_not_enough() -> None:
    """A judge a hair above the best baseline, with an interval of the difference that
    reaches 0, is "no better than a baseline" — the point estimates would call it informative."""
    pairs = _pairs(300)
    rng = np.random.default_rng(1)
    signal = np.array([p.label for p in pairs], dtype=float)
    baseline = signal * 0.6 + rng.random(len(pairs))
    judge = baseline + rng.normal(0, 0.05, len(pairs))  # the baseline, give or take noise

    def cosine(ps: list[tuple[str, str]]) -> list[float]:
        return [float(x) for x in baseline]

    fig = judge_cards.entailment_figure("sick", pairs, lambda ps: [float(x) for x in judge], 0.9, cosine)
    assert fig.value is not None and fig.ci_low is not None and fig.ci_low > 0.5
    key = "ROC AUC − plain cosine"
    assert fig.extra[f"{key}, 95% low"] is not None and fig.extra[f"{key}, 95% low"] <= 0  # type: ignore[operator]
    assert fig.verdict in ("no better than a baseline", "below a baseline")
    assert "plain cosine" in (fig.why or "")
    # seeded: the same figure twice
    again = judge_cards.entailment_figure("sick", pairs, lambda ps: [float(x) for x in judge], 0.9, cosine)
    assert again.extra == fig.extra


def test_the_decision_at_the_threshold_is_judged_too() -> None:
    """A judge that ranks perfectly but, at the profile's threshold, says "supported" to
    everything decides no better than the majority class: below a baseline."""
    pairs = [Pair(p.premise, p.hypothesis, int(i % 4 == 0)) for i, p in enumerate(_pairs(200))]
    fig = judge_cards.entailment_figure(
        "sick", pairs, lambda ps: [0.9 + 0.05 * p.label for p in pairs], threshold=0.5
    )
    assert fig.value == 1.0 and fig.ci_low is not None and fig.ci_low > 0.9
    assert fig.extra["accuracy"] == 0.25 and fig.extra["majority-class accuracy"] == 0.75
    assert fig.verdict == "below a baseline" and "accuracy at the threshold" in (fig.why or "")
    # the same ranking with a threshold between the classes is informative
    good = judge_cards.entailment_figure(
        "sick", pairs, lambda ps: [0.9 + 0.05 * p.label for p in pairs], threshold=0.92
    )
    assert good.verdict == "informative"


def test_a_role_is_its_worst_set_and_its_line_says_so_first() -> None:
    def fig(set_id: str, verdict: cards.Verdict) -> cards.SetFigure:
        return cards.SetFigure(
            set=set_id, title=set_id.upper(), licence="x", n=100, metric="ROC AUC", value=0.9,
            ci_low=0.85, ci_high=0.95, chance=0.5, verdict=verdict,
        )  # fmt: skip

    role = cards.RoleCard.model_validate(
        {
            "role": "entailment",
            "judge": "j",
            "verdict": "informative",  # what an older card file said: the best set's
            "figures": [fig("sick", "informative"), fig("mnli", "no better than a baseline")],
        }
    )
    assert role.verdict == "no better than a baseline"
    assert role.line().startswith("entailment (j): no better than a baseline (worst of its 2 sets)")


def test_the_card_records_its_command_and_a_rerun_never_replaces_a_shipped_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmark.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["judge-card", "--judge-profile", "paper-deberta-llama", "--not-measured", "not here"]) == 0
    written = tmp_path / "paper-deberta-llama-v2.yaml"  # the current folder, not the shipped cards
    assert written.exists()
    card = cards.JudgeCard.model_validate(__import__("yaml").safe_load(written.read_text()))
    assert card.command is not None and "--judge-profile paper-deberta-llama" in card.command
    assert "--not-measured 'not here'" in card.command and "--sets sick,rte" in card.command
    assert written.read_text().startswith(f"# Written by `{card.command}`")
    assert judge_cards.command_line({"judge_profile": "p", "llm_pairs": 100, "argument_items": 40}) == (
        "benchmark judge-card --judge-profile p --llm-pairs 100 --argument-items 40"
    )
    shipped = cards.CARDS_DIR / "paper-deberta-llama-v2.yaml"
    before = shipped.read_bytes()
    with pytest.raises(InputError, match="shipped"):
        judge_cards.default_out("paper-deberta-llama@2", cards.CARDS_DIR)
    assert shipped.read_bytes() == before


def test_every_board_carries_a_ranking_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ranking card of the profile: the line says so (and that DL19's card is EXAM++'s
    grader's); a card whose rankings do not clear the best baseline puts that in the banner."""
    from benchmark.board import trust
    from benchmark.families import REGISTRY

    exam = REGISTRY["exam"]
    # the shipped cards: the offline profile's own DL19 card (its similarity answerer), whose
    # rankings are no better than chance at its default threshold — in the line and the banner
    t = trust.board_trust(exam, "offline-smollm2-minilm-sim@4", exam.primary)
    ranking = [x for x in t.lines if x.startswith("ranking agreement")]
    assert ranking and "similarity answerer, cosine ≥ 0.5" in ranking[0]
    assert "no better than chance at ordering systems" in ranking[0]
    assert (
        t.banner is not None
        and "n-EXAM under offline-smollm2-minilm-sim@4 orders systems no better than chance on TREC DL 2019"
        in t.banner
    )
    assert any(x.startswith("Ranking card (offline-smollm2-minilm-sim@4") for x in trust.trust_text(t))
    from benchmark.board.leaderboard import build_leaderboard
    from benchmark.space.table import Filters, trust_html

    # profile v4's board (now history) is the one with a shipped ranking card
    page = trust_html(
        build_leaderboard(Path("leaderboard/history/offline-smollm2-minilm-sim-v4")), "exam", Filters()
    )
    assert "Ranking card (offline-smollm2-minilm-sim@4" in page and "Judge card (offline" in page
    assert "similarity answerer" in page
    assert not re.search(r"Judge card \([^)]*\): ranking agreement", page)

    folder = tmp_path / "rankings"
    folder.mkdir()
    shipped = (cards.RANKINGS_DIR / "dl19-exampp-flan-t5-large.yaml").read_text(encoding="utf-8")
    monkeypatch.setattr(cards, "RANKINGS_DIR", folder)
    try:
        # a profile without a card of its own: the line says so, and whose the graded file's card is
        (folder / "exampp.yaml").write_text(shipped, encoding="utf-8")
        cards.ranking_lines.cache_clear()
        t = trust.board_trust(exam, "offline-smollm2-minilm-sim@4", exam.primary)
        ranking = [x for x in t.lines if x.startswith("ranking agreement")]
        assert ranking and "not measured for this profile (see docs/meta-evaluation.md)" in ranking[0]
        assert "grader's" in ranking[0] and "flan-t5-large" in ranking[0]
        (folder / "exampp.yaml").unlink()
        weak = shipped.replace("profile: null", "profile: offline-smollm2-minilm-sim@4").replace(
            "    low: 0.07169497770597279", "    low: -0.01"
        )
        (folder / "mine.yaml").write_text(weak, encoding="utf-8")
        cards.ranking_lines.cache_clear()
        t = trust.board_trust(exam, "offline-smollm2-minilm-sim@4", exam.primary)
        assert any("Kendall τ 0.558 [-0.01, 0.62]" in x for x in t.lines)
        assert t.banner is not None and "orders systems no better than chance" in t.banner
        good = shipped.replace("profile: null", "profile: offline-smollm2-minilm-sim@4")
        (folder / "mine.yaml").write_text(good, encoding="utf-8")
        cards.ranking_lines.cache_clear()
        t = trust.board_trust(exam, "offline-smollm2-minilm-sim@4", exam.primary)
        assert any("orders systems better than every trivial baseline" in x for x in t.lines)
    finally:
        cards.ranking_lines.cache_clear()


@pytest.mark.parametrize(
    "verdict",
    ["no better than a baseline", "below a baseline", "at chance", cards.ALL_FAILED, "informative"],
)
def test_a_main_score_judge_that_fails_its_card_raises_the_banner(
    verdict: cards.Verdict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ICAT-M rests on the entailment judge: a card that finds it no better than a baseline
    (or below one, at chance, or unmeasurable) puts a banner on the board, in words; an
    informative one puts none."""
    from benchmark.board import trust
    from benchmark.families import REGISTRY

    card = cards.JudgeCard(
        profile="p@1",
        created="2026-01-01",
        groundcover="0",
        roles=[cards.RoleCard(role="entailment", judge="j", verdict=verdict)],
    )
    monkeypatch.setattr(trust, "load_card", lambda profile_id: card)
    t = trust.board_trust(REGISTRY["icat"], "p@1", "icat_m")
    if verdict == "informative":
        assert t.banner is None
    else:
        assert t.banner is not None and f"its entailment judge, which is {verdict}" in t.banner
        assert t.banner.startswith("Warning: ICAT-M under p@1 relies on")


def test_anli_dev_is_read_in_its_csv_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ANLI's annotated dev rounds: quoted multi-line contexts, e/n/c gold labels, each file
    at its pinned SHA-256; a label outside e/n/c names its file and line."""
    import hashlib

    from benchmark.metaeval import human_sets

    hs = human_sets.SETS["anli-dev"]
    assert hs.source == "github:facebookresearch/anli@b5ce27af54a5" and len(hs.files) == 3
    head = "context,statement,reason,gold_label,uid\n"
    rows = [
        '"A ""quoted"" context,\nover two lines.",It is quoted.,r,e,1\n',
        "Plain context.,Nothing.,r,n,2\n",
    ]
    pinned = []
    for (repo_path, _), row in zip(hs.files, [rows[0], rows[1], rows[1]], strict=True):
        path = tmp_path / "anli-dev" / Path(repo_path).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(head + row, encoding="utf-8")
        pinned.append((repo_path, hashlib.sha256(path.read_bytes()).hexdigest()))
    monkeypatch.setattr(
        human_sets,
        "SETS",
        {**human_sets.SETS, "anli-dev": human_sets.HumanSet(**{**hs.__dict__, "files": tuple(pinned)})},
    )
    pairs = human_sets.load("anli-dev", tmp_path)
    assert [p.label for p in pairs] == [1, 0, 0] and pairs[0].premise.startswith('A "quoted" context,\nover')
    bad = tmp_path / "anli-dev" / Path(hs.files[2][0]).name
    bad.write_text(head + "x,y,r,maybe,3\n", encoding="utf-8")
    pinned[2] = (pinned[2][0], hashlib.sha256(bad.read_bytes()).hexdigest())
    monkeypatch.setattr(
        human_sets,
        "SETS",
        {**human_sets.SETS, "anli-dev": human_sets.HumanSet(**{**hs.__dict__, "files": tuple(pinned)})},
    )
    with pytest.raises(InputError, match=r"ANLI_analysis_r3_dev.csv.*line 2.*gold_label"):
        human_sets.load("anli-dev", tmp_path)
