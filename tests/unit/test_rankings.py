"""Ranking cards (benchmark.metaeval.rankings): EXAM++'s published DL19 leaderboard
correlation reproduced from its stored grades, our figures checked against
autojudge-evaluate's, and the statistics and the command on small boards.

The DL19 figures come from ``tests/fixtures/rankings/dl19_exampp.json``: per run and topic,
EXAM and nDCG@10 derived from EXAM++'s graded file (pinned in
:mod:`benchmark.metaeval.ranking_sets`; numbers only, no passage text or run ranking).
The last test recomputes that fixture from the file itself where a copy can be had
(``$GROUNDCOVER_HOME/human-sets/dl19/``, with ``GROUNDCOVER_TEST_HOME`` naming the home
under pytest, or a download), and is skipped otherwise.
"""

from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
import yaml

from benchmark.cli.main import main
from benchmark.core.errors import InputError
from benchmark.metaeval import ranking_sets, rankings
from tests.helpers.autojudge import require_side_python

FIXTURE = Path(__file__).parents[1] / "fixtures" / "rankings" / "dl19_exampp.json"


@pytest.fixture(scope="module")
def dl19() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _means(board: dict[str, dict[str, float]]) -> dict[str, float]:
    return {s: statistics.mean(v.values()) for s, v in board.items()}


def test_reproduces_exampp_published_dl19_exam_correlation(dl19: dict) -> None:
    """EXAM++ (Farzi & Dietz, ICTIR 2024, online appendix) reports for its DL19 EXAM-cover
    leaderboard (flan-t5-large self-ratings >= 3 on generated questions, each run's top
    20) Spearman 0.72 and Kendall 0.54 against the official TREC leaderboard, and for
    n-EXAM 0.67 and 0.48.  From the stored grades, EXAM gives 0.719 / 0.535 (0.72 / 0.54 as
    printed); n-EXAM 0.675 / 0.486 (printed: 0.67 / 0.48, so Kendall is 0.006 off: the
    appendix's per-run table differs from the file in the third decimal for some runs,
    e.g. idst_bert_p1 0.702 there, 0.698 here)."""
    official = dl19["official_leaderboard"]["ranks"]
    exam = _means(dl19["exam"])
    rho, tau = rankings.leaderboard_correlation(exam, official)
    assert round(rho, 2) == dl19["published"]["exam"]["spearman"]
    assert round(tau, 2) == dl19["published"]["exam"]["kendall"]
    share = dl19["answerable_share"]
    n_exam = {s: statistics.mean(v / share[q] for q, v in per.items()) for s, per in dl19["exam"].items()}
    rho, tau = rankings.leaderboard_correlation(n_exam, official)
    assert round(rho, 2) == dl19["published"]["n_exam"]["spearman"]
    assert abs(tau - dl19["published"]["n_exam"]["kendall"]) < 0.01
    assert exam["TUW19-p3-f"] == pytest.approx(0.726, abs=5e-4)  # the appendix's top EXAM run


@pytest.mark.parametrize("table", ["cover", "qrels"])
def test_reproduces_rubric_published_dl20_correlations_from_its_tables(table: str) -> None:
    """DL20: the graded file is not reachable from here, so the check is one step later —
    RUBRIC's published per-run DL20 leaderboards (EXAM cover and autograde-qrels P@20, six
    grader settings each, 59 runs) give the Spearman and Kendall they print (e.g. question
    cover >= 3: 0.953 / 0.824; qrels question >= 5: 0.972 / 0.872), to within 0.003: the
    tables round each run's score to three decimals, which ties runs (most where scores crowd
    near 1: nugget cover >= 3, 0.251 for the printed 0.253)."""
    fix = json.loads((FIXTURE.parent / "dl20_rubric_tables.json").read_text(encoding="utf-8"))
    for setting, col in fix[table].items():
        rho, tau = rankings.leaderboard_correlation(col["scores"], fix["official_rank"])
        assert rho == pytest.approx(col["published"]["spearman"], abs=3e-3), setting
        assert tau == pytest.approx(col["published"]["kendall"], abs=3e-3), setting


