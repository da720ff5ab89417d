"""Releases of the board of record, cut from result files: entries, history, refusals, canary.

Results are built through the real schema and statistics (:mod:`tests.helpers.results_fixture`)
and released into a folder laid out as the results dataset; the jobs that score them and
push the releases run end to end in tests/integration/test_hosted_board.py.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy import stats

from benchmark.board import releases
from benchmark.board.roles import load_board, role_profile
from benchmark.core.errors import InputError
from tests.helpers.release_fixture import CANARY, JUDGE, VALUES, canary_dataset, cut, scored


def test_a_release_holds_one_entry_per_model_revision_and_keeps_the_history(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    first = tmp_path / "job1"
    one = cut(dataset, first, *(scored(first, m, v, JUDGE) for m, v in VALUES.items()))
    assert one is not None and one.number == 1 and len(one.entries) == 3
    # the endpoint recorded in each result's profile is not published; the profile file neither
    published = "".join(
        p.read_text() for p in (dataset / "releases" / "1").rglob("*") if p.is_file() and p.suffix != ".png"
    )
    assert (
        "10.0.0.7" not in published
    )  # the endpoint recorded in the results' profile and releases.REDACTED in published
    assert (dataset / releases.CHANGELOG).read_text().count("\n") == 1

    # the same folder again (approved, then merged): nothing new to publish
    assert cut(dataset, first, scored(first, "acme/mid", VALUES["acme/mid"], JUDGE)) is None

    # a re-submission of acme/mid at the same revision replaces its entry; a new revision of
    # beta/weak is a new entry; a deleted submission leaves
    second = tmp_path / "job2"
    better = [min(1.0, v + 0.2) for v in VALUES["acme/mid"]]
    two = cut(
        dataset,
        second,
        scored(second, "acme/mid", better, JUDGE),
        scored(second, "beta/weak", VALUES["beta/weak"], JUDGE, revision="v2"),
        removed=["acme__strong"],
    )
    assert two is not None and two.number == 2
    assert sorted((e.model, e.revision, e.scored) for e in two.entries) == [
        ("acme/mid", "main", 2),
        ("beta/weak", "main", 1),
        ("beta/weak", "v2", 2),
    ]
    assert sorted((h.model, h.scored, h.until, h.why) for h in two.history) == [
        ("acme/mid", 1, 2, "re-submitted"),
        ("acme/strong", 1, 2, "submission deleted"),
    ]
    tables = dataset / "releases" / "2" / "tables"
    (latest,) = tables.glob("icat.*.latest.csv")
    (history,) = tables.glob("icat.*.history.csv")
    latest_rows = pd.read_csv(latest)
    assert sorted(zip(latest_rows["model_id"], latest_rows["revision"], strict=True)) == [
        ("acme/mid", "main"),
        ("beta/weak", "v2"),
    ]
    hist = pd.read_csv(history)
    mid = hist[hist["model"] == "acme/mid"].sort_values("scored_in_release")
    assert list(mid["status"]) == ["re-submitted (left in release 2)", "on the board"]
    assert mid["value"].iloc[1] > mid["value"].iloc[0]
    assert "submission deleted (left in release 2)" in set(hist["status"])
    # the carried-over entry's files come from the release that scored it; the folders of
    # the board's entries travel with the release (the canary re-scores from them)
    assert (dataset / "releases" / "2" / "submissions" / "beta__weak" / "model.yaml").is_file()
    assert not (dataset / "releases" / "2" / "submissions" / "acme__strong").exists()


def test_an_incomplete_result_or_another_judges_is_never_released(tmp_path: Path) -> None:
    dataset, job = tmp_path / "dataset", tmp_path / "job"
    incomplete = scored(
        job,
        "acme/mid",
        VALUES["acme/mid"],
        JUDGE,
        incomplete=["icat_m: judge unreachable on 3 of 12 queries"],
    )
    with pytest.raises(InputError, match="incomplete, not published: icat_m: judge unreachable"):
        cut(dataset, job, incomplete)
    other = tmp_path / "other"
    with pytest.raises(InputError, match="judged by canary-x@1, not by this release's record-x@1"):
        cut(dataset, other, scored(other, "acme/mid", VALUES["acme/mid"], CANARY))
    assert releases.numbers(dataset) == [] and not (dataset / "releases" / "1").exists()


def test_a_canary_is_compared_with_the_release_by_rank_changes_and_kendall_tau(tmp_path: Path) -> None:
    dataset, job = tmp_path / "dataset", tmp_path / "job"
    cut(dataset, job, *(scored(job, m, v, JUDGE) for m, v in VALUES.items()))
    canary = tmp_path / "canary"
    swapped = {
        "acme/strong": VALUES["beta/weak"],
        "acme/mid": VALUES["acme/mid"],
        "beta/weak": VALUES["acme/strong"],
    }
    items = [scored(canary, m, v, CANARY) for m, v in swapped.items()]
    candidate = cut(
        dataset, canary, *items, kind="candidate", judge="canary-x@1", role="canary", compares_to=1
    )
    assert candidate is not None and candidate.kind == "candidate" and candidate.history == []
    found = releases.read_comparison(dataset, 2)
    assert found is not None and (found.current, found.candidate) == (1, 2)
    (board,) = found.boards
    assert "record-x" not in board.board and "canary-x" not in board.board  # the same board under both judges
    moves = {m.model: m for m in board.entries}
    assert (moves["acme/strong"].place_before, moves["acme/strong"].place_after) == (1, 3)
    assert (moves["beta/weak"].place_before, moves["beta/weak"].place_after) == (3, 1)
    assert moves["acme/mid"].moved == 0 and moves["acme/strong"].moved == -2
    means = {m: sum(v) / len(v) for m, v in VALUES.items()}
    after = {m: sum(v) / len(v) for m, v in swapped.items()}
    models = sorted(means)
    want = stats.kendalltau([means[m] for m in models], [after[m] for m in models]).statistic
    assert board.kendall_tau == pytest.approx(want) == pytest.approx(-1.0)
    text = found.markdown()
    assert "Kendall τ between the boards: -1.000" in text and "2 of 3 entries moved" in text


def test_a_candidate_that_misses_what_was_published_after_it_is_not_promoted(tmp_path: Path) -> None:
    dataset = canary_dataset(tmp_path)
    assert releases.unseen_since(dataset, 2) is None  # it re-scored the board as it is
    later = tmp_path / "later"
    cut(dataset, later, scored(later, "delta/new", VALUES["acme/mid"], JUDGE))
    gap = releases.unseen_since(dataset, 2)
    assert gap == "release 2 does not show what release 3 (record-x@1) has since: delta__new/main/closed-book"


def test_the_shipped_board_declares_two_roles_whose_profiles_match(tmp_path: Path) -> None:
    board = load_board()
    check, record = role_profile(board, "pipeline_check"), role_profile(board, "judge_of_record")
    assert check.offline and not record.offline and board.canary is None
    assert record.llm.backend == "openai" and record.llm.revision and len(record.llm.revision) == 40
    bad = tmp_path / "board.yaml"
    bad.write_text(
        yaml.safe_dump(
            {**board.model_dump(mode="json"), "judge_of_record": {"profile": record.name, "version": "9"}}
        )
    )
    with pytest.raises(InputError, match=r"board\.yaml, field 'judge_of_record\.version'.*is version '1'"):
        role_profile(load_board(bad), "judge_of_record", bad)
    bad.write_text(
        yaml.safe_dump({**board.model_dump(mode="json"), "canary": board.judge_of_record.model_dump()})
    )
    with pytest.raises(InputError, match="the canary is the judge of record already"):
        load_board(bad)
    bad.write_text("pipeline_check: {profile: x, version: '1'}\njudges: {}\n")
    with pytest.raises(InputError, match=r"board\.yaml, line 2, field 'judges'"):
        load_board(bad)


def test_the_space_shows_a_pinned_candidate_beside_the_release_and_nothing_without_one(
    tmp_path: Path,
) -> None:
    import gradio as gr

    from benchmark.board.results_dataset import Located, Pin
    from benchmark.space import releases as space_releases

    dataset = canary_dataset(tmp_path)
    pin = Pin(repo="org/results", revision="a" * 40, release=1, candidate=2)
    where = Located(tmp_path / "r", tmp_path / "s", "release 1", pin, dataset)
    found = space_releases.comparison(where)
    assert found is not None and found == releases.read_comparison(dataset, 2)
    assert (
        space_releases.comparison(
            Located(tmp_path, tmp_path, "x", pin.model_copy(update={"candidate": None}), dataset)
        )
        is None
    )
    with gr.Blocks() as demo, gr.Tabs():
        space_releases.canary_tab(found)
        space_releases.canary_tab(None)
    config = demo.get_config_file()
    tabs = [c["props"].get("label") for c in config["components"] if c["type"] == "tabitem"]
    assert tabs == ["Canary"]
    (frame,) = [c["props"]["value"] for c in config["components"] if c["type"] == "dataframe"]
    assert frame["headers"][:3] == ["model", "place before", "place after"]
    assert sorted(row[0] for row in frame["data"]) == sorted([*VALUES, "gamma/x"])


def test_symbolic_links_are_never_published(tmp_path: Path) -> None:
    """A link among an entry's result files and one in its submission folder point at a
    file outside both (named like the files a release takes): neither, nor what it points
    at, is in the release; the real files beside them are."""
    secret = tmp_path / "outside" / "secret.json"
    secret.parent.mkdir()
    secret.write_text('{"secret": "not for the Hub"}', encoding="utf-8")
    job = tmp_path / "job"
    item = scored(job, "acme/mid", VALUES["acme/mid"], JUDGE)
    (result,) = (job / "results").rglob("*.icat.json")
    (result.parent / "linked.json").symlink_to(secret)
    (result.parent / "linked.traces.jsonl").symlink_to(secret)
    (item.folder / "linked.jsonl").symlink_to(secret)
    assert cut(tmp_path / "dataset", job, item) is not None
    release = tmp_path / "dataset" / "releases" / "1"
    names = {p.name for p in release.rglob("*")}
    assert result.name in names and "model.yaml" in names
    assert not {"linked.json", "linked.traces.jsonl", "linked.jsonl"} & names
    assert not [
        p for p in release.rglob("*") if p.is_file() and "not for the Hub" in p.read_text(errors="replace")
    ]
