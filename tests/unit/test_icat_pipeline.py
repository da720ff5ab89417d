"""The whole ICAT pipeline, number for number, on a fake judge stack.

Four queries with known verdicts, each number computed by hand below:

* q1 "alpha topic" (aspects a1-a4): c1 grounded by D1 (rank 1); c2 grounded by D3 at
  rank 2 after a non-supporting D2 at rank 1; c3 supported by nothing; "Yes." too short.
  M: D1 -> a1, D3 -> a2 (D2's a3 must not count: it does not support c2).
  S (LLM): c1 -> a1, c2 -> a2 + a4 (c3 would be a3, but the aligner must never see it).
  A: generated aspects g1 "alpha one", g2 "alpha gamma"; c1 -> g1.
* q2 "beta topic" (aspects b1, b2): c1 grounded by D1 — the *same document*, judged
  b1 for q2 and a1 for q1; c2 grounded by D6 at rank 2 although the check on D5 at rank
  1 failed (a supported claim is grounded whatever else failed).  The S aligner answers
  garbage for q2, so ICAT-S is missing for q2 only.
* q3 "gamma topic": c2's only checks failed or say no -> undetermined -> q3 failed.
* q4 "delta topic": an empty answer: no claims, S_fact 0, coverage 0 — not a failure.
"""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from benchmark.cli.settings import from_args
from benchmark.core.results import ModelInfo, read_result
from benchmark.families import REGISTRY
from benchmark.families.icat.family import ICATSettings
from benchmark.families.icat.formulas import icat_beta
from benchmark.scoring.runner import RunOptions, score_task
from benchmark.tasks import load_task
from tests.helpers import build_tiny_task
from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, alignment_reply, fake_stack

ICAT = REGISTRY["icat"]
C = {
    "q1c1": "Claim one is about alpha aspect one.",
    "q1c2": "Claim two mentions alpha aspect two.",
    "q1c3": "Claim three is unsupported entirely here.",
    "q2c1": "Claim four is about beta aspect one.",
    "q2c2": "Claim five survives an entailment failure.",
    "q3c1": "Gamma claim one is fine.",
    "q3c2": "Gamma claim two cannot be judged.",
}
ANSWERS = {
    "1": f"{C['q1c1']} {C['q1c2']} {C['q1c3']} Yes.",
    "2": f"{C['q2c1']} {C['q2c2']}",
    "3": f"{C['q3c1']} {C['q3c2']}",
    "4": "",
}
P = {pid: f"passage {pid} text" for pid in ("D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8")}
HITS = {
    C["q1c1"]: [("D1#0", "D1", P["D1"])],
    C["q1c2"]: [("D2#0", "D2", P["D2"]), ("D3#0", "D3", P["D3"])],
    C["q1c3"]: [("D4#0", "D4", P["D4"])],
    C["q2c1"]: [("D1#0", "D1", P["D1"])],
    C["q2c2"]: [("D5#0", "D5", P["D5"]), ("D6#0", "D6", P["D6"])],
    C["q3c1"]: [("D7#0", "D7", P["D7"])],
    C["q3c2"]: [("D8#0", "D8", P["D8"]), ("D7#0", "D7", P["D7"])],
}
SUPPORT: dict[tuple[str, str], float | None] = {
    (P["D1"], C["q1c1"]): 0.9,
    (P["D2"], C["q1c2"]): 0.3,
    (P["D3"], C["q1c2"]): 0.8,
    (P["D4"], C["q1c3"]): 0.1,
    (P["D1"], C["q2c1"]): 0.95,
    (P["D5"], C["q2c2"]): None,
    (P["D6"], C["q2c2"]): 0.7,
    (P["D7"], C["q3c1"]): 0.9,
    (P["D8"], C["q3c2"]): None,
    (P["D7"], C["q3c2"]): 0.2,
}
# what the fake aligner believes each claim covers, by aspect text
ALIGN = {
    C["q1c1"]: {"alpha one"},
    C["q1c2"]: {"alpha two", "alpha four"},
    C["q1c3"]: {"alpha three"},
    C["q2c1"]: {"beta one"},
    C["q2c2"]: {"beta two"},
}


