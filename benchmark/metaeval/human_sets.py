"""Public human-labelled sets that judge cards are measured on, fetched at pinned commits.

None of this data is part of groundcover (licences below), so a set is downloaded on first
use from the repository that publishes it, at a fixed commit, checked against its SHA-256,
and kept under ``$GROUNDCOVER_HOME/human-sets/<set>/``.  Offline, point ``--data-dir`` at a
folder holding the same files (``<data-dir>/<set>/<file>``); they are checked the same way.

=========  ======================================  ===========================================
set        items used                              licence
=========  ======================================  ===========================================
sick       the 4,906 pairs of its SemEval-2014     CC BY-NC-SA 3.0 (Marelli et al., LREC 2014)
           TEST split; ENTAILMENT vs
           NEUTRAL/CONTRADICTION
rte        139 pairs of the GLUE RTE dev set (the  PASCAL RTE 1-3, 5 (Dagan et al. 2006;
           half kept in the repository below);     Bar-Haim et al. 2006; Giampiccolo et al.
           entailment vs not_entailment            2007; Bentivogli et al. 2009), research use
ukpconv-   UKPConvArg2 (Habernal & Gurevych,       CC BY-NC-SA 4.0 (the CSV folder's
arg2       EMNLP 2016): the 674 argument pairs     LICENSE.txt); arguments by createdebate.com
           of the school-uniform debate, each      users
           with the one the crowd found more
           convincing
=========  ======================================  ===========================================

SNLI, MultiNLI and ChaosNLI are deliberately not used: they are kept for independent
checks of this project's judges.
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

from benchmark.core.errors import InputError, Problem


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

    def url(self, path: str) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{path}"


def _tsv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def _one(texts: dict[str, str]) -> str:
    (text,) = texts.values()
    return text


def _sick(texts: dict[str, str]) -> list[Pair]:
    return [
        Pair(r["sentence_A"], r["sentence_B"], int(r["entailment_label"] == "ENTAILMENT"))
        for r in _tsv(_one(texts))
        if r["SemEval_set"] == "TEST"
    ]


def _rte(texts: dict[str, str]) -> list[Pair]:
    return [Pair(r["sentence1"], r["sentence2"], int(r["label"] == "entailment")) for r in _tsv(_one(texts))]


UNIFORM = "Is the school uniform a good or bad idea?"


def _ukpconvarg2(texts: dict[str, str]) -> list[ArgumentPair]:
    """A line is ``pair id, labels, more convincing text, less convincing text``."""
    out = []
    for name, text in sorted(texts.items()):
        stance = "con" if name.endswith("_bad.xml.csv") else "pro"
        for n, line in enumerate(text.splitlines(), start=1):
            cols = line.split("\t")
            if len(cols) != 4:
                raise InputError(Problem(name, f"expected 4 tab-separated columns, got {len(cols)}", line=n))
            better, worse = (c.replace("<br/>", "\n").strip() for c in cols[2:])
            out.append(ArgumentPair(UNIFORM, stance, better, worse))
    return out


SETS = {
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
    )
}


def cache_dir() -> Path:
    base = Path(os.environ.get("GROUNDCOVER_HOME", Path.home() / ".cache" / "groundcover"))
    return base / "human-sets"


def fetch(hs: HumanSet, data_dir: Path | None = None) -> dict[str, str]:
    """The set's files (name -> text): from ``data_dir`` when given, else downloaded once
    into the cache; either way each checked against its pinned SHA-256."""
    out = {}
    for repo_path, sha256 in hs.files:
        name = Path(repo_path).name
        path = (data_dir or cache_dir()) / hs.id / name
        if not path.exists():
            if data_dir is not None:
                raise InputError(
                    Problem(str(path), f"no copy of {hs.title} here (expected from {hs.url(repo_path)})")
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with urllib.request.urlopen(hs.url(repo_path), timeout=60) as resp:
                    path.write_bytes(resp.read())
            except OSError as exc:
                raise InputError(
                    Problem(
                        hs.url(repo_path),
                        f"cannot download {hs.title} ({exc}); offline, give --data-dir with a copy",
                    )
                ) from exc
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != sha256:
            raise InputError(
                Problem(
                    str(path),
                    f"SHA-256 {digest[:16]}… is not the pinned {sha256[:16]}… of {hs.repo}@{hs.commit[:7]}",
                )
            )
        out[name] = data.decode("utf-8")
    return out


def load(set_id: str, data_dir: Path | None = None) -> list[Any]:
    if set_id not in SETS:
        raise InputError(Problem("--sets", f"no public set {set_id!r}; known: {', '.join(SETS)}"))
    hs = SETS[set_id]
    return hs.parse(fetch(hs, data_dir))
