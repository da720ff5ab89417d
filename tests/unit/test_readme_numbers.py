"""The numbers the README quotes for the quickstart are the published results' numbers.

README command 1 scores SmolLM2 closed-book and with BM25 retrieval on webtrack-2009-2012;
the README says what it prints, and the published boards hold the same two runs.  A
re-score under a new profile, or a scorer change that moves a number, must change the
README with it: this test reads the sentence and the ICAT table the README quotes and
compares them with the result files under ``leaderboard/results/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmark.core.results import TaskResult, read_result
from benchmark.models.profiles import load_profile

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "leaderboard" / "results" / "HuggingFaceTB__SmolLM2-135M-Instruct"
TASK = "webtrack-2009-2012"


def published(setting: str, family: str) -> TaskResult:
    """The result under the offline profile's current version (earlier versions' boards stay
    published as history; the quickstart prints the current one)."""
    profile = load_profile()
    (path,) = MODEL.glob(f"*/{setting}/{profile.name}-v{profile.version}/{TASK}.{family}.json")
    return read_result(path)


def value(setting: str, family: str, key: str) -> str:
    score = published(setting, family).scores[key]
    assert score.value is not None
    return f"{score.value:.3f}"


def interval(setting: str, family: str, key: str) -> str:
    """The cell the board prints: the value and its interval, *withheld* where the judge
    failed on more queries than the failure policy allows, and a dash where it was not computed
    (ICAT-S under a profile whose LLM is not asked for it)."""
    if (s := published(setting, family).scores.get(key)) is None:
        return "—"
    return "withheld" if s.incomplete else f"{s.value:.3f} [{s.ci_low:.2f}, {s.ci_high:.2f}]"


@pytest.fixture(scope="module")
def readme() -> str:
    return " ".join((REPO / "README.md").read_text(encoding="utf-8").split())


@pytest.mark.parametrize(
    ("label", "family", "key"),
    [
        ("ICAT-M", "icat", "icat_m"),
        ("n-EXAM", "exam", "n_exam"),
        ("sub-question hybrid", "subq", "subq_hybrid"),
        ("nuggets vital-strict", "nuggets", "vital_strict"),
    ],
)
def test_the_quickstart_sentence_quotes_the_published_numbers(
    readme: str, label: str, family: str, key: str
) -> None:
    found = re.search(rf"{re.escape(label)} (\d\.\d{{3}}) and (\d\.\d{{3}})", readme)
    assert found, f"the README no longer quotes {label}"
    assert found.groups() == (value("closed-book", family, key), value("rag-bm25-k5", family, key))


def test_the_quickstart_sentence_quotes_the_rag_runs_citation_recall(readme: str) -> None:
    found = re.search(r"citation recall (\d\.\d{3})", readme)
    assert found and found.group(1) == value("rag-bm25-k5", "attribution", "citation_recall")


def test_the_quickstart_icat_table_is_the_published_one(readme: str) -> None:
    for setting, label in (("rag-bm25-k5", "RAG bm25 k=5"), ("closed-book", "closed-book")):
        cells = [interval(setting, "icat", k) for k in ("icat_m", "s_fact", "s_coverage_m", "icat_s")]
        assert f"| {label} | {' | '.join(cells)} |" in readme, label
