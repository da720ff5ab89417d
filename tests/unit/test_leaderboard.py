"""Leaderboard rules: like with like, missing is missing, CI-overlap shares a rank."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchmark.cli.main import main
from leaderboard.build import build_leaderboard, overall_table, shared_ranks
from leaderboard.snapshot import to_html, to_markdown
from tests.helpers.results_fixture import EVIL, OTHER_PROFILE, PROFILE, make_result, write_fixture


def test_shared_ranks_follow_confidence_intervals() -> None:
    v = pd.Series([0.8, 0.5, 0.45, 0.2, None])
    lo = pd.Series([0.76, 0.40, 0.35, 0.17, None])
    hi = pd.Series([0.84, 0.60, 0.55, 0.23, None])
    assert shared_ranks(v, lo, hi).tolist() == [1, 2, 2, 4, pd.NA]
    # without CIs a score is its own interval
    assert shared_ranks(
        pd.Series([0.3, 0.3, 0.1]), pd.Series([None] * 3), pd.Series([None] * 3)
    ).tolist() == [1, 1, 3]


def test_boards_never_mix_profiles(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    lb = build_leaderboard(results, subs)
    icat = lb.tables["icat"]
    assert icat["board"].nunique() == 2
    default = icat[icat["judge_profile"] == f"{PROFILE['name']}@{PROFILE['version']}"]
    assert default.set_index("model")["rank"].to_dict() == {
        "acme/strong": 1,
        "acme/close": 2,
        "beta-lab/mid": 2,
        EVIL: 4,
    }
    other = icat[icat["judge_profile"] == f"{OTHER_PROFILE['name']}@{OTHER_PROFILE['version']}"]
    assert other["model"].tolist() == ["acme/strong"] and other["rank"].tolist() == [1]
    # display metadata comes from validated model cards only
    assert default.set_index("model").loc["beta-lab/mid", "open_weights"] == True  # noqa: E712
    assert default.set_index("model").loc[EVIL, "open_weights"] is None


def test_missing_board_means_no_overall_rank() -> None:
    tables = {
        "icat": pd.DataFrame(
            {
                "judge_profile": ["p"] * 3,
                "board": ["t1", "t1", "t2"],
                "model": ["a", "b", "a"],
                "rank": pd.Series([2, 1, 1], dtype="Int64"),
            }
        )
    }
    ov = overall_table(tables).set_index("model")
    assert ov.loc["a", "mean_rank"] == 1.5 and ov.loc["a", "overall_rank"] == 1
    assert pd.isna(ov.loc["b", "overall_rank"]) and pd.isna(ov.loc["b", "mean_rank"])
    assert ov.loc["b", "missing"] == "t2"


def test_renderings_escape_model_names(tmp_path: Path) -> None:
    results, subs = write_fixture(tmp_path)
    lb = build_leaderboard(results, subs)
    page = to_html(lb)
    assert "<script>window" not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    md = to_markdown(lb)
    assert "<script>" not in md and "&lt;script&gt;" in md


def test_newest_result_wins_and_invalid_files_are_skipped(tmp_path: Path) -> None:
    from benchmark.results import result_path, write_result

    results, subs = write_fixture(tmp_path)
    newer = make_result("acme/close", (0.95, 0.01, 0.9, 0.9), PROFILE)
    newer.run.finished = "2027-01-01T00:00:00+00:00"
    p = result_path(results, newer.model, PROFILE["name"], "webtrack-2009-2012").with_name(
        "webtrack-2009-2012.v2.json"
    )
    write_result(newer, p)
    (results / "broken.json").write_text("{not json")
    lb = build_leaderboard(results, subs)
    default = lb.tables["icat"].query("judge_profile.str.startswith('offline')")
    assert default.set_index("model").loc["acme/close", "icat_s"] == 0.95
    assert any("broken.json" in s for s in lb.skipped)


def test_cli_writes_snapshot(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    results, subs = write_fixture(tmp_path)
    out = tmp_path / "snap"
    md = tmp_path / "comment.md"
    assert (
        main(
            [
                "leaderboard",
                "--results-dir",
                str(results),
                "--submissions-dir",
                str(subs),
                "--out",
                str(out),
                "--markdown",
                str(md),
            ]
        )
        == 0
    )
    assert {p.name for p in out.iterdir()} >= {
        "icat.csv",
        "overall.csv",
        "leaderboard.json",
        "leaderboard.md",
        "index.html",
    }
    assert "acme/strong" in capsys.readouterr().out
    assert "### ICAT" in md.read_text()


def test_space_publish_dry_run_lists_what_would_be_uploaded(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    results, subs = write_fixture(tmp_path)
    (subs / "acme__close" / "secret.env").write_text("TOKEN=1")  # only model cards are staged
    args = ["space", "publish", "--repo-id", "org/board", "--dry-run", "--results-dir", str(results)]
    assert main([*args, "--submissions-dir", str(subs)]) == 0
    out = capsys.readouterr().out
    assert "app.py" in out and "README.md" in out and "requirements.txt" in out
    assert "data/results/acme__strong/main/offline-smollm2-minilm-sim/webtrack-2009-2012.traces.jsonl" in out
    assert "data/submissions/acme__close/model.yaml" in out
    assert "secret.env" not in out
    assert "dry run: nothing uploaded" in out
