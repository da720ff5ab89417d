"""Meta-evaluation statistics against scipy and hand-worked cases; the CLI on fixture results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from benchmark.cli.main import main
from benchmark.core.errors import InputError
from benchmark.metaeval import measures as meta_eval
from tests.helpers.results_fixture import MODELS, QUERIES, write_fixture

X = [0.1, 0.4, 0.35, 0.8, 0.6, None, 0.9, 0.2]
Y = [0.2, 0.5, 0.3, 0.7, 0.65, 0.4, float("nan"), 0.1]


def test_correlations_are_scipys_on_the_pairs_both_have() -> None:
    c = meta_eval.correlate(X, Y)
    a, b = [0.1, 0.4, 0.35, 0.8, 0.6, 0.2], [0.2, 0.5, 0.3, 0.7, 0.65, 0.1]
    assert c.n == 6
    assert (c.pearson, c.pearson_p) == pytest.approx(tuple(st.pearsonr(a, b)))
    assert (c.spearman, c.spearman_p) == pytest.approx(tuple(st.spearmanr(a, b)))
    assert (c.kendall, c.kendall_p) == pytest.approx(tuple(st.kendalltau(a, b)))


def test_undefined_correlations_are_none_not_zero() -> None:
    assert meta_eval.correlate([1.0, 2.0], [1.0, 2.0]).pearson is None  # fewer than 3 pairs
    assert meta_eval.correlate([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).kendall is None  # constant side


def test_mean_and_standard_error() -> None:
    assert meta_eval.mean_and_se([1.0, 2.0, 3.0, None]) == pytest.approx((2.0, 1.0 / np.sqrt(3)))
    assert meta_eval.mean_and_se([0.5]) == (0.5, 0.0) and meta_eval.mean_and_se([None]) == (None, None)


def test_ties_within_a_standard_error_chain_down_the_ranking() -> None:
    # 0.90 vs 0.85: 0.05 < 0.06 tied; 0.85 vs 0.50: apart; 0.50 vs 0.48: 0.02 < 0.05 tied
    assert meta_eval.tie_groups([0.48, 0.9, 0.5, 0.85], [0.05, 0.06, 0.01, 0.02]) == [1, 0, 1, 0]
    assert meta_eval.tie_groups([0.3, 0.2, 0.1], [0.0, 0.0, 0.0]) == [0, 1, 2]


def test_rank_correlation_is_exact_without_ties_and_seeded_with_them() -> None:
    a = {"s1": (0.9, 0.0), "s2": (0.5, 0.0), "s3": (0.1, 0.0), "s4": (0.3, 0.0)}
    same = meta_eval.rank_correlation(a, a)
    assert same.kendall_mean == same.kendall_min == same.kendall_max == 1.0
    reverse = {s: (-m, e) for s, (m, e) in a.items()}
    assert meta_eval.rank_correlation(a, reverse).kendall_mean == -1.0
    # in b, s1 and s2 are tied: random tie-breaking gives τ of 1 or 2/3, reproducibly
    b = {"s1": (0.6, 0.2), "s2": (0.55, 0.1), "s3": (0.1, 0.0), "s4": (0.3, 0.0)}
    r1, r2 = meta_eval.rank_correlation(a, b, seed=3), meta_eval.rank_correlation(a, b, seed=3)
    assert r1 == r2 and r1.repetitions == 10
    assert {round(r1.kendall_min, 6), round(r1.kendall_max, 6)} <= {1.0, round(2 / 3, 6)}
    assert r1.kendall_min < r1.kendall_max  # both orders drawn in 10 repetitions with this seed
    assert meta_eval.rank_correlation(a, {"s1": (1.0, 0.0)}).kendall_mean is None


def test_cli_metric_against_human_judgements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, _ = write_fixture(tmp_path)
    human = tmp_path / "human.csv"
    rows = ["system,query_id,score"]
    for system, scores in MODELS.items():
        for q, v in zip(QUERIES, scores, strict=True):
            rows += [f'"{system}",{q},{v}', f'"{system}",{q},{v}']  # two assessors who agree
    human.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = ["meta-eval", "--metric", "icat:icat_m", "--results-dir", str(results)]
    assert main([*args, "--human", str(human), "--judge-profile", "offline-smollm2-minilm-sim@3"]) == 0
    out = capsys.readouterr().out
    assert "query" in out and "system" in out and "Kendall τ" in out and "leaderboard rank correlation" in out
    # two boards (two judge profiles) are never mixed
    assert main([*args, "--human", str(human)]) == 2
    assert "pick one with --task and --judge-profile" in capsys.readouterr().err


def test_human_file_errors_name_line_and_field(tmp_path: Path) -> None:
    from benchmark.metaeval.systems import read_human

    bad = tmp_path / "h.jsonl"
    bad.write_text(
        "\n".join(
            [
                json.dumps({"system": "a", "query_id": "1", "score": 1}),
                json.dumps({"system": "a", "query_id": "2"}),
                json.dumps({"system": "a", "query_id": "3", "score": "high"}),
            ]
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as exc:
        read_human(bad)
    assert "line 2, field 'score'" in str(exc.value) and "line 3, field 'score'" in str(exc.value)
    good = tmp_path / "h.csv"
    good.write_text("system,query_id,score\na,1,1\na,1,3\n", encoding="utf-8")
    assert read_human(good) == {"a": {"1": [1.0, 3.0]}}


def test_partial_correlation_by_hand() -> None:
    # (0.5 - 0.5·0.5) / sqrt(0.75·0.75) = 1/3; t = (1/3)·sqrt(27 / (8/9)), 27 df
    r, p = meta_eval.partial_correlation(0.5, 0.5, 0.5, 30)
    assert r == pytest.approx(1 / 3)
    assert p == pytest.approx(2 * st.t.sf((1 / 3) * np.sqrt(27 / (8 / 9)), 27))
    assert meta_eval.partial_correlation(0.9, 1.0, 0.9, 30) == (None, None)  # z is x: nothing left


def test_alpha_and_the_length_rater() -> None:
    assert meta_eval.alpha([[1, 2, 3, 3], [1, 2, 3, 3]]) == pytest.approx(1.0)
    assert meta_eval.alpha([[2, 2, 2], [2, 2, 2]]) is None  # no variation: undefined, not 0 or 1
    assert meta_eval.alpha([[1, None], [None, 3]]) is None  # nothing pairable
    assert meta_eval.length_ratings([10, 200, 50, 90, 400, 30], [1, 2, 3]) == [1, 3, 2, 2, 3, 1]


def test_a_judge_that_only_measures_length_is_exposed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Humans rate quality that is independent of length; the judge rates by length."""
    rng = np.random.default_rng(0)
    rows = ["item,text,dimension,rater,rating"]
    for i in range(40):
        words = int(rng.integers(5, 200))
        quality = int(rng.integers(1, 4))
        text = " ".join(["w"] * words)
        for rater in ("h1", "h2"):
            noisy = min(3, max(1, quality + int(rng.integers(-1, 2) if rater == "h2" and i % 5 == 0 else 0)))
            rows.append(f"a{i},{text},overall,{rater},{noisy}")
        rows.append(f"a{i},{text},overall,judge,{1 + min(2, words // 67)}")
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    from benchmark.metaeval.systems import item_lengths, read_ratings

    humans, judged = read_ratings(path, "judge")["overall"]
    a = meta_eval.rater_agreement(humans, judged, item_lengths(path), "overall")
    assert a.items == 40 and a.alpha_humans is not None and a.alpha_humans > 0.8
    assert a.alpha_with_judge < a.alpha_humans  # the judge lowers agreement
    assert abs(a.spearman_judge.spearman - a.spearman_length.spearman) < 0.2  # no better than length
    assert main(["meta-eval", "--ratings", str(path)]) == 0
    out = capsys.readouterr().out
    assert "α humans" in out and "partial ρ judge | length" in out
    with pytest.raises(InputError, match="no ratings by the judge rater 'gpt'"):
        read_ratings(path, "gpt")


