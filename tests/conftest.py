"""Test-wide settings: no network, and a private groundcover home per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session", autouse=True)
def groundcover_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test session gets its own home (cache, indexes) unless one is given."""
    if "GROUNDCOVER_TEST_HOME" in os.environ:
        home = Path(os.environ["GROUNDCOVER_TEST_HOME"])
    else:
        home = tmp_path_factory.mktemp("groundcover-home")
    os.environ["GROUNDCOVER_HOME"] = str(home)
    return home


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own for tests that count model calls or build indexes."""
    monkeypatch.setenv("GROUNDCOVER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
