"""The published results round-trip through a results dataset read at a pinned revision.

The upload side stands in for the Hub with a folder laid out as huggingface_hub's cache
(``datasets--org--name/snapshots/<commit>/…``), which is what a download leaves; the
read side is huggingface_hub's own ``snapshot_download`` in offline mode on that folder.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pandas as pd
import pytest
from huggingface_hub import constants

from benchmark.board import results_dataset
from benchmark.board.leaderboard import build_leaderboard
from benchmark.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "leaderboard" / "results"
CARDS = ROOT / "submissions"
REPO = "groundcover-bench/results"


class FolderHub:
    """``create_repo``/``upload_folder`` into a local huggingface_hub cache folder."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.calls: list[dict[str, Any]] = []

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append({"create_repo": repo_id, **kwargs})

    def upload_folder(self, *, folder_path: str, repo_id: str, **kwargs: Any) -> Any:
        self.calls.append({"upload_folder": repo_id, **kwargs})
        digest = hashlib.sha1()
        for f in sorted(Path(folder_path).rglob("*")):
            if f.is_file():
                digest.update(str(f.relative_to(folder_path)).encode() + f.read_bytes())
        sha = digest.hexdigest()
        snapshot = self.cache / f"datasets--{repo_id.replace('/', '--')}" / "snapshots" / sha
        shutil.copytree(folder_path, snapshot)  # delete_patterns="**": the upload is all of it
        return SimpleNamespace(oid=sha, commit_url=f"https://huggingface.co/datasets/{repo_id}/commit/{sha}")


@pytest.fixture
def offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FolderHub:
    cache = tmp_path / "hub-cache"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    return FolderHub(cache)


def _board(results: Path, cards: Path) -> pd.DataFrame:
    lb = build_leaderboard(results, cards)
    assert not lb.skipped
    frames = [t.assign(family=fid) for fid, t in lb.tables.items()]
    return pd.concat(frames).drop(columns=["path"], errors="ignore").reset_index(drop=True)


def test_publish_then_read_at_the_pin_gives_the_same_board(tmp_path: Path, offline_hub: FolderHub) -> None:
    staged = tmp_path / "staged"
    files = results_dataset.stage(PUBLISHED, CARDS, staged)
    assert any(f.name.endswith(".traces.jsonl") for f in files), "traces travel for the drill-down"
    assert {f.relative_to(staged).parts[0] for f in files} == {"results", "submissions"}
    pin = results_dataset.publish(staged, REPO, api=offline_hub)
    upload = next(c for c in offline_hub.calls if "upload_folder" in c)
    assert upload["repo_type"] == "dataset" and upload["delete_patterns"] == "**"

    pin_file = tmp_path / "results.yaml"
    results_dataset.write_pin(pin_file, pin)
    assert results_dataset.read_pin(pin_file) == pin
    where = results_dataset.locate(pin_file, tmp_path / "no-local-copy", tmp_path / "no-cards")
    assert where.pin == pin and where.source == f"results dataset {pin.label}"
    assert offline_hub.cache in where.results.parents
    pd.testing.assert_frame_equal(_board(where.results, where.submissions), _board(PUBLISHED, CARDS))


def test_an_unreadable_pin_falls_back_to_the_local_copy_and_says_so(
    tmp_path: Path, offline_hub: FolderHub
) -> None:
    pin_file = tmp_path / "results.yaml"
    results_dataset.write_pin(pin_file, results_dataset.Pin(repo=REPO, revision="0" * 40))
    where = results_dataset.locate(pin_file, PUBLISHED, CARDS)
    assert where.results == PUBLISHED
    assert "could not be read" in where.source and "@0000000" in where.source
    assert results_dataset.locate(tmp_path / "absent.yaml", PUBLISHED, CARDS).source.startswith("local copy")


@pytest.mark.parametrize(
    "text",
    [
        "repo: groundcover-bench/results\nrevision: main\n",  # a branch moves: only a commit pins
        "repo: ../../etc\nrevision: " + "a" * 40 + "\n",
        "repo: a/b\nrevision: " + "a" * 40 + "\nextra: 1\n",
        "repo: [unclosed\n",
    ],
)
def test_a_bad_pin_is_named(tmp_path: Path, text: str) -> None:
    pin_file = tmp_path / "results.yaml"
    pin_file.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"results\.yaml"):
        results_dataset.read_pin(pin_file)
    where = results_dataset.locate(pin_file, PUBLISHED, CARDS)
    assert where.results == PUBLISHED and "pin is invalid" in where.source