def _numbered(block: str) -> dict[str, int]:
    out = {}
    for line in block.strip().splitlines():
        num, _, text = line.partition(". ")
        if num.isdigit():
            out[text.strip()] = int(num)
    return out


def fake_reply(messages: list[dict[str, str]]) -> str:
    prompt = messages[-1]["content"]
    if prompt.startswith("Your reply could not be used"):
        return "still not JSON"  # a repair turn: this fake never repairs
    if "List the distinct aspects" in prompt:
        return "- alpha one\n- alpha gamma" if "alpha topic" in prompt else "- something"
    if "Statements:" in prompt:
        if "beta topic" in prompt and "Aspects:\n1. beta one" in prompt:
            return "the first statement covers it"  # S alignment of q2: unusable, every time
        aspects = _numbered(prompt.split("Aspects:")[1].split("Statements:")[0])
        claims = _numbered(prompt.split("Statements:")[1].split("For every aspect")[0])
        lines = []
        for text, a in aspects.items():
            covering = [n for c, n in claims.items() if text in ALIGN.get(c, set())]
            if covering:
                lines.append((a, covering))
        return alignment_reply(lines)
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def build_task(root: Path) -> Path:
    texts = ["alpha topic", "beta topic", "gamma topic", "delta topic"]
    aspects = [("1", "a1", "alpha one"), ("1", "a2", "alpha two"), ("1", "a3", "alpha three")]
    aspects += [("1", "a4", "alpha four"), ("2", "b1", "beta one"), ("2", "b2", "beta two")]
    aspects += [("3", "g1", "gamma one"), ("4", "d1", "delta one")]
    qrels = [("1", "D1", "a1", 1), ("1", "D2", "a3", 1), ("1", "D3", "a2", 2), ("2", "D1", "b1", 1)]
    qrels += [("2", "D6", "b2", 1), ("3", "D7", "g1", 1)]
    queries = pd.DataFrame(
        {
            "query_id": ["1", "2", "3", "4"],
            "text": texts,
            "description": [f"about {t.split()[0]}" for t in texts],
        }
    )
    return build_tiny_task(
        root,
        [],
        task_id="fake-icat",
        tables={
            "queries": queries,
            "aspects": pd.DataFrame(aspects, columns=["query_id", "aspect_id", "text"]),
            "qrels": pd.DataFrame(qrels, columns=["query_id", "doc_id", "aspect_id", "relevance"]),
            "corpus": pd.DataFrame({"doc_id": list(P), "text": list(P.values())}),
        },
        name="fake ICAT task",
        description="four queries with hand-computed ICAT scores",
        main_score={"icat": "icat_m"},
        instruction="Answer.",
        corpus={"kind": "table"},
    )


@pytest.fixture
def task(tmp_path: Path):
    return load_task(build_task(tmp_path))


def run(
    task,
    tmp_path: Path,
    *,
    beta: float = 1.0,
    candidates: FakeRetriever | None = None,
    reply=fake_reply,
    max_failure_rate: float = 0.05,
    settings: ICATSettings | None = None,
    **profile,
):
    """Score ANSWERS through the real runner and ICAT pipeline on the fakes."""
    llm = FakeLLM(reply)
    judges = fake_stack(
        llm=llm, entailment=FakeEntailment(SUPPORT), retriever=FakeRetriever(HITS), candidates=candidates
    )
    retriever = judges.profile.retriever.model_copy(update={"candidate_docs": 2 if candidates else None})
    judges.profile = judges.profile.model_copy(update={"retriever": retriever, **profile})
    result, path = score_task(
        ICAT,
        task,
        ANSWERS,
        judges,
        model=ModelInfo(id="test/model"),
        results_root=tmp_path / "results",
        settings=settings or ICATSettings(beta=beta),
        options=RunOptions(query_batch=2, progress=False, seed=7, max_failure_rate=max_failure_rate),
    )
    return result, path, llm


