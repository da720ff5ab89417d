"""Public human-labelled NLI data for measuring entailment judges, fetched at pinned commits.

The data is not part of groundcover (SICK is CC BY-NC-SA 3.0, RTE's terms are the PASCAL
challenges'), so it is downloaded on first use from the GitHub repositories below, at a
fixed commit, checked against its SHA-256, and kept under ``$GROUNDCOVER_HOME/nli-data``.
SNLI, MultiNLI and ChaosNLI are deliberately not used here: they are kept for
independent checks of this project's judges.

=========  ======================================  ===========================================
source     pairs used                              licence
=========  ======================================  ===========================================
SICK       the 4,906 pairs of its SemEval-2014     CC BY-NC-SA 3.0 (Marelli et al., LREC 2014)
           TEST split; label ENTAILMENT vs
           NEUTRAL/CONTRADICTION
RTE        139 pairs of the GLUE RTE dev set (the  PASCAL RTE 1-3, 5 (Dagan et al. 2006;
           half kept in the repository below);     Bar-Haim et al. 2006; Giampiccolo et al.
           entailment vs not_entailment            2007; Bentivogli et al. 2009), research use
=========  ======================================  ===========================================
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    name: str
    repo: str
    commit: str
    path: str
    sha256: str
    licence: str

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"


SOURCES = {
    "sick": Source(
        "SICK (SemEval-2014 test split)",
        "kkalouli/SICK-processing",
        "0848f4aec60870122a4ca18de08ba0e25f6f9a75",
        "SICK.txt",
        "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957",
        "CC BY-NC-SA 3.0",
    ),
    "rte": Source(
        "RTE (GLUE dev, 139-pair half)",
        "footprinthere/AttAttr-Cutoff",
        "2ac92f2fdee447af8e66689945003deff461b106",
        "glue_data/RTE/dev.tsv",
        "152bd3cded5a5e49244e956d1d67b5a5b4cc62aee3dc9d50a8814453aebfde71",
        "PASCAL RTE, research use",
    ),
}


def cache_dir() -> Path:
    base = Path(os.environ.get("GROUNDCOVER_HOME", Path.home() / ".cache" / "groundcover"))
    return base / "nli-data"


def fetch(key: str) -> Path:
    """The source's file, downloaded once and checked against its pinned SHA-256."""
    src = SOURCES[key]
    path = cache_dir() / key / Path(src.path).name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(src.url, timeout=60) as resp:
            data = resp.read()
        path.write_bytes(data)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != src.sha256:
        raise RuntimeError(f"{path}: SHA-256 {digest} is not the pinned {src.sha256}; delete it and retry")
    return path


def load_pairs(key: str) -> list[dict[str, object]]:
    """``{"premise", "hypothesis", "label"}`` rows, label 1 for entailment."""
    text = fetch(key).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    if key == "sick":
        return [
            {
                "premise": r["sentence_A"],
                "hypothesis": r["sentence_B"],
                "label": int(r["entailment_label"] == "ENTAILMENT"),
            }
            for r in rows
            if r["SemEval_set"] == "TEST"
        ]
    return [
        {"premise": r["sentence1"], "hypothesis": r["sentence2"], "label": int(r["label"] == "entailment")}
        for r in rows
    ]
