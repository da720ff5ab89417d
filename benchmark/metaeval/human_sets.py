"""Public human-labelled sets that judge cards are measured on, fetched at pinned commits (or
read with ``datasets`` at a pinned revision), checked against their SHA-256 and kept under
``$GROUNDCOVER_HOME/human-sets/<set>/``; offline, ``--data-dir`` holds copies.  What each set
holds, its licence and its citation: docs/meta-evaluation.md (Judge cards).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core import paths
from benchmark.core.errors import InputError


@dataclass(frozen=True)
class Pair:
    """An entailment item: does ``premise`` support ``hypothesis``? (``label`` 1: yes)."""

    premise: str
    hypothesis: str
    label: int


@dataclass(frozen=True)
class ArgumentPair:
    """Two arguments for one stance of one debate; people found ``better`` more convincing."""

    topic: str
    stance: str
    better: str
    worse: str


@dataclass(frozen=True)
class HumanSet:
    id: str
    title: str
    role: str  # the judge role it measures (benchmark.models.cards)
    repo: str
    commit: str
    files: tuple[tuple[str, str], ...]  # (path in the repository, SHA-256)
    licence: str
    parse: Callable[[dict[str, str]], list[Any]]  # file name -> text, to items

    @property
    def source(self) -> str:
        return f"github:{self.repo}@{self.commit[:12]}"


@dataclass(frozen=True)
class HubSet:
    """A set read from the Hugging Face Hub with ``datasets``, at a pinned revision."""

    id: str
    title: str
    role: str
    repo: str  # dataset repository on the Hub
    revision: str | None  # a commit; None: the one the Hub resolves, recorded when loaded
    config: str | None
    splits: tuple[str, ...]
    licence: str
    parse: Callable[[list[dict[str, Any]]], list[Any]]  # rows of every split, to items
    gated: bool = False

    @property
    def source(self) -> str:
        revision = self.revision or RESOLVED.get(self.id) or "unresolved"
        return f"hf:{self.repo}@{revision[:12]}"


#: the commit each Hub set without a pinned revision resolved to when it was loaded
RESOLVED: dict[str, str] = {}


def _tsv(texts: dict[str, str]) -> list[dict[str, str]]:
    """The rows of a set's one TSV file."""
    (text,) = texts.values()
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def _sick(texts: dict[str, str]) -> list[Pair]:
    return [
        Pair(r["sentence_A"], r["sentence_B"], int(r["entailment_label"] == "ENTAILMENT"))
        for r in _tsv(texts)
        if r["SemEval_set"] == "TEST"
    ]


def _rte(texts: dict[str, str]) -> list[Pair]:
    return [Pair(r["sentence1"], r["sentence2"], int(r["label"] == "entailment")) for r in _tsv(texts)]


def _anli_dev(texts: dict[str, str]) -> list[Pair]:
    """ANLI's annotated dev rounds (CSV): ``context``, ``statement``, ``gold_label`` e/n/c."""
    import sys

    csv.field_size_limit(sys.maxsize)  # ANLI's contexts are whole paragraphs
    out = []
    for name, text in sorted(texts.items()):
        for n, r in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            if r.get("gold_label") not in ("e", "n", "c"):
                raise InputError.at(name, "gold_label must be e, n or c", line=n, field="gold_label")
            out.append(Pair(r["context"], r["statement"], int(r["gold_label"] == "e")))
    return out


def _anli(rows: list[dict[str, Any]]) -> list[Pair]:
    """ANLI's labels: 0 entailment, 1 neutral, 2 contradiction."""
    return [Pair(str(r["premise"]), str(r["hypothesis"]), int(int(r["label"]) == 0)) for r in rows]


def _aggrefact(rows: list[dict[str, Any]]) -> list[Pair]:
    """LLM-AggreFact: label 1 when the document supports the claim."""
    return [Pair(str(r["doc"]), str(r["claim"]), int(int(r["label"]) == 1)) for r in rows]


#: two arguments form a preference pair when their weighted quality scores differ by this much
ARGQ_MARGIN = 0.3


