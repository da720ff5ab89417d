"""Does the Listwise argument judge agree with people about which argument is more convincing?

Public human judgements: UKPConvArg2 (Habernal and Gurevych, EMNLP 2016), pairs of
createdebate.com arguments on one side of a debate, each pair with the argument the
crowd found more convincing (MACE-aggregated).  CSV files from
github.com/UKPLab/emnlp2016-empirical-convincingness (commit 5396e5a, ``data/CSV-format``;
CC BY-NC-SA 4.0 per that folder's LICENSE.txt — they are read from a local cache, never
copied into this repository).  Put them in ``~/.cache/groundcover/argument-data/`` (the
checksums below are checked), e.g. with ``git show HEAD:data/CSV-format/<file>``.

Every distinct argument is rated once by the argument family's quality judge (offline
profile by default; model calls cached), and a pair counts as agreement when the judge's
overall quality is higher for the argument people preferred (a tie counts half).  Next
to it: the **length baseline** (the longer argument wins), and the chance level 0.5.
Prints a table.

    .venv/bin/python benchmarks/argument_agreement.py [--judge listwise] [--judge-profile NAME]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
from pathlib import Path

from tabulate import tabulate

from benchmark.families import REGISTRY
from benchmark.families import base as family_base
from benchmark.families.base import ScoringInputs
from benchmark.judging.stack import JudgeStack
from benchmark.models.profiles import DEFAULT_PROFILE, load_profile
from benchmark.tasks import load_task

DATA = Path.home() / ".cache" / "groundcover" / "argument-data"
FILES = {
    "is-the-school-uniform-a-good-or-bad-idea-_bad.xml.csv": (
        "0d3de7c3e9a7e0d349863c6c8844ff1a4581a979e3c214d27da89cf6a04e57d8",
        "Is the school uniform a good or bad idea?",
        "con",
    ),
    "is-the-school-uniform-a-good-or-bad-idea-_good.xml.csv": (
        "1172f0e1a8415d3f69e0fe04414e20cc1cf49435958aebc3d4c4a681e6f615cd",
        "Is the school uniform a good or bad idea?",
        "pro",
    ),
}


def read_pairs(name: str) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(more convincing, less convincing) pairs of argument keys, and the texts by key.

    A line is ``pair id, labels, more convincing text, less convincing text``; the text
    columns are not in the id's order, so an argument is identified by its text.
    """
    path = DATA / name
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != FILES[name][0]:
        raise SystemExit(f"{path}: checksum differs from the recorded one")
    pairs, texts = [], {}
    for line_no, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        cols = line.split("\t")
        if len(cols) != 4:
            raise SystemExit(f"{path}:{line_no}: expected 4 tab-separated columns, got {len(cols)}")
        keys = []
        for text in cols[2:]:
            clean = text.replace("<br/>", "\n").strip()
            key = hashlib.sha256(clean.encode("utf-8")).hexdigest()[:12]
            texts[key] = clean
            keys.append(key)
        pairs.append((keys[0], keys[1]))
    return pairs, texts


def agreement(pairs: list[tuple[str, str]], score: dict[str, float | None]) -> tuple[float | None, int, int]:
    """Share of pairs ordered as people ordered them (ties half), pairs used, ties."""
    used = [(score[a], score[b]) for a, b in pairs if score.get(a) is not None and score.get(b) is not None]
    if not used:
        return None, 0, 0
    points = [1.0 if x > y else 0.5 if x == y else 0.0 for x, y in used]  # type: ignore[operator]
    return statistics.fmean(points), len(used), sum(x == y for x, y in used)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--judge", default="listwise", choices=["listwise", "listwise_sc", "pointwise"])
    parser.add_argument("--judge-profile", default=DEFAULT_PROFILE)
    parser.add_argument("--sides", default="bad,good", help="which files: bad, good or both (default)")
    args = parser.parse_args()
    files = {
        n: v for n, v in FILES.items() if n.split("_")[-1].removesuffix(".xml.csv") in args.sides.split(",")
    }
    missing = [n for n in files if not (DATA / n).exists()]
    if missing:
        raise SystemExit(f"missing {missing} in {DATA}; see this script's docstring")
    stack = JudgeStack.load(load_profile(args.judge_profile), progress=False)
    fam = REGISTRY["arguments"]
    settings = fam.settings_model(quality_judge=args.judge, context_judges="none", joint_judges="none")
    task = load_task("arguana-debates")  # only for its topic/stance plumbing; no task data is used
    prepared = family_base.prepare(fam, task, stack, ScoringInputs(), settings)
    rows = []
    for name, (_, topic, stance) in files.items():
        pairs, texts = read_pairs(name)
        ids = sorted(texts)
        qid = task.table("queries").query_id[0]
        prepared.state.topics[qid] = (topic, stance)
        prepared.state.retriever = None
        traces = family_base.score_batch(fam, prepared, [(qid, "", texts[i]) for i in ids])
        judge = {i: t.scores.get("overall_quality") for i, t in zip(ids, traces, strict=True)}
        length = {i: float(len(texts[i].split())) for i in ids}
        j_acc, j_n, j_ties = agreement(pairs, judge)
        l_acc, _, l_ties = agreement(pairs, length)
        rated = sum(v is not None for v in judge.values())
        rows.append(
            [
                name.split("_")[-1].removesuffix(".xml.csv"),
                len(pairs),
                len(ids),
                rated,
                j_n,
                j_acc,
                j_ties,
                l_acc,
                l_ties,
            ]
        )
    print(
        tabulate(
            rows,
            headers=[
                "side",
                "pairs",
                "arguments",
                "rated",
                "pairs used",
                "judge agreement",
                "judge ties",
                "length baseline",
                "length ties",
            ],
            floatfmt=".3f",
        )
    )
    print("chance: 0.500 (a judge that rates every argument the same scores exactly 0.500: all ties)")


if __name__ == "__main__":
    main()