def test_ratings_report_pools_every_dimension_into_an_overall_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The overall row treats every (item, dimension) as one unit: its α is Krippendorff's
    α of that pooled matrix, computed here by hand with the ``krippendorff`` package."""
    import krippendorff

    h1 = {
        ("a", "clarity"): 1,
        ("b", "clarity"): 3,
        ("c", "clarity"): 2,
        ("a", "cogency"): 2,
        ("b", "cogency"): 3,
    }
    h2 = {
        ("a", "clarity"): 1,
        ("b", "clarity"): 2,
        ("c", "clarity"): 2,
        ("a", "cogency"): 2,
        ("b", "cogency"): 3,
    }
    h2[("c", "cogency")] = 1
    rows = ["item,text,dimension,rater,rating"]
    for rater, ratings in (("h1", h1), ("h2", h2)):
        rows += [f"{i},{'w ' * (3 + ord(i))},{d},{rater},{v}" for (i, d), v in ratings.items()]
    rows += [f"{i},{'w ' * (3 + ord(i))},{d},judge,2" for i in "abc" for d in ("clarity", "cogency")]
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["meta-eval", "--ratings", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "all dimensions" in ln)
    units = [(i, d) for d in ("clarity", "cogency") for i in "abc"]
    matrix = [[r.get(u, np.nan) for u in units] for r in (h1, h2)]
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    assert f"{expected:.3f}" in line


# -- reference measures: ROUGE-1 against gold articles, trec_eval measures of run files --


def test_rouge1_removes_stopwords_and_stems_before_counting_unigrams() -> None:
    from benchmark.metaeval.reference import rouge1_f1

    assert rouge1_f1("The cats are running in the garden.", "A cat runs through gardens!") == 1.0
    # content words: candidate {cat, dog}, reference {cat, bird, fish}: P 1/2, R 1/3, F 0.4
    assert rouge1_f1("the cat and the dog", "a cat, a bird and a fish") == pytest.approx(0.4)
    assert rouge1_f1("", "a cat") == 0.0


def test_trec_measures_by_hand(tmp_path: Path) -> None:
    from benchmark.metaeval.reference import read_runs, trec_scores

    run = tmp_path / "sys-A.run"
    run.write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d3 2 2.0 a\nq1 Q0 d2 3 1.0 a\n")
    qrels = {"q1": {"d1": 1, "d2": 1, "d4": 0}, "q2": {"d9": 1}}
    runs = read_runs([run])
    assert trec_scores(runs, qrels, "MAP")["sys-A"] == {"q1": pytest.approx((1 + 2 / 3) / 2), "q2": 0.0}
    assert trec_scores(runs, qrels, "P@R")["sys-A"]["q1"] == pytest.approx(0.5)
    ndcg = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert trec_scores(runs, qrels, "nDCG@20")["sys-A"]["q1"] == pytest.approx(ndcg)
    with pytest.raises(InputError, match="unknown trec_eval measure"):
        trec_scores(runs, qrels, "bpref")


def test_meta_eval_against_rouge_and_trec_on_the_published_exam_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    base = ["meta-eval", "--metric", "exam:exam", "--task", "webtrack-2009-2012"]
    assert main([*base, "--against", "rouge1"]) == 0
    out = capsys.readouterr().out
    assert "ROUGE-1 F1 vs gold articles" in out and "Holm" in out and "Kendall" in out
    runs = tmp_path / "runs"
    runs.mkdir()
    # one run file per system, named as its submission folder
    good = "".join(f"175 Q0 gc-starter-175-0{i} {i} {9 - i}.0 x\n" for i in range(1, 9))
    (runs / "groundcover__bm25-extractive-top3.run").write_text(good)
    (runs / "HuggingFaceTB__SmolLM2-135M-Instruct.run").write_text("175 Q0 gc-starter-182-01 1 2.0 x\n")
    (runs / "HuggingFaceTB__SmolLM2-135M-Instruct__rag-bm25-k5.run").write_text(good.splitlines()[0] + "\n")
    (runs / "not-a-published-system.run").write_text(good)
    assert main([*base, "--against", "trec:MAP", "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "exam:exam vs trec:MAP" in out and "over 3 systems" in out


def test_meta_eval_is_a_library_call_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmark.compare_metric`` returns what ``benchmark meta-eval`` prints (issue 38:
    the command only parses and prints), and checks its input as the command does."""
    import benchmark

    found = benchmark.compare_metric("exam:exam", against="exam:n_exam", task="webtrack-2009-2012")
    assert (found.metric, found.other) == ("exam:exam", "exam:n_exam")
    assert set(found.correlations) == {"query", "system"} and found.agreement.systems == len(found.scores)
    assert (
        main(
            ["meta-eval", "--metric", "exam:exam", "--against", "exam:n_exam", "--task", "webtrack-2009-2012"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"over {found.agreement.systems} systems" in out and f"τ {found.agreement.kendall_mean:.3f}" in out
    with pytest.raises(InputError, match="not a family:score"):
        benchmark.compare_metric("exam:nope", against="rouge1")
