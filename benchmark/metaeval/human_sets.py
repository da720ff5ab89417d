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

from benchmark.core.errors import InputError, Problem


@dataclass(frozen=True)
class Pair:
    """An entailment item: does ``premise`` support ``hypothesis``? (``label`` 1: yes)."""

    premise: str
    hypothesis: str
    label: int


@dataclass(frozen=True)
class HumanSet:
    id: str
    title: str
    role: str  # the judge role it measures (benchmark.models.cards)
    repo: str
    commit: str
    path: str
    sha256: str
    licence: str
    parse: Callable[[str], list[Pair]]

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"

    @property
    def file(self) -> str:
        return Path(self.path).name


def _tsv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def _sick(text: str) -> list[Pair]:
    return [
        Pair(r["sentence_A"], r["sentence_B"], int(r["entailment_label"] == "ENTAILMENT"))
        for r in _tsv(text)
        if r["SemEval_set"] == "TEST"
    ]


def _rte(text: str) -> list[Pair]:
    return [Pair(r["sentence1"], r["sentence2"], int(r["label"] == "entailment")) for r in _tsv(text)]


SETS = {
    s.id: s
    for s in (
        HumanSet(
            "sick",
            "SICK (SemEval-2014 test)",
            "entailment",
            "kkalouli/SICK-processing",
            "0848f4aec60870122a4ca18de08ba0e25f6f9a75",
            "SICK.txt",
            "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957",
            "CC BY-NC-SA 3.0",
            _sick,
        ),
        HumanSet(
            "rte",
            "RTE (GLUE dev, 139-pair half)",
            "entailment",
            "footprinthere/AttAttr-Cutoff",
            "2ac92f2fdee447af8e66689945003deff461b106",
            "glue_data/RTE/dev.tsv",
            "152bd3cded5a5e49244e956d1d67b5a5b4cc62aee3dc9d50a8814453aebfde71",
            "PASCAL RTE, research use",
            _rte,
        ),
    )
}


def cache_dir() -> Path:
    base = Path(os.environ.get("GROUNDCOVER_HOME", Path.home() / ".cache" / "groundcover"))
    return base / "human-sets"


def fetch(hs: HumanSet, data_dir: Path | None = None) -> Path:
    """The set's file: from ``data_dir`` when given, else downloaded once into the cache;
    either way checked against its pinned SHA-256."""
    path = (data_dir or cache_dir()) / hs.id / hs.file
    if not path.exists():
        if data_dir is not None:
            raise InputError(Problem(str(path), f"no copy of {hs.title} here (expected from {hs.url})"))
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(hs.url, timeout=60) as resp:
                path.write_bytes(resp.read())
        except OSError as exc:
            raise InputError(
                Problem(hs.url, f"cannot download {hs.title} ({exc}); offline, give --data-dir with a copy")
            ) from exc
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != hs.sha256:
        raise InputError(
            Problem(
                str(path),
                f"SHA-256 {digest[:16]}… is not the pinned {hs.sha256[:16]}… of {hs.repo}@{hs.commit[:7]}",
            )
        )
    return path


def load(set_id: str, data_dir: Path | None = None) -> list[Pair]:
    if set_id not in SETS:
        raise InputError(Problem("--sets", f"no public set {set_id!r}; known: {', '.join(SETS)}"))
    hs = SETS[set_id]
    return hs.parse(fetch(hs, data_dir).read_text(encoding="utf-8"))