def per_query(result) -> dict[str, dict[str, float | None]]:
    return {q.query_id: q.scores for q in result.per_query}


def f(x: F | None) -> float | None:
    return None if x is None else float(x)


def icat(fact: F, cov: F, beta: float = 1.0) -> float:
    return icat_beta(float(fact), float(cov), beta)  # the formula itself is pinned in test_icat_formulas


EXPECTED_Q1 = {"s_fact": F(2, 3), "s_coverage_m": F(2, 4), "s_coverage_s": F(3, 4), "s_coverage_a": F(1, 2)}
EXPECTED_Q2 = {"s_fact": F(1), "s_coverage_m": F(2, 2), "s_coverage_s": None, "s_coverage_a": F(0)}


def test_every_number_of_every_query(task, tmp_path: Path) -> None:
    result, _, _ = run(task, tmp_path)
    got = per_query(result)
    for qid, exp in (("1", EXPECTED_Q1), ("2", EXPECTED_Q2)):
        for key, value in exp.items():
            assert got[qid][key] == pytest.approx(f(value), abs=1e-12), (qid, key)
        for v in "msa":
            cov = exp[f"s_coverage_{v}"]
            want = None if cov is None else icat(exp["s_fact"], cov)
            assert got[qid][f"icat_{v}"] == pytest.approx(want, abs=1e-12), (qid, v)
    # q1 by hand: ICAT-M = 2·(2/3)(1/2)/(2/3+1/2) = 4/7, ICAT-S = 2·(2/3)(3/4)/(2/3+3/4) = 12/17
    assert got["1"]["icat_m"] == pytest.approx(4 / 7) and got["1"]["icat_s"] == pytest.approx(12 / 17)
    assert all(v is None for v in got["3"].values())  # undetermined claim: the query failed
    assert got["4"] == {k: 0.0 for k in got["4"]}  # nothing said: 0, not a failure
    assert result.failed_queries == ["3"]


def test_overall_means_leave_failed_queries_out(task, tmp_path: Path) -> None:
    result, _, _ = run(task, tmp_path)
    s = result.scores
    assert s["s_fact"].value == pytest.approx(float((F(2, 3) + 1 + 0) / 3)) and s["s_fact"].n == 3
    assert s["icat_m"].value == pytest.approx((4 / 7 + 1 + 0) / 3) and s["icat_m"].n == 3
    # ICAT-S is missing for q2 (alignment failed) and q3 (failed query): n = 2, not 0-filled
    assert s["icat_s"].value == pytest.approx((12 / 17 + 0) / 2) and s["icat_s"].n == 2
    assert result.failures == {"alignment_s": 1, "entailment": 1}
    assert result.primary == "icat_m"  # the card's main_score
    assert result.counts["claims_too_short"] == 1 and result.counts["claims"] == 7


def test_generated_aspects_copied_from_the_example_are_counted_failures(task, tmp_path: Path) -> None:
    """A judge that returns the aspects prompt's worked example for the alpha query: refused,
    retried, then a failure of that stage, counted in the result and on the board."""
    from benchmark.board.leaderboard import build_leaderboard
    from benchmark.models.prompts import load_prompt

    example = load_prompt("aspects@1").examples[0][1]

    def copying(messages: list[dict[str, str]]) -> str:
        if (
            "List the distinct aspects" in messages[-1]["content"]
            and "alpha topic" in messages[-1]["content"]
        ):
            return example
        if "worked example" in messages[-1]["content"]:
            return example  # the repair turn gets the same copy
        return fake_reply(messages)

    # the fakes fail on one query in four (an entailment check): a rate that lets the result on a board
    result, _, _ = run(task, tmp_path, reply=copying, max_failure_rate=0.25)
    assert result.example_copies == {"aspects_a": 1} and result.failures["aspects_a"] == 1
    assert "1 with replies that copied the prompt's example" in (result.scores["icat_a"].incomplete or "")
    q1 = next(q for q in result.per_query if q.query_id == "1")
    assert any("worked example" in f for f in q1.failures) and q1.scores["icat_a"] is None
    row = build_leaderboard(tmp_path / "results", tmp_path / "none").tables["icat"].iloc[0]
    assert row["copies"] == 1


