"""Every rendering of a board says what its paired test can tell apart (issue 52, item 5): the
terminal board, the Markdown of the pull-request comment, the static page and the snapshot's
CSV and JSON, from one computation (:func:`benchmark.board.pairs.power_columns`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
from rich.console import Console

from benchmark.board.leaderboard import build_leaderboard
from benchmark.board.pairs import board_pairs, power_line
from benchmark.board.render import print_leaderboard, to_html, to_markdown, write_snapshot
from benchmark.core.power import board_power, detectable_difference
from benchmark.core.stats import ALPHA, ranks_of
from tests.helpers.results_fixture import write_fixture


def test_every_rendering_carries_the_board_power(tmp_path: Path) -> None:
    lb = build_leaderboard(*write_fixture(tmp_path))
    icat = lb.tables["icat"]
    board = icat[icat["judge_profile"] == "offline-smollm2-minilm-sim@3"]
    row = board.iloc[0]
    cmp = lb.comparisons[str(row["board_id"])]
    bp = board_power(cmp)
    assert bp is not None and bp.models == 6 and bp.level == ALPHA / 5 and bp.n == 12
    assert row["detectable"] == bp.detectable == detectable_difference(bp.sd, 12, ALPHA / 5)
    # the fixture's pairs: strong beats all by 0.3 on every query (SD 0: detected); close and
    # mid differ by ±0.1 in alternation, a mean of 0 that nothing could detect
    pairs = {(p.a, p.b): p for p in board_pairs(cmp, list(board["model"]))}
    assert not pairs[("acme/strong", "acme/close")].below_detectable
    assert pairs[("acme/close", "beta-lab/mid")].below_detectable
    assert int(row["pairs_below_detectable"]) == sum(p.below_detectable for p in pairs.values())
    # a pair is significant exactly where its board ranks the two apart
    ranks = ranks_of(cmp)
    for (a, b), p in pairs.items():
        assert p.a_better == (ranks[b] > ranks[a]), (a, b)

    line = power_line(row, "ICAT-M")
    assert line is not None and f"ICAT-M of {bp.detectable:.3f} or more with 80% power" in line
    assert f"{int(row['pairs_below_detectable'])} of 15 pairs differ by less" in line

    console = Console(width=400, record=True)
    print_leaderboard(lb, console)
    assert line in console.export_text().replace("\n", " ")
    assert "Power: on 12 queries" in to_markdown(lb)  # the pull-request comment
    assert "Power: on 12 queries" in to_html(lb)
    written = write_snapshot(lb, tmp_path / "snapshot")
    csv = pd.read_csv(next(p for p in written if p.name == "icat.csv"))
    mine = csv[csv["board_id"] == row["board_id"]]
    assert len(mine) == len(board) and mine["detectable"].notna().all()
    assert (mine["pairs_below_detectable"] == row["pairs_below_detectable"]).all()
    snapshot = json.loads((tmp_path / "snapshot" / "leaderboard.json").read_text(encoding="utf-8"))
    first = snapshot["families"]["icat"][0]
    assert math.isclose(first["detectable"], float(icat.iloc[0]["detectable"]))
    # a board of one model compares nothing: no line
    lone = icat[icat["judge_profile"] == "paper-deberta-llama@2"].iloc[0]
    assert power_line(lone, "ICAT-M") is None


def test_a_board_too_small_for_its_level_says_so() -> None:
    row = {
        "detectable": math.inf,
        "detectable_sd": 0.1,
        "detectable_n": 5,
        "detectable_level": 0.05,
        "detectable_models": 2,
        "pairs_below_detectable": 1,
    }
    line = power_line(row, "S")
    assert line is not None and "cannot tell any two entries apart" in line


def test_a_spoofing_name_is_refused_and_said_in_every_rendering(tmp_path: Path) -> None:
    """A right-to-left override in a result's model id would print what follows it reversed in
    the terminal, the pull-request comment and the static page: the result is refused by the
    name rule every door applies (listed as skipped, the character named), and no rendering
    holds the character."""
    from tests.helpers.results_fixture import write_hostile_fixture

    lb = build_leaderboard(*write_hostile_fixture(tmp_path))
    assert not any("txt.exe" in e.model_label for e in lb.entries)
    (skipped,) = [s for s in lb.skipped if "mallory" in s]
    assert "not a valid result file" in skipped and "U+202E" in skipped
    console = Console(width=400, record=True)
    print_leaderboard(lb, console)
    for text in (console.export_text(), to_markdown(lb), to_html(lb)):
        assert "\u202e" not in text