def test_reproduces_exampp_published_car_y3_correlation_from_its_table() -> None:
    """TREC CAR Y3, the EXAM paper's collection: the graded file is not reachable from here,
    so the check is one step later — EXAM++'s published per-run CAR Y3 leaderboard (29 runs,
    16 with an official TREC rank) gives the Spearman 0.869 and Kendall 0.687 it prints, for
    EXAM and n-EXAM alike (n-EXAM divides every run by the same normaliser)."""
    fix = json.loads((FIXTURE.parent / "car_y3_exampp_table.json").read_text(encoding="utf-8"))
    official = fix["official_rank"]
    assert len(official) == 16
    for measure in ("exam", "n_exam"):
        scores = {s: v for s, v in fix[measure].items() if s in official}
        rho, tau = rankings.leaderboard_correlation(scores, official)
        assert round(rho, 3) == fix["published"]["spearman"][measure]
        assert round(tau, 3) == fix["published"]["kendall"][measure]


def test_human_leaderboard_is_the_official_one(dl19: dict) -> None:
    """nDCG@10 rebuilt from the file's judged passages orders the runs as TREC did (one
    adjacent swap), and TUA1-1's 0.7314 is trec_eval's official figure."""
    ndcg = _means(dl19["ndcg@10"])
    rho, tau = rankings.leaderboard_correlation(ndcg, dl19["official_leaderboard"]["ranks"])
    assert rho > 0.999 and tau > 0.99
    assert ndcg["TUA1-1"] == pytest.approx(0.7314, abs=5e-5)


def test_figures_match_autojudge_evaluate(dl19: dict) -> None:
    """Kendall and Spearman equal autojudge-evaluate's on the same leaderboards (its
    figures, computed with the package, are stored in the fixture); ties between runs
    with the same per-topic scores stay ties whatever order addition took.  Without
    autojudge-evaluate, τ_AP is not measured and says so."""
    ref = dl19["autojudge_evaluate"]
    a = rankings.agreement("EXAM", dl19["exam"], dl19["ndcg@10"], resamples=20)
    assert (a.systems, a.topics) == (ref["systems"], ref["topics"])
    assert a.kendall.value == pytest.approx(ref["kendall"], abs=1e-12)
    assert a.spearman.value == pytest.approx(ref["spearman"], abs=1e-12)
    assert a.tau_ap.value is None and "autojudge-evaluate" in (a.tau_ap_note or "")


def test_tau_ap_is_autojudge_evaluates_own(dl19: dict) -> None:
    """τ_AP-b from autojudge-evaluate itself, run in the side environment set-up builds
    (``.ajvenv``; skipped without it, a failure under CI), equals the figure the package
    gave on the same leaderboards."""
    provider = rankings.tau_ap_provider(str(require_side_python()))
    assert provider is not None
    b = rankings.agreement("EXAM", dl19["exam"], dl19["ndcg@10"], resamples=20, tau_ap=provider)
    assert b.tau_ap.value == pytest.approx(dl19["autojudge_evaluate"]["tauap_b"], abs=1e-12)
    assert b.tau_ap.low is not None and b.tau_ap.high is not None  # the bootstrap's τ_AP too