def test_beta_reaches_every_score(task, tmp_path: Path) -> None:
    result, _, _ = run(task, tmp_path, beta=2.0)
    q1 = per_query(result)["1"]
    assert q1["icat_m"] == pytest.approx(10 / 19)  # (1+4)·(2/3)(1/2) / (4·(2/3) + 1/2)
    assert result.settings["beta"] == 2.0 and result.board_settings == {"beta": 2.0}
    assert result.curves["icat_m_beta"]["2"] == pytest.approx(result.scores["icat_m"].value)


def test_qrels_are_read_for_the_claims_own_query(task, tmp_path: Path) -> None:
    """D1 supports a claim of q1 and of q2: it counts as a1 for q1 and as b1 for q2."""
    _, path, _ = run(task, tmp_path)
    traces = {t.query_id: t for t in map(ICAT.trace_model.model_validate_json, _lines(path))}
    assert traces["1"].claims[0].aspects_m == ["a1"] and traces["2"].claims[0].aspects_m == ["b1"]
    assert traces["1"].claims[1].first_supporting == "D3#0"  # rank 2: D2 did not support it
    assert traces["1"].claims[1].aspects_m == ["a2"]


def test_aligner_sees_only_grounded_claims(task, tmp_path: Path) -> None:
    _, _, llm = run(task, tmp_path)
    aligner = [r[-1]["content"] for r in llm.requests if "Statements:" in r[-1]["content"]]
    assert aligner and not any(C["q1c3"] in p for p in aligner)
    assert any(C["q1c1"] in p and C["q1c2"] in p for p in aligner)


def test_entailment_failures_follow_one_rule(task, tmp_path: Path) -> None:
    _, path, _ = run(task, tmp_path)
    traces = {t.query_id: t for t in map(ICAT.trace_model.model_validate_json, _lines(path))}
    q2c2 = traces["2"].claims[1]
    assert q2c2.grounded and not q2c2.failed and q2c2.passages[0].support is None
    q3c2 = traces["3"].claims[1]
    assert q3c2.failed and not q3c2.grounded
    assert traces["3"].failed and traces["3"].failures[0].startswith("entailment: 1 claim")


def test_candidate_documents_restrict_grounding(task, tmp_path: Path) -> None:
    """With q1 restricted to D1 and D2, c2's supporting D3 is out of reach: S_fact 1/3."""
    cands = FakeRetriever(
        {"alpha topic about alpha": [("D1#0", "D1", ""), ("D2#0", "D2", ""), ("D3#0", "D3", "")]}
    )
    result, path, _ = run(task, tmp_path, candidates=cands)
    assert per_query(result)["1"]["s_fact"] == pytest.approx(1 / 3)
    trace = ICAT.trace_model.model_validate_json(_lines(path)[0])
    assert trace.candidate_docs == ["D1", "D2"] and trace.counts["candidate_docs"] == 2


def test_claim_cap_is_counted(task, tmp_path: Path) -> None:
    base = fake_stack(
        llm=FakeLLM(fake_reply), entailment=FakeEntailment({}), retriever=FakeRetriever({})
    ).profile
    claims = base.claims.model_copy(update={"max_claims": 2})
    result, path, _ = run(task, tmp_path, claims=claims)
    assert per_query(result)["1"]["s_fact"] == pytest.approx(2 / 2)  # c3 is beyond the cap
    assert result.counts["claims_truncated"] == 1
    trace = ICAT.trace_model.model_validate_json(_lines(path)[0])
    assert trace.counts["claims_truncated"] == 1 and len(trace.claims) == 2


