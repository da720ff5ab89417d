"""The README's Python example runs as written: a task made from the user's own questions
and nuggets (``benchmark.Task.from_records``), a DataFrame of answers scored on it with
``benchmark.score`` on the offline judge profile, and scores with intervals printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import benchmark

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- api-example[^>]*-->\n```python\n(.*?)```", text, flags=re.S)
    assert found, "the README's usage no longer opens with the API example"
    return found.group(1)


def test_the_example_is_short_and_uses_the_api() -> None:
    code = example()
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 14, "a notebook example, not a script"
    for name in ("benchmark.Task.from_records(", "benchmark.score(", "pd.DataFrame("):
        assert name in code


def test_the_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(benchmark.Task, "from_records"):
        pytest.skip("benchmark.Task.from_records is not in this tree yet (the 'your data as a task' work)")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(example(), str(README), "exec"), namespace)  # the README's own code
    results = namespace["results"]
    assert isinstance(results, benchmark.Results)
    scores = results.scores()
    assert set(scores["family"]) == {"nuggets"} and scores["value"].notna().any()
    per_query = results.to_pandas()
    assert sorted(per_query["query_id"]) == ["q1", "q2"]
    assert list(tmp_path.joinpath("results").rglob("my-questions.nuggets.json"))
    assert any(k.startswith("vital") for k in scores["score"])