def _board(scores: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {s: {f"t{i}": v for i, v in enumerate(vals)} for s, vals in scores.items()}


HUMAN = _board({f"s{i}": [i + 0.1 * j for j in range(6)] for i in range(6)})


def test_agreement_on_identical_and_reversed_boards() -> None:
    same = rankings.agreement("same", HUMAN, HUMAN, k=3, resamples=50)
    one = pytest.approx(1.0)
    assert same.kendall.value == one and same.spearman.value == one
    assert same.top_k.value == one and same.per_topic_kendall.value == one
    assert same.kendall.low == one and same.kendall.high == one
    flipped = rankings.agreement(
        "flip", {s: {t: -v for t, v in per.items()} for s, per in HUMAN.items()}, HUMAN, k=3
    )
    assert flipped.kendall.value == pytest.approx(-1.0) and flipped.top_k.value == 0.0
    assert flipped.per_topic_kendall.value == pytest.approx(-1.0)


def test_agreement_uses_only_shared_systems_and_topics() -> None:
    auto = {s: dict(per) for s, per in HUMAN.items() if s != "s0"}
    auto["s1"].pop("t5")
    auto["extra"] = {"t0": 1.0}
    a = rankings.agreement("auto", auto, HUMAN, resamples=10)
    assert (a.systems, a.topics) == (5, 5)
    with pytest.raises(InputError, match="common systems"):
        rankings.agreement("few", {"s0": HUMAN["s0"]}, HUMAN)


def test_top_k_overlap() -> None:
    import numpy as np

    assert rankings.top_k_overlap(np.array([3.0, 2, 1, 0]), np.array([3.0, 1, 2, 0]), 2) == 0.5
    assert rankings.top_k_overlap(np.array([3.0, 2, 1]), np.array([1.0, 2, 3]), 10) == pytest.approx(1.0)


def test_verdict_is_decided_on_the_interval() -> None:
    good = rankings.agreement("judge", HUMAN, HUMAN, resamples=20)
    noise = _board({f"s{i}": [(i * 7 + j * 3) % 5 for j in range(6)] for i in range(6)})
    weak = rankings.agreement("noise", noise, HUMAN, resamples=50)
    assert "better than every trivial baseline" in rankings.verdict(good, [weak])
    assert "not better than the trivial baseline 'judge'" in rankings.verdict(weak, [good]) or (
        "no better than chance" in rankings.verdict(weak, [good])
    )


def test_tau_ap_takes_the_human_leaderboard_as_truth() -> None:
    """Every pair handed to autojudge-evaluate's ``tauap_b`` (the point and each bootstrap
    draw) is (human means, automatic means), the order its meta-evaluate uses: a one-sided
    τ_AP weighs swaps near the top of the first order (autojudge-evaluate 1.1.0 averages
    both directions, so today the figure would not show a swap; this test does).  The
    automatic board is the human one reversed, so the two cannot be mistaken for each other."""
    seen: list[tuple[list[float], list[float]]] = []

    def recording(pairs: list[tuple[list[float], list[float]]]) -> list[float]:
        seen.extend(pairs)
        return [0.0] * len(pairs)

    reversed_ = {s: {t: -v for t, v in per.items()} for s, per in HUMAN.items()}
    rankings.agreement("auto", reversed_, HUMAN, resamples=30, tau_ap=recording)
    assert len(seen) == 31
    for truth, auto in seen:  # systems s0 .. s5: the human means rise, the automatic ones fall
        assert truth == sorted(truth) and auto == sorted(auto, reverse=True)


def test_topic_bootstraps_are_paired_across_both_boards() -> None:
    """Six systems whose order changes from topic to topic, judged exactly as the humans
    judged them: every resample draws the same topics for both boards, so every figure is 1
    in every draw and each interval is [1, 1]; topics drawn apart for each board would make
    two different orders of the same systems."""
    rng = np.random.default_rng(0)
    crossing = {f"s{i}": {f"t{j}": float(rng.random()) for j in range(8)} for i in range(6)}
    same = rankings.agreement("same", crossing, crossing, k=3, resamples=100)
    for fig in (same.kendall, same.spearman, same.top_k, same.per_topic_kendall):
        assert (fig.value, fig.low, fig.high) == pytest.approx((1.0, 1.0, 1.0))


def _agreement(name: str, tau: float, low: float, high: float) -> rankings.Agreement:
    fig = rankings.Figure(tau, low, high)
    return rankings.Agreement(name, 10, 20, fig, fig, rankings.Figure(None), fig, fig, 10)


def test_a_ranking_verdict_is_decided_on_the_interval_against_the_strongest_baseline() -> None:
    """Baselines at 0.2, 0.5 and 0.3 (the strongest neither first nor last): a judge at 0.6
    whose interval reaches down to 0.45 does not beat the 0.5 one — by its point it would,
    and against the weaker ones it would; one whose interval starts at 0.55 does; one whose
    interval reaches 0 is no better than chance.  A board's ranking line reads the card by
    the same rule."""
    from benchmark.models.cards import _ranking_line

    baselines = [_agreement("length", 0.2, 0.1, 0.3), _agreement("kept", 0.5, 0.4, 0.6)]
    baselines.append(_agreement("overlap", 0.3, 0.2, 0.4))
    close = _agreement("judge", 0.6, 0.45, 0.75)
    assert rankings.verdict(close, baselines).startswith("not better than the trivial baseline 'kept'")
    clear = _agreement("judge", 0.6, 0.55, 0.65)
    assert rankings.verdict(clear, baselines).startswith("orders systems better than every trivial baseline")
    assert rankings.verdict(_agreement("judge", 0.6, -0.01, 0.9), baselines).startswith(
        "no better than chance"
    )
    for judge, beats in ((close, False), (clear, True)):
        card = rankings.card({"id": "x", "title": "X"}, judge, baselines, "benchmark …", 1.0)
        line = _ranking_line(card)
        assert line is not None and (line.baseline, line.baseline_tau) == ("kept", 0.5)
        assert line.beats_baseline is beats


def test_human_ndcg_keeps_an_unjudged_passage_at_its_rank() -> None:
    """EXAM++'s files leave out the passages nobody judged; trec_eval counts such a passage
    as non-relevant at its own rank.  Run r ranks an unjudged passage first and the one
    relevant passage second: nDCG@10 = (1 / log2 3) / 1, not 1 as if the relevant one were
    first (run s, which ranks it first, gets 1)."""
    from benchmark.families.exam.exampp import GradedParagraph

    relevant = GradedParagraph("q1", "p-rel", "text", (("r", 2), ("s", 1)), 1, ())
    other = GradedParagraph("q1", "p-non", "text", (("s", 2),), 0, ())
    board = rankings.human_leaderboard([relevant, other])
    assert board["s"]["q1"] == pytest.approx(1.0)
    assert board["r"]["q1"] == pytest.approx(1 / np.log2(3))


def _graded_file(path: Path) -> Path:
    """A small EXAM++ graded file: three topics, four runs whose top 3 differ, a grader
    whose self-ratings follow the NIST grade, so EXAM orders runs as nDCG@10 does."""
    rows = []
    for t in ("q1", "q2", "q3"):
        paras = []
        for d in range(8):
            relevance = 3 if d < 2 else 1 if d < 4 else 0
            rankings_ = [
                {
                    "method": f"run{r}",
                    "paragraphId": f"{t}-{d}",
                    "queryId": t,
                    "rank": d - 2 * r + 1,
                    "score": 1.0,
                }
                for r in range(4)
                if 1 <= d - 2 * r + 1 <= 3
            ]
            ratings = [
                {"question_id": f"{t}/Q{i}", "self_rating": 5 if i == d and d < 4 else 0} for i in range(4)
            ]
            paras.append(
                {
                    "paragraph_id": f"{t}-{d}",
                    "text": " ".join(["word"] * (5 + d)),
                    "paragraph_data": {
                        "judgments": [
                            {"paragraphId": f"{t}-{d}", "query": t, "relevance": relevance, "titleQuery": t}
                        ],
                        "rankings": rankings_,
                    },
                    "exam_grades": [
                        {
                            "correctAnswered": [],
                            "wrongAnswered": [],
                            "answers": [[r["question_id"], "x"] for r in ratings],
                            "llm": "google/flan-t5-large",
                            "llm_options": {},
                            "prompt_info": {"prompt_class": "QuestionSelfRatedUnanswerablePromptWithChoices"},
                            "self_ratings": ratings,
                            "prompt_type": "question",
                        }
                    ],
                }
            )
        rows.append([t, paras])
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return path


def test_command_prints_and_writes_a_ranking_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grades = _graded_file(tmp_path / "graded.jsonl.gz")
    out = tmp_path / "card.yaml"
    code = main(
        ["meta-eval", "rankings", "--grades", str(grades), "--min-rating", "4", "--resamples", "30",
         "--card-out", str(out)]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "Kendall τ" in printed and "baseline: passage length" in printed
    card = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert card["kind"] == "ranking-card" and card["command"].startswith("benchmark meta-eval rankings")
    assert "--min-rating 4" in card["command"] and "--resamples 30" in card["command"]
    assert card["resamples"] == 30
    assert card["judge"]["systems"] == 4 and card["judge"]["topics"] == 3
    assert card["judge"]["kendall"]["value"] == pytest.approx(1.0)
    assert list(card["judge"]["leaderboard"]) == ["run0", "run1", "run2", "run3"]
    assert {b["name"].split(" (")[0] for b in card["baselines"]} == {
        "passage length",
        "passages kept in the top 20",
    }
    assert card["verdict"].startswith("orders systems better")


def test_a_graded_file_without_min_rating_is_counted_with_the_one_default_and_says_so(tmp_path: Path) -> None:
    """No --min-rating: the family's own default (exam: 4, the one `exam score-grades` and the
    exam setting count with), resolved, named in every label and in the card's command; the
    same figures as with it given.  A grader without self-ratings is named as counted:
    correctAnswered (never "self-rating ≥ None")."""
    from benchmark.cli.main import build_parser
    from benchmark.families.exam.formulas import DEFAULT_MIN_RATING

    grades = _graded_file(tmp_path / "graded.jsonl.gz")
    given = rankings.run(
        rankings.RankingOptions(grades=str(grades), min_rating=DEFAULT_MIN_RATING, resamples=20)
    )
    implied = rankings.run(rankings.RankingOptions(grades=str(grades), resamples=20))
    assert implied.options.min_rating == implied.set_info["min_rating"] == DEFAULT_MIN_RATING
    assert f"--min-rating {DEFAULT_MIN_RATING}" in implied.card()["command"]
    assert (
        implied.judge.name == given.judge.name
        and f"self-rating ≥ {DEFAULT_MIN_RATING})" in implied.judge.name
    )
    assert implied.judge.kendall == given.judge.kendall
    score_grades = build_parser().parse_args(["exam", "score-grades", "--grades", str(grades)])
    assert score_grades.min_rating == DEFAULT_MIN_RATING

    plain = tmp_path / "plain.jsonl.gz"
    with gzip.open(grades, "rt", encoding="utf-8") as fh:
        rows = [json.loads(x) for x in fh]
    for _, paras in rows:
        for p in paras:
            (g,) = p["exam_grades"]
            g["correctAnswered"] = [r["question_id"] for r in g.pop("self_ratings") if r["self_rating"] == 5]
    with gzip.open(plain, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    counted = rankings.run(rankings.RankingOptions(grades=str(plain), resamples=20))
    assert counted.judge.name.endswith("question-bank, correctAnswered)"), counted.judge.name


def test_unknown_set_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no ranking set 'dl99'"):
        ranking_sets.fetch("dl99", tmp_path)
    with pytest.raises(InputError, match="no copy of TREC DL 2019"):
        ranking_sets.fetch("dl19", tmp_path)


def test_fixture_is_what_the_pinned_file_gives(dl19: dict) -> None:
    from benchmark.families.exam.exampp import graders, read_grades

    try:
        path = ranking_sets.fetch("dl19")
    except InputError as exc:
        pytest.skip(f"the pinned DL19 file is not here and cannot be downloaded: {exc}")
    paragraphs = read_grades(path)
    (grader,) = graders(paragraphs)
    assert grader == dl19["grader"]
    exam, _ = rankings.exam_boards(paragraphs, grader, dl19["min_rating"], dl19["rank_cutoff"])
    human = rankings.human_leaderboard(paragraphs)
    for name, board in (("exam", exam), ("ndcg@10", human)):
        assert {s: {t: round(v, 6) for t, v in per.items()} for s, per in board.items()} == dl19[name]


def test_a_file_with_two_graders_needs_one_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _graded_file(tmp_path / "graded.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    rows[0][1][0]["exam_grades"].append({**rows[0][1][0]["exam_grades"][0], "llm": "other/model"})
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    assert main(["meta-eval", "rankings", "--grades", str(path), "--resamples", "5"]) != 0
    assert "holds 2 graders: name one" in capsys.readouterr().err
    assert (
        main(
            [
                "meta-eval",
                "rankings",
                "--grades",
                str(path),
                "--grader",
                "google/flan-t5-large",
                "--resamples",
                "5",
            ]
        )
        == 0
    )


class _Reader:
    """An answerer for the aggregation test: a rating per (question, text) from a table; a
    text marked 'FAIL' fails every reading, as a reply copied from the prompt's example."""

    def __init__(self, ratings: dict[tuple[str, str], int]) -> None:
        self.identity = {"answerer": "table"}
        self.ratings = ratings
        self.asked: list[tuple[str, str]] = []

    def read(self, items):  # type: ignore[no-untyped-def]
        from benchmark.families.exam.judges import Reading

        out = []
        for q, text in items:
            self.asked.append((q.question_id, text))
            if text == "FAIL":
                out.append(Reading(error="rating: the reply reproduces the prompt's worked example"))
            else:
                r = self.ratings.get((q.question_id, text), 0)
                out.append(Reading(rating=r, answered=r >= 3))
        return out


def test_regrading_with_a_profiles_answerer_leaves_failures_out() -> None:
    """Grading a file again (``--judge-profile``): only paragraphs a run ranked within the
    cut-off on the chosen topics are read; EXAM per run and topic is the share of the bank's
    questions its top paragraphs answer; a run whose top holds a paragraph the answerer failed
    on has no value for that topic (left out and counted, never read as answering nothing)."""
    from benchmark.families.exam.bank import ExamQuestion
    from benchmark.families.exam.exampp import GradedParagraph
    from benchmark.families.exam.graded_boards import regrade

    bank = {
        t: [ExamQuestion(t, f"{t}/q{i}", f"question {i}?", "free-text") for i in range(4)]
        for t in ("t1", "t2")
    }

    def para(pid: str, topic: str, text: str, ranks: tuple[tuple[str, int], ...]) -> GradedParagraph:
        return GradedParagraph(topic, pid, text, ranks, 1, ())

    paragraphs = [
        para("p1", "t1", "answers q0 q1", (("A", 1), ("B", 2))),
        para("p2", "t1", "answers q2", (("B", 1), ("C", 5))),
        para("p3", "t1", "FAIL", (("C", 1),)),
        para("p4", "t1", "deep", (("A", 30),)),
        para("p5", "t2", "other topic", (("A", 1),)),
    ]
    reader = _Reader(
        {("t1/q0", "answers q0 q1"): 5, ("t1/q1", "answers q0 q1"): 3, ("t1/q2", "answers q2"): 4}
    )
    done = regrade(paragraphs, bank, reader, "mine", topics=["t1"], min_rating=3, rank_cutoff=2)
    assert {text for _, text in reader.asked} == {"answers q0 q1", "answers q2", "FAIL"}
    assert done.exam == {"A": {"t1": 0.5}, "B": {"t1": 0.75}}
    assert done.cells_left_out == 1  # C's top two holds p3 only, which failed
    assert done.readings == 12 and done.failed_readings == 4
    assert list(done.failures.values()) == [4]
    assert done.n_exam["B"]["t1"] == pytest.approx(0.75 / 0.75)
    # with a deeper cut-off C ranks p2 too, and its cell is left out because of p3
    done = regrade(paragraphs, bank, reader, "mine", topics=["t1"], min_rating=3, rank_cutoff=5)
    assert "t1" not in done.exam.get("C", {}) and done.cells_left_out == 1
    assert done.exam["A"] == {"t1": 0.5}


def test_regrading_with_an_answerer_that_does_not_self_rate_counts_its_verdicts() -> None:
    """An answerer without self-ratings (the similarity or entailment answerer) gives verdicts
    only: EXAM counts them, and so does n-EXAM's normaliser (the share of the topic's questions
    any graded paragraph answers) — counting ratings there would find none and make every
    n-EXAM 0 (it did, before the normaliser counted as EXAM does)."""
    from benchmark.families.exam.bank import ExamQuestion
    from benchmark.families.exam.exampp import GradedParagraph
    from benchmark.families.exam.graded_boards import regrade
    from benchmark.families.exam.judges import Reading

    class Verdicts:
        identity: ClassVar[dict[str, str]] = {"answerer": "verdicts"}

        def read(self, items):  # type: ignore[no-untyped-def]
            return [
                Reading(answered=q.question_id in text, correct=q.question_id in text) for q, text in items
            ]

    bank = {"t1": [ExamQuestion("t1", f"t1/q{i}", f"question {i}?", "free-text") for i in range(4)]}
    paragraphs = [
        GradedParagraph("t1", "p1", "t1/q0 t1/q1", (("A", 1),), 1, ()),
        GradedParagraph("t1", "p2", "t1/q2", (("B", 1),), 1, ()),
    ]
    done = regrade(paragraphs, bank, Verdicts(), "mine", topics=["t1"], min_rating=3, rank_cutoff=1)
    assert done.exam == {"A": {"t1": 0.5}, "B": {"t1": 0.25}}
    # three of the four questions are answered somewhere: n-EXAM = EXAM / 0.75
    assert done.n_exam["A"]["t1"] == pytest.approx(0.5 / 0.75)
    assert done.n_exam["B"]["t1"] == pytest.approx(0.25 / 0.75)


def test_n_exam_of_a_regraded_file_keeps_the_topic_normaliser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file graded again by a profile's answerer (``--judge-profile``): its n-EXAM board
    divides each topic's EXAM by the share of the bank's questions any read paragraph of the
    topic answers (here 3 of 4), never the EXAM board again."""
    from types import SimpleNamespace

    from benchmark.families import REGISTRY
    from benchmark.families.base import Regrading, hook
    from benchmark.families.exam import graded_boards
    from benchmark.families.exam.judges import Reading

    class Verdicts:
        identity: ClassVar[dict[str, str]] = {"answerer": "verdicts"}

        def read(self, items):  # type: ignore[no-untyped-def]
            return [
                Reading(answered=q.question_id in text, correct=q.question_id in text) for q, text in items
            ]

    bank = tmp_path / "bank.jsonl"
    bank.write_text(
        "".join(
            json.dumps({"query_id": "t1", "qid": f"t1/q{i}", "question": f"Q{i}?"}) + "\n" for i in range(4)
        )
    )
    graded = tmp_path / "graded.jsonl"
    paras = [
        {"paragraph_id": pid, "text": text, "paragraph_data": {"judgments": [], "rankings": [
            {"method": system, "paragraphId": pid, "queryId": "t1", "rank": 1, "score": 1.0}]}}
        for pid, text, system in (("p1", "t1/q0 t1/q1", "A"), ("p2", "t1/q2", "B"))
    ]  # fmt: skip
    graded.write_text(json.dumps(["t1", paras]) + "\n")
    monkeypatch.setattr(graded_boards, "make_answerer", lambda judges, settings: Verdicts())
    judges = SimpleNamespace(profile=SimpleNamespace(id="p"))
    got = hook(REGISTRY["exam"], "graded_leaderboards")(
        graded,
        grader=None,
        min_rating=3,
        rank_cutoff=1,
        regrade=Regrading(judges, bank, answerer="similarity"),
    )
    assert got is not None
    (exam_label, exam), (n_label, n_exam) = got.boards.items()
    assert exam_label.startswith("EXAM ") and n_label.startswith("n-EXAM ")
    assert exam == {"A": {"t1": 0.5}, "B": {"t1": 0.25}}
    assert n_exam == {"A": {"t1": pytest.approx(0.5 / 0.75)}, "B": {"t1": pytest.approx(0.25 / 0.75)}}