class RecordingApi:
    """Records what `benchmark space publish-results` / `publish` would send to the Hub."""

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


def test_publish_results_then_the_space_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import huggingface_hub

    from benchmark.cli import space
    from benchmark.cli.main import main
    from benchmark.core.results import git_sha
    from tests.helpers.results_fixture import write_fixture

    results, subs = write_fixture(tmp_path)
    (subs / "acme__close" / "secret.env").write_text("TOKEN=1")  # only model cards are staged
    space_dir = tmp_path / "space"
    shutil.copytree(ROOT / "hf_space", space_dir, ignore=shutil.ignore_patterns("results.yaml"))
    monkeypatch.setattr(space, "SPACE_DIR", space_dir)
    monkeypatch.setattr(space, "PIN_FILE", space_dir / "results.yaml")
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingApi)
    RecordingApi.calls = []
    where = ["--results-dir", str(results), "--submissions-dir", str(subs)]

    # the Space cannot be published before the results it is to read
    assert main(["space", "publish", "--repo-id", "org/board", "--dry-run"]) != 0
    assert "publish-results" in capsys.readouterr().err

    assert main(["space", "publish-results", "--repo-id", "org/results", "--dry-run", *where]) == 0
    out = capsys.readouterr().out
    assert (
        "results/acme__strong/main/closed-book/offline-smollm2-minilm-sim-v3/webtrack-2009-2012.icat.traces.jsonl"
        in out
    )
    assert "submissions/acme__close/model.yaml" in out and "secret.env" not in out
    assert "dry run: nothing uploaded" in out and not RecordingApi.calls

    assert main(["space", "publish-results", "--repo-id", "org/results", *where]) == 0
    upload = RecordingApi.calls[-1]
    assert upload["repo_type"] == "dataset" and upload["delete_patterns"] == "**"
    assert "submissions/acme__close/model.yaml" in upload["files"]
    assert not any("secret" in f for f in upload["files"])
    assert results_dataset.read_pin(space.PIN_FILE) == results_dataset.Pin(
        repo="org/results", revision="b" * 40
    )

    assert main(["space", "publish", "--repo-id", "org/board"]) == 0
    upload = RecordingApi.calls[-1]
    assert upload["repo_type"] == "space" and upload["delete_patterns"] == ["data/**"]
    assert upload["files"] == ["README.md", "app.py", "requirements.txt", "results.yaml"]  # no results
    sha = git_sha()
    assert sha and f"groundcover@{sha}" in upload["requirements"] and "@main" not in upload["requirements"]


def test_symbolic_links_are_never_published(tmp_path: Path) -> None:
    """A linked result file, a linked folder of results, a linked model card and a linked
    submission folder each point outside the folders: none is staged for upload, the real
    files beside them are."""
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.json").write_text("{}", encoding="utf-8")
    (outside / "folder" / "x.json").write_text("{}", encoding="utf-8")
    (outside / "model.yaml").write_text("name: secret\n", encoding="utf-8")
    results, cards = tmp_path / "results", tmp_path / "submissions"
    (results / "org" / "m").mkdir(parents=True)
    (results / "org" / "m" / "real.json").write_text("{}", encoding="utf-8")
    (results / "org" / "m" / "link.json").symlink_to(outside / "secret.json")
    (results / "org" / "m" / "link.traces.jsonl").symlink_to(outside / "secret.json")
    (results / "linked-folder").symlink_to(outside / "folder", target_is_directory=True)
    (cards / "real").mkdir(parents=True)
    (cards / "real" / "model.yaml").write_text("name: real\n", encoding="utf-8")
    (cards / "linked-card").mkdir()
    (cards / "linked-card" / "model.yaml").symlink_to(outside / "model.yaml")
    (cards / "linked-folder").symlink_to(outside, target_is_directory=True)
    staged = tmp_path / "staged"
    files = results_dataset.stage(results, cards, staged)
    assert sorted(str(f.relative_to(staged)) for f in files) == [
        "results/org/m/real.json",
        "submissions/real/model.yaml",
    ]