def _argq(rows: list[dict[str, Any]]) -> list[ArgumentPair]:
    """IBM ArgQ-Rank-30k gives each argument a weighted-average quality score (``WA``, 0-1,
    from about ten annotators); pairs are formed within one topic and stance
    (``stance_WA``: 1 pro, -1 con) where the scores differ by at least :data:`ARGQ_MARGIN`."""
    groups: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for r in rows:
        stance = "pro" if float(r["stance_WA"]) > 0 else "con"
        groups.setdefault((str(r["topic"]), stance), []).append((float(r["WA"]), str(r["argument"])))
    out = []
    for (topic, stance), scored in sorted(groups.items()):
        scored.sort(key=lambda x: (-x[0], x[1]))
        for i, (hi, better) in enumerate(scored):
            for lo, worse in scored[i + 1 :]:
                if round(hi - lo, 9) >= ARGQ_MARGIN:  # 0.7 - 0.4 is 0.2999… in floating point
                    out.append(ArgumentPair(topic, stance, better, worse))
    return out


UNIFORM = "Is the school uniform a good or bad idea?"


def _ukpconvarg2(texts: dict[str, str]) -> list[ArgumentPair]:
    """A line is ``pair id, labels, more convincing text, less convincing text``."""
    out = []
    for name, text in sorted(texts.items()):
        stance = "con" if name.endswith("_bad.xml.csv") else "pro"
        for n, line in enumerate(text.splitlines(), start=1):
            cols = line.split("\t")
            if len(cols) != 4:
                raise InputError.at(name, f"expected 4 tab-separated columns, got {len(cols)}", line=n)
            better, worse = (c.replace("<br/>", "\n").strip() for c in cols[2:])
            out.append(ArgumentPair(UNIFORM, stance, better, worse))
    return out


SETS: dict[str, HumanSet | HubSet] = {
    s.id: s
    for s in (
        HumanSet(
            "sick",
            "SICK (SemEval-2014 test)",
            "entailment",
            "kkalouli/SICK-processing",
            "0848f4aec60870122a4ca18de08ba0e25f6f9a75",
            (("SICK.txt", "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957"),),
            "CC BY-NC-SA 3.0",
            _sick,
        ),
        HumanSet(
            "rte",
            "RTE (GLUE dev, 139-pair half)",
            "entailment",
            "footprinthere/AttAttr-Cutoff",
            "2ac92f2fdee447af8e66689945003deff461b106",
            (("glue_data/RTE/dev.tsv", "152bd3cded5a5e49244e956d1d67b5a5b4cc62aee3dc9d50a8814453aebfde71"),),
            "PASCAL RTE, research use",
            _rte,
        ),
        HumanSet(
            "anli-dev",
            "ANLI dev rounds 1-3 (natural, adversarial)",
            "entailment",
            "facebookresearch/anli",
            "b5ce27af54a53bd495af7260fdc485000eed15f8",
            tuple(
                (f"anlizinganli/anli_annot_v0.2/ANLI_analysis_{r}_dev.csv", sha)
                for r, sha in (
                    ("r1", "5d8b94096aad2b7a067c41e07c02ea1350bf2c1ae9a1c7d444ffadd3bdc8e43e"),
                    ("r2", "da676b66bdb0ffab045aa6500425115efe20665355bff15dce16b05cf9819984"),
                    ("r3", "c3152a786c222c9cd8f4f6406c6f9f54bd66b45a8ff34efd174e4c691f652c4f"),
                )
            ),
            "CC BY-NC 4.0 (the repository's LICENSE)",
            _anli_dev,
        ),
        HumanSet(
            "ukpconvarg2",
            "UKPConvArg2 (school uniforms)",
            "argument-quality",
            "UKPLab/emnlp2016-empirical-convincingness",
            "5396e5ae06dd65c064fc0864f106f095f47acfe7",
            (
                (
                    "data/CSV-format/is-the-school-uniform-a-good-or-bad-idea-_bad.xml.csv",
                    "0d3de7c3e9a7e0d349863c6c8844ff1a4581a979e3c214d27da89cf6a04e57d8",
                ),
                (
                    "data/CSV-format/is-the-school-uniform-a-good-or-bad-idea-_good.xml.csv",
                    "1172f0e1a8415d3f69e0fe04414e20cc1cf49435958aebc3d4c4a681e6f615cd",
                ),
            ),
            "CC BY-NC-SA 4.0",
            _ukpconvarg2,
        ),
        HubSet(
            "anli",
            "ANLI (test rounds 1-3)",
            "entailment",
            "facebook/anli",
            "8e4813d81f46d313dac7892e1c28076917cfcdf9",
            None,
            ("test_r1", "test_r2", "test_r3"),
            "CC BY-NC 4.0",
            _anli,
        ),
        HubSet(
            "llm-aggrefact",
            "LLM-AggreFact (test)",
            "entailment",
            "lytang/LLM-AggreFact",
            None,
            None,
            ("test",),
            "CC BY-ND 4.0 (per its Hub card; evaluation only)",
            _aggrefact,
            gated=True,
        ),
        HubSet(
            "argq-30k",
            "IBM ArgQ-Rank-30k (test, pairs 0.3 apart)",
            "argument-quality",
            "ibm/argument_quality_ranking_30k",
            None,
            "argument_quality_ranking",
            ("test",),
            "CC BY-SA 3.0",
            _argq,
        ),
    )
}