def test_the_bootstrap_is_seeded(task, tmp_path: Path) -> None:
    a, _, _ = run(task, tmp_path / "a")
    b, _, _ = run(task, tmp_path / "b")
    assert {k: v.model_dump() for k, v in a.scores.items()} == {
        k: v.model_dump() for k, v in b.scores.items()
    }
    assert read_result(tmp_path / "a" / "results" / _rel(a)).scores == a.scores


def _lines(path: Path) -> list[str]:
    return path.with_name(path.stem + ".traces.jsonl").read_text(encoding="utf-8").splitlines()


def _rel(result) -> Path:
    return Path("test__model/main/closed-book/offline-smollm2-minilm-sim-v6/fake-icat.icat.json")


def test_user_corpus_needs_aspect_qrels_for_icat_m(task, tmp_path: Path) -> None:
    from benchmark.families.base import ScoringInputs

    corpus = tmp_path / "mine.jsonl"
    corpus.write_text('{"doc_id": "D1", "text": "x"}\n')
    judges = fake_stack(
        llm=FakeLLM(fake_reply), entailment=FakeEntailment(SUPPORT), retriever=FakeRetriever(HITS)
    )
    judges.profile = judges.profile.model_copy(
        update={"retriever": judges.profile.retriever.model_copy(update={"candidate_docs": None})}
    )

    def score(inputs: ScoringInputs, root: str):
        return score_task(
            ICAT,
            task,
            ANSWERS,
            judges,
            model=ModelInfo(id="t/m"),
            results_root=tmp_path / root,
            inputs=inputs,
            options=RunOptions(progress=False),
        )[0]

    without = score(ScoringInputs(corpus=str(corpus)), "a")
    assert "icat_m" not in without.scores and any("ICAT-M not computed" in n for n in without.notes)
    assert without.primary == "icat_s"  # the card's main score was not computed: the family's default
    qrels = tmp_path / "qrels.web.ndeval.txt"
    qrels.write_text("1 a1 D1 1\n1 a2 D3 1\n1 a4 D3 0\n2 b1 D1 2\n2 b2 D6 1\n")  # topic subtopic docid grade
    with_file = score(ScoringInputs(corpus=str(corpus), files={"aspect_qrels": str(qrels)}), "b")
    assert per_query(with_file)["1"]["s_coverage_m"] == pytest.approx(2 / 4)
    assert with_file.primary == "icat_m"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 a1 D1", "expected 4 columns"),
        ("1 a1 D1 high", "grade 'high' is not an integer"),
        ("99 a1 D1 1", "topic '99' is not a query"),
        ("1 zz D1 1", "subtopic 'zz' is not an aspect of topic 1"),
    ],
)
def test_aspect_qrels_errors_name_line_and_field(task, tmp_path: Path, line: str, message: str) -> None:
    from benchmark.core.errors import InputError
    from benchmark.families.icat.qrels import load_aspect_qrels

    path = tmp_path / "q.txt"
    path.write_text(f"1 a1 D1 1\n{line}\n")
    with pytest.raises(InputError) as exc:
        load_aspect_qrels(path, task)
    (problem,) = exc.value.problems
    assert problem.line == 2 and message in problem.message


def test_cli_options_reach_the_settings() -> None:
    from benchmark.cli.main import build_parser

    args = build_parser().parse_args(
        ["score", "--outputs", "x.jsonl", "--tasks", "t", "--beta", "2", "--variants", "a,m"]
    )
    settings = from_args(ICAT.settings_model, args)
    assert settings.beta == 2.0 and settings.variants == ("m", "a")
    from benchmark.core.errors import InputError

    for bad in (["--beta", "-1"], ["--variants", "x,y"], ["--variants", ","], ["--beta", "nan"]):
        with pytest.raises(InputError):
            from_args(
                ICAT.settings_model,
                build_parser().parse_args(["score", "--outputs", "x", "--tasks", "t", *bad]),
            )


