"""The Space reads the release its pin names, at the pinned commit of the results dataset.

The Hub is stood in for by a folder laid out as huggingface_hub's cache
(``datasets--org--name/snapshots/<commit>/…``), which is what a download leaves; the read
side is huggingface_hub's own ``snapshot_download`` in offline mode on that folder.  The
releases themselves are cut and pushed by the submission workflow (tests/unit/test_releases.py,
tests/integration/test_hosted_board.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pandas as pd
import pytest
import yaml
from huggingface_hub import constants

from benchmark.board import results_dataset
from benchmark.board.leaderboard import build_leaderboard
from benchmark.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "leaderboard" / "results"
CARDS = ROOT / "submissions"
REPO = "groundcover-bench/results"


def hub_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, revision: str) -> Path:
    """An empty snapshot folder of the dataset at ``revision`` in an offline Hub cache."""
    cache = tmp_path / "hub-cache"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    snapshot = cache / f"datasets--{REPO.replace('/', '--')}" / "snapshots" / revision
    snapshot.mkdir(parents=True)
    return snapshot


def _board(results: Path, cards: Path) -> pd.DataFrame:
    lb = build_leaderboard(results, cards)
    # the only results left off are those the failure policy holds back, never an unreadable one
    assert all("incomplete" in s for s in lb.skipped)
    frames = [t.assign(family=fid) for fid, t in lb.tables.items()]
    return pd.concat(frames).drop(columns=["path"], errors="ignore").reset_index(drop=True)


def test_the_pinned_release_is_read_at_the_pin_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = "c" * 40
    release = hub_snapshot(tmp_path, monkeypatch, revision) / "releases" / "3"
    shutil.copytree(PUBLISHED, release / "results")
    for card in CARDS.glob("*/model.yaml"):
        (release / "submissions" / card.parent.name).mkdir(parents=True)
        shutil.copyfile(card, release / "submissions" / card.parent.name / "model.yaml")
    manifest = {"number": 3, "kind": "release", "created": "2026-11-27T00:00:00+00:00", "judge": "offline-smollm2-minilm-sim@4",
                "role": "judge of record", "groundcover": None, "changelog": "release 3", "entries": []}  # fmt: skip
    (release / "release.yaml").write_text(yaml.safe_dump(manifest))

    pin_file = tmp_path / "results.yaml"
    pin = results_dataset.Pin(repo=REPO, revision=revision, release=3)
    results_dataset.write_pin(pin_file, pin)
    assert results_dataset.read_pin(pin_file) == pin
    where = results_dataset.locate(pin_file, tmp_path / "no-local-copy", tmp_path / "no-cards")
    assert where.pin == pin and where.results == release / "results"
    assert (
        where.source
        == f"release 3 of hf://datasets/{REPO}@ccccccc, judge of record offline-smollm2-minilm-sim@4"
    )
    pd.testing.assert_frame_equal(_board(where.results, where.submissions), _board(PUBLISHED, CARDS))


def test_an_unreadable_pin_shows_no_board_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never another set of results in its place: the local copy is the pipeline check's."""
    hub_snapshot(tmp_path, monkeypatch, "c" * 40)  # the dataset is there, release 4 is not
    pin_file = tmp_path / "results.yaml"
    for pin in (
        results_dataset.Pin(repo=REPO, revision="0" * 40, release=1),
        results_dataset.Pin(repo=REPO, revision="c" * 40, release=4),
    ):
        results_dataset.write_pin(pin_file, pin)
        where = results_dataset.locate(pin_file, PUBLISHED, CARDS)
        assert where.results != PUBLISHED and not build_leaderboard(where.results, where.submissions).entries
        assert where.source.startswith(f"no board: {pin.label} could not be read")
    assert results_dataset.locate(tmp_path / "absent.yaml", PUBLISHED, CARDS).source.startswith("local copy")


@pytest.mark.parametrize(
    "text",
    [
        "repo: groundcover-bench/results\nrevision: main\nrelease: 1\n",  # a branch moves: only a commit pins
        "repo: ../../etc\nrevision: " + "a" * 40 + "\nrelease: 1\n",
        "repo: a/b\nrevision: " + "a" * 40 + "\n",  # which release?
        "repo: a/b\nrevision: " + "a" * 40 + "\nrelease: 1\nextra: 1\n",
        "repo: [unclosed\n",
    ],
)
def test_a_bad_pin_is_named(tmp_path: Path, text: str) -> None:
    pin_file = tmp_path / "results.yaml"
    pin_file.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"results\.yaml"):
        results_dataset.read_pin(pin_file)
    where = results_dataset.locate(pin_file, PUBLISHED, CARDS)
    assert where.results != PUBLISHED and "pin is invalid" in where.source


class RecordingApi:
    """Records what `benchmark space publish` would send to the Hub."""

    calls: ClassVar[list[dict[str, Any]]] = []

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append({"create_repo": repo_id, **kwargs})

    def upload_folder(self, **kwargs: Any) -> Any:
        folder = Path(kwargs["folder_path"])
        sent = sorted(str(f.relative_to(folder)) for f in folder.rglob("*") if f.is_file())
        req = folder / "requirements.txt"
        self.calls.append(
            {**kwargs, "files": sent, "requirements": req.read_text() if req.exists() else None}
        )
        return SimpleNamespace(oid="b" * 40)


def test_the_space_is_published_with_its_pin_and_no_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import huggingface_hub

    from benchmark.cli import space
    from benchmark.cli.main import main
    from benchmark.core.results import git_sha

    space_dir = tmp_path / "space"
    shutil.copytree(ROOT / "hf_space", space_dir, ignore=shutil.ignore_patterns("results.yaml"))
    monkeypatch.setattr(space, "SPACE_DIR", space_dir)
    monkeypatch.setattr(space, "PIN_FILE", space_dir / "results.yaml")
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingApi)
    RecordingApi.calls = []

    # the Space cannot be published before it pins a release to read
    assert main(["space", "publish", "--repo-id", "org/board", "--dry-run"]) != 0
    assert "pin a release first" in capsys.readouterr().err

    results_dataset.write_pin(
        space.PIN_FILE, results_dataset.Pin(repo="org/results", revision="b" * 40, release=2)
    )
    assert main(["space", "publish", "--repo-id", "org/board", "--dry-run"]) == 0
    assert "dry run: nothing uploaded" in capsys.readouterr().out and not RecordingApi.calls
    assert main(["space", "publish", "--repo-id", "org/board"]) == 0
    upload = RecordingApi.calls[-1]
    assert upload["repo_type"] == "space" and upload["delete_patterns"] == ["data/**"]
    assert upload["files"] == ["README.md", "app.py", "requirements.txt", "results.yaml"]  # no results
    sha = git_sha()
    assert sha and f"groundcover@{sha}" in upload["requirements"] and "@main" not in upload["requirements"]