def cache_dir() -> Path:
    return paths.home() / "human-sets"


def pinned_file(pinned: Any, repo_path: str, sha256: str, data_dir: Path | None, timeout: int = 60) -> Path:
    """``repo_path`` of a set pinned to a GitHub commit (its ``repo``, ``commit``, ``id`` and
    ``title``): the ``data_dir`` copy, else downloaded once into the cache; checked against its
    SHA-256 either way."""
    url = f"https://raw.githubusercontent.com/{pinned.repo}/{pinned.commit}/{repo_path}"
    path = (data_dir or cache_dir()) / pinned.id / Path(repo_path).name
    if not path.exists():
        if data_dir is not None:
            raise InputError.at(str(path), f"no copy of {pinned.title} here (expected from {url})")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp:
                data = resp.read()
        except OSError as exc:
            raise InputError.at(
                url, f"cannot download {pinned.title} ({exc}); offline, give --data-dir with a copy"
            ) from exc
        path.write_bytes(data)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        where = f"{pinned.repo}@{pinned.commit[:7]}"
        raise InputError.at(str(path), f"SHA-256 {digest[:16]}… is not the pinned {sha256[:16]}… of {where}")
    return path


def fetch(hs: HumanSet, data_dir: Path | None = None) -> dict[str, str]:
    """The set's files (name -> text), each checked (:func:`pinned_file`)."""
    paths = [pinned_file(hs, repo_path, sha256, data_dir) for repo_path, sha256 in hs.files]
    return {path.name: path.read_bytes().decode("utf-8") for path in paths}


def _local_rows(hs: HubSet, data_dir: Path) -> list[dict[str, Any]]:
    """A Hub set's local copy: one parquet or JSON-lines file per split."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for split in hs.splits:
        found = [data_dir / hs.id / f"{split}.{ext}" for ext in ("parquet", "jsonl")]
        if (path := next((p for p in found if p.exists()), None)) is None:
            raise InputError.at(
                str(found[0]),
                f"no copy of {hs.title} here (save split {split!r} of {hs.repo} at revision "
                f"{hs.revision or 'main'} as {found[0].name} or {found[1].name})",
            )
        frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_json(path, lines=True)
        rows.extend(frame.to_dict("records"))
    return rows


def _hub_rows(hs: HubSet) -> list[dict[str, Any]]:
    """A Hub set's rows at its pinned revision (or the one the Hub resolves, recorded)."""
    try:
        import datasets
        from huggingface_hub import HfApi

        token = os.environ.get("HF_TOKEN")
        revision = hs.revision or HfApi().dataset_info(hs.repo, token=token).sha
        RESOLVED[hs.id] = revision or "main"
        kw = {"revision": revision, "token": token, "cache_dir": str(cache_dir() / "hub")}
        splits = [datasets.load_dataset(hs.repo, hs.config, split=s, **kw) for s in hs.splits]
        return [row for split in splits for row in split.to_list()]
    except (OSError, ValueError, ImportError) as exc:
        gated = " It is gated: accept its terms on the Hub and set HF_TOKEN." if hs.gated else ""
        raise InputError.at(
            f"hf:{hs.repo}",
            f"cannot load {hs.title} ({type(exc).__name__}: {exc}).{gated} Offline, give --data-dir "
            f"with <dir>/{hs.id}/<split>.parquet for splits {', '.join(hs.splits)}",
        ) from exc


def load(set_id: str, data_dir: Path | None = None) -> list[Any]:
    if set_id not in SETS:
        raise InputError.at("--sets", f"no public set {set_id!r}; known: {', '.join(SETS)}")
    hs = SETS[set_id]
    if isinstance(hs, HubSet):
        return hs.parse(_local_rows(hs, data_dir) if data_dir is not None else _hub_rows(hs))
    return hs.parse(fetch(hs, data_dir))