def test_evaluate_rejects_bad_scoring_options_before_generating(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmark.cli.main import main
    from benchmark.generation import harness

    def no_generation(*a: object, **k: object) -> None:
        raise AssertionError("generation started before the options were checked")

    monkeypatch.setattr(harness, "generate_outputs", no_generation)
    base = ["evaluate", "--model", "groundcover-offline", "--tasks", "webtrack-2009-2012"]
    for bad in (
        ["--beta", "-1"],
        ["--variants", "q"],
        ["--metrics", "arguments"],
        ["--query-batch", "0"],
        ["--limit", "0"],
    ):
        assert main([*base, *bad]) == 2, bad


def contract_mock(tmp_path: Path) -> tuple[Any, dict[str, str], Any]:
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    task = load_task(build_task(tmp_path))
    stack = fake_stack(
        llm=FakeLLM(fake_reply),
        entailment=FakeEntailment(SUPPORT),
        retriever=FakeRetriever(HITS),
    )
    stack.profile = stack.profile.model_copy(
        update={"retriever": stack.profile.retriever.model_copy(update={"candidate_docs": None})}
    )
    return task, dict(ANSWERS), stack


#: the platform contract test (tests/unit/test_families.py) runs this family on this mock
CONTRACT_MOCKS = {"icat": contract_mock}


def test_an_llm_not_asked_for_alignment_leaves_icat_s_and_a_out_unless_named(task, tmp_path: Path) -> None:
    """The shipped offline profile's ``llm.not_asked_for``: by default ICAT-S and ICAT-A are not
    computed and the LLM is never called; ``--variants`` naming them asks it all the same."""
    from benchmark.core.errors import InputError
    from benchmark.models.profiles import load_profile

    shipped = load_profile("offline-smollm2-minilm-sim").llm
    assert shipped.not_asked_for == ["aspects-alignment"]

    def score(root: str, settings: ICATSettings, not_asked_for: list[str]):
        llm = shipped.model_copy(update={"not_asked_for": not_asked_for})
        result, _, fake = run(task, tmp_path / root, settings=settings, llm=llm)
        return result, fake

    default, llm = score("a", ICATSettings(), shipped.not_asked_for)
    assert llm.requests == [] and {"icat_s", "icat_a"}.isdisjoint(default.scores)
    assert default.scores["icat_m"].value is not None and default.primary == "icat_m"
    assert any("ICAT-S and ICAT-A not computed" in n and "--variants" in n for n in default.notes)
    named, llm = score("b", ICATSettings(variants=("m", "s", "a")), shipped.not_asked_for)
    assert (
        llm.requests and named.scores["icat_s"].value is not None and named.scores["icat_a"].value is not None
    )
    # a misspelt role would have the LLM asked after all: refused, naming the field
    with pytest.raises(InputError, match="aspect-alignment: no family's judge role") as err:
        score("c", ICATSettings(), ["aspect-alignment"])
    assert err.value.problems[0].field == "llm.not_asked_for"
    # and at the dry run's door, which prepares without scoring
    from benchmark.scoring.dry_run import plan_jobs
    from benchmark.scoring.run import Job

    judges = fake_stack(
        llm=FakeLLM(fake_reply), entailment=FakeEntailment(SUPPORT), retriever=FakeRetriever(HITS)
    )
    judges.profile = judges.profile.model_copy(
        update={"llm": shipped.model_copy(update={"not_asked_for": ["aspect-alignment"]})}
    )
    job = Job(task, ANSWERS, ModelInfo(id="t/m"), None, [(ICAT, ICATSettings())])
    with pytest.raises(InputError, match="aspect-alignment: no family's judge role"):
        plan_jobs([job], judges, results_root=tmp_path / "plan", options=RunOptions(progress=False))


def test_another_judge_model_is_asked_what_the_profile_model_was_not() -> None:
    from benchmark.models.profiles import load_profile, with_judge

    served = with_judge(load_profile(), model="Qwen/Qwen2.5-72B-Instruct", url="http://localhost:1/v1")
    assert served.llm.not_asked_for == [] and served.version.endswith("+llm:Qwen/Qwen2.5-72B-Instruct")
    assert with_judge(load_profile(), url=None).llm.not_asked_for == ["aspects-alignment"]
