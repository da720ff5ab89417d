"""Result files for leaderboard and Space tests, built through the real schema and statistics.

Per-query scores are chosen so the paired-test ranks are known: ``acme/strong`` beats
everyone on every query; ``acme/close`` and ``beta-lab/mid`` differ by ±0.1 in
alternation (not significantly different: they share rank 2); the hostile ``<script>``
model is worse than all on every query and has results but no model card.  The
``groundcover/copy-baseline`` card has ``parameters: 0`` (no model: size does not
apply).  ``acme/close`` also has a RAG entry, a separate row, with mid's scores.
:data:`REFERENCE` beats every model on every query, but its card declares it a ceiling
check: it is shown apart and never ranked (a model keeps rank 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from benchmark.core.results import (
    ModelInfo,
    QueryScores,
    QuerySet,
    RAGSetting,
    RunInfo,
    Statistics,
    TaskInfo,
    TaskResult,
    bootstrap_score,
    result_path,
    traces_path,
    write_result,
)
from benchmark.families import REGISTRY
from benchmark.scoring.runner import RunOptions, score_summaries

TASK = "webtrack-2009-2012"
EVIL = "<script>window.__pwned=1</script>evil/model"
PROFILE = {"name": "offline-smollm2-minilm-sim", "version": "3", "offline": True}
OTHER_PROFILE = {"name": "paper-deberta-llama", "version": "2", "offline": False}
QUERIES = [str(q) for q in range(100, 112)]
DIFFICULTY = [0.2, 0.7, 0.4, 0.55, 0.3, 0.65, 0.45, 0.5, 0.25, 0.6, 0.35, 0.5]
RAG = RAGSetting(retriever="bm25", k=5, prompt="rag-answer@1", corpus="starter corpus")


def _alt(i: int) -> float:
    return 0.05 if i % 2 == 0 else -0.05


# model id -> per-query icat_m (s_fact and s_coverage_m derive from it)
MODELS: dict[str, list[float]] = {
    "acme/strong": [min(1.0, d + 0.3) for d in DIFFICULTY],
    "acme/close": [d + _alt(i) for i, d in enumerate(DIFFICULTY)],
    "beta-lab/mid": [d - _alt(i) for i, d in enumerate(DIFFICULTY)],
    EVIL: [max(0.0, d - 0.15) for d in DIFFICULTY],
    "groundcover/copy-baseline": [d - 0.1 for d in DIFFICULTY],
    "groundcover/extractive-ceiling": [min(1.0, d + 0.45) for d in DIFFICULTY],
}
REFERENCE = "groundcover/extractive-ceiling"
REFERENCE_SETTING = "copies passages of the judged corpus"
CARDS = {
    "acme/strong": {"parameters": 70_000_000_000, "open_weights": False},
    "acme/close": {"parameters": 8_000_000_000, "open_weights": True},
    "beta-lab/mid": {"parameters": 500_000_000, "open_weights": True},
    "groundcover/copy-baseline": {"parameters": 0, "open_weights": True},
    REFERENCE: {
        "parameters": 0,
        "open_weights": True,
        "kind": "ceiling check",
        "reference_setting": REFERENCE_SETTING,
        "links": ["https://example.org/extractive-ceiling"],
    },
}
RAG_LABEL = "acme/close (RAG bm25 k=5)"
EXPECTED_RANKS = {
    "acme/strong": 1,
    "acme/close": 2,
    "beta-lab/mid": 2,
    RAG_LABEL: 2,
    "groundcover/copy-baseline": 5,
    EVIL: 6,
}


def make_result(
    model: str,
    values: list[float],
    profile: dict[str, object],
    *,
    rag: RAGSetting | None = None,
    queries: list[str] | None = None,
    beta: float = 1.0,
    failed: tuple[str, ...] = (),
) -> TaskResult:
    qids = queries or QUERIES
    per_query = []
    for q, v in zip(qids, values, strict=True):
        scores: dict[str, float | None] = {"icat_m": v, "s_fact": min(1.0, v + 0.1), "s_coverage_m": v}
        if q in failed:
            scores = dict.fromkeys(scores)
        per_query.append(
            QueryScores(
                query_id=q,
                scores=scores,
                counts={"claims": 2},
                failures=["claims: x"] if q in failed else [],
                failed=q in failed,
            )
        )
    return TaskResult(
        model=ModelInfo(id=model, revision="main", backend="submission", rag=rag),
        task=TaskInfo(
            id=TASK, version="1.0.0", data="sha256:test", corpus="corpus123", queries=QuerySet.of(qids)
        ),
        judge_profile=profile,
        metric_family="icat",
        primary="icat_m",
        settings={"beta": beta, "variants": ["m"]},
        board_settings={"beta": beta},
        statistics=Statistics(ci_level=0.95, bootstrap_resamples=1000, seed=0, bca_min_n=10),
        scores=score_summaries(REGISTRY["icat"], per_query, RunOptions(bootstrap_resamples=1000)),
        curves={"icat_m_beta": {"0.5": values[0], "1": values[1], "2": values[2]}},
        per_query=per_query,
        failures={"claims": len(failed)} if failed else {},
        failed_queries=list(failed),
        run=RunInfo(
            groundcover_version="test",
            packages={},
            python="3",
            git_sha=None,
            seed=0,
            started="2026-01-01T00:00:00+00:00",
            finished="2026-01-01T00:01:00+00:00",
        ),
    )


def trace(model: str, query_id: str, value: float) -> dict[str, object]:
    return {
        "query_id": query_id,
        "query": "What are the effects of <b>acid</b> rain?",
        "answer": f"Answer by {model} <img src=x onerror=alert(1)>",
        "aspects": [{"aspect_id": "1", "text": "effects on forests"}],
        "generated_aspects": [],
        "failures": [],
        "counts": {"claims": 2},
        "claims": [
            {
                "claim_id": "c1",
                "text": "Acid rain damages forest soils.",
                "grounded": True,
                "failed": False,
                "first_supporting": "175-01#0",
                "passages": [
                    {
                        "passage_id": "175-01#0",
                        "doc_id": "175-01",
                        "rank": 1,
                        "retrieval_score": 12.5,
                        "support": 0.91,
                        "supported": True,
                        "text": "Acid deposition leaches calcium from forest soils.",
                    }
                ],
                "aspects_m": ["1"],
                "aspects_s": ["1"],
                "aspects_a": [],
            },
            {
                "claim_id": "c2",
                "text": "Acid rain is caused by volcanoes only.",
                "grounded": False,
                "failed": False,
                "first_supporting": None,
                "passages": [],
                "aspects_m": [],
                "aspects_s": [],
                "aspects_a": [],
            },
        ],
        "scores": {"icat_m": value},
    }


def write_icat(results: Path, model: str, values: list[float]) -> None:
    """An ICAT result of ``model`` with ``values`` per query, and its traces."""
    res = make_result(model, values, PROFILE)
    path = write_result(
        res, result_path(results, res.model, f"{PROFILE['name']}@{PROFILE['version']}", TASK, "icat")
    )
    traces_path(path).write_text(
        "".join(json.dumps(trace(model, q, v)) + "\n" for q, v in zip(QUERIES, values, strict=True)),
        encoding="utf-8",
    )


def write_fixture(root: Path) -> tuple[Path, Path]:
    """``root/results`` and ``root/submissions`` with the models above."""
    results, submissions = root / "results", root / "submissions"
    for model, values in MODELS.items():
        write_icat(results, model, values)
    # acme/close with retrieval: a second entry of the same model
    rag = make_result("acme/close", list(MODELS["beta-lab/mid"]), PROFILE, rag=RAG)
    write_result(
        rag, result_path(results, rag.model, f"{PROFILE['name']}@{PROFILE['version']}", TASK, "icat")
    )
    # the same model under another judge profile must land on a different board
    other = make_result("acme/strong", [0.3] * len(QUERIES), OTHER_PROFILE)
    write_result(
        other,
        result_path(
            results, other.model, f"{OTHER_PROFILE['name']}@{OTHER_PROFILE['version']}", TASK, "icat"
        ),
    )
    write_argument_fixture(results)
    for model, card in CARDS.items():
        org, name = model.split("/")
        d = submissions / f"{org}__{name}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "model.yaml").write_text(
            yaml.safe_dump(
                {"name": name, "org": org, "license": "apache-2.0", "contact": "test@example.org", **card}
            ),
            encoding="utf-8",
        )
    return results, submissions


ARG_TASK = "arguana-debates"
ARG_QUERIES = ["environment-aeghhgwpe:pro", "environment-aeghhgwpe:con", "sport-aastshsrqsar:pro"]
#: model -> overall quality per query (1-3); acme/strong's arguments are better on every query
ARG_MODELS = {"acme/strong": [3.0, 2.5, 3.0], EVIL: [1.0, 1.5, 1.0]}


def argument_result(model: str, values: list[float]) -> TaskResult:
    """An argument-quality result: the 15 dimensions follow the overall rating."""
    from benchmark.families.arguments.formulas import DIMENSIONS

    per_query = [
        QueryScores(
            query_id=q,
            scores={**dict.fromkeys(DIMENSIONS, v), "context_direct": v / 3, "win_rag_direct": float(v > 2)},
            counts={"evidence_docs": 2},
        )
        for q, v in zip(ARG_QUERIES, values, strict=True)
    ]
    keys = [*DIMENSIONS, "context_direct", "win_rag_direct"]
    base = make_result(
        model, [0.5] * len(ARG_QUERIES), PROFILE, queries=ARG_QUERIES
    )  # its fields, not its scores
    return base.model_copy(
        update={
            "task": TaskInfo(
                id=ARG_TASK,
                version="1.0.0",
                data="sha256:args",
                corpus="arguana",
                queries=QuerySet.of(ARG_QUERIES),
            ),
            "metric_family": "arguments",
            "primary": "overall_quality",
            "settings": {"quality_judge": "listwise"},
            "board_settings": {"quality_judge": "listwise"},
            "scores": {
                k: bootstrap_score([pq.scores[k] for pq in per_query], n_resamples=1000) for k in keys
            },
            "curves": {},
            "per_query": per_query,
        }
    )


def argument_trace(model: str, query_id: str, value: float) -> dict[str, object]:
    return {
        "query_id": query_id,
        "query": "Should people become vegetarian?",
        "answer": f"Argument by {model} <img src=x onerror=alert(1)> citing [1].",
        "topic": "Should people become vegetarian?",
        "stance": query_id.rsplit(":", 1)[-1],
        "evidence_source": "given",
        "evidence": [
            {
                "doc_id": "test-environment-aeghhgwpe-pro02a",
                "text": "Being vegetarian helps the environment.",
            },
            {"doc_id": "test-environment-aeghhgwpe-con01a", "text": "<b>Meat</b> is nutritious."},
        ],
        "cited": ["test-environment-aeghhgwpe-pro02a"],
        "judges": {
            "listwise": {
                "prompt": "argument-quality-listwise@1",
                "parsed": {"ratings": {"overall_quality": value}},
                "raw": ['{"overall_quality": ' + str(value) + ', "note": "<i>fine</i>"}'],
                "failures": [],
            }
        },
        "failures": [],
        "scores": {"overall_quality": value},
    }


def write_argument_fixture(results: Path) -> None:
    for model, values in ARG_MODELS.items():
        res = argument_result(model, values)
        path = write_result(
            res,
            result_path(results, res.model, f"{PROFILE['name']}@{PROFILE['version']}", ARG_TASK, "arguments"),
        )
        traces_path(path).write_text(
            "".join(
                json.dumps(argument_trace(model, q, v)) + "\n"
                for q, v in zip(ARG_QUERIES, values, strict=True)
            ),
            encoding="utf-8",
        )


#: a model id that a right-to-left override would show reversed ("exe.txt" read as "txt.exe")
RTL_NAME = "mallory/report\u202etxt.exe"
#: a model id far wider than any column, caption or legend
LONG_NAME = "long/" + "verylongname" * 16  # 197 characters: near the 200 a model id may hold
#: the hostile copy: twelve models and the reference, 13 entries in all
HOSTILE_MODELS = [LONG_NAME, *(f"many/model-{i:02d}" for i in range(11))]


def write_hostile_fixture(root: Path) -> tuple[Path, Path]:
    """A result copy made to spoof and break the layout (issue 52, item 6): a result file whose
    model id holds a right-to-left override (refused by the name rule every door applies), a
    200-character name (the most a model id may hold), and 13 entries on one board (the reference entry among them), each with
    traces and one model card (the reference's); the twelve models also on an argument-quality
    board, whose forest plot names them on its axis."""
    results, submissions = root / "results", root / "submissions"
    values = {
        m: [min(1.0, max(0.0, d + 0.02 * (i - 6))) for d in DIFFICULTY] for i, m in enumerate(HOSTILE_MODELS)
    }
    values[REFERENCE] = MODELS[REFERENCE]
    for model, vals in values.items():
        write_icat(results, model, vals)
    for i, model in enumerate(HOSTILE_MODELS):  # and a board whose figure names them on its axis
        res = argument_result(model, [1.0 + (i % 3) * 0.5, 2.0, 1.5 + (i % 4) * 0.25])
        write_result(
            res,
            result_path(results, res.model, f"{PROFILE['name']}@{PROFILE['version']}", ARG_TASK, "arguments"),
        )
    # a copy of one result whose model id holds a right-to-left override, written as raw JSON
    # (the result schema itself refuses the name): the board's loader must refuse the file
    donor = next(results.rglob(f"many__model-00/**/{TASK}.icat.json"))
    spoof = json.loads(donor.read_text(encoding="utf-8"))
    spoof["model"]["id"] = RTL_NAME
    target = results / "mallory__report_txt.exe" / "main" / "closed-book" / donor.parent.name / donor.name
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(spoof), encoding="utf-8")
    org, name = REFERENCE.split("/")
    (submissions / f"{org}__{name}").mkdir(parents=True)
    (submissions / f"{org}__{name}" / "model.yaml").write_text(
        yaml.safe_dump(
            {
                "name": name,
                "org": org,
                "license": "apache-2.0",
                "contact": "t@example.org",
                **CARDS[REFERENCE],
            }
        ),
        encoding="utf-8",
    )
    return results, submissions
