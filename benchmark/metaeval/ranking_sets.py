"""Public multi-system sets with human judgements, for ranking cards, fetched at pinned commits.

A ranking card asks whether an automatic judge orders *systems* as people do, so it needs
many systems' outputs on the same topics with human relevance grades.  The sets here are
EXAM++ graded-paragraph files (read by the family that reads graded-runs files):
each paragraph carries the systems that ranked it (``rankings``), its NIST relevance grade
(``judgments``) and the EXAM++ grader's self-ratings (``exam_grades``).  As the judge
cards' sets (:mod:`benchmark.metaeval.human_sets`), a file is downloaded on first use from
the repository that publishes it, at a fixed commit, checked against its SHA-256 and kept
under ``$GROUNDCOVER_HOME/human-sets/<set>/``; offline, ``--data-dir`` holds
``<data-dir>/<set>/<file>``, checked the same way.

======  ==================================================  ====================================
set     what it is                                          licence
======  ==================================================  ====================================
dl19    TREC DL 2019 passages: the 9,260 NIST-judged        the repository states none; passage
        passages of 43 topics, with the rank at which each  texts are MS MARCO's (non-commercial
        of 37 runs placed each judged passage in its top    research use), grades NIST's, the
        20, graded by EXAM++'s flan-t5-large self-rating    runs' ranks TREC participants'; used
        prompt on its generated questions (Farzi & Dietz,   here for research evaluation only
        "Pencils Down!", ICTIR 2024, online appendix)       and never redistributed
======  ==================================================  ====================================

TREC DL 2020's graded file (``DL20-graded-t5-rating-genq-exam-qrels-runs-with-text.jsonl.gz``
in the same repository) is too large for the snapshots this project could reach when the
set list was written, so it is not pinned; the RUBRIC workbench's own DL19/DL20 files are
served from cs.unh.edu only, on request, because TREC DL's runs may not be redistributed.

The file keeps only judged passages: a run's top 20 is known at the ranks where it placed
a judged passage.  TREC DL 2019's pool covers every run's top 10, so nDCG@10 from it is
the official figure (:func:`benchmark.metaeval.rankings.human_leaderboard`).
"""

from __future__ import annotations

import hashlib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from benchmark.core.errors import InputError, Problem
from benchmark.metaeval.human_sets import cache_dir


@dataclass(frozen=True)
class RankingSet:
    id: str
    title: str
    repo: str
    commit: str
    path: str  # the graded-paragraph file in the repository
    sha256: str
    size: int
    licence: str
    #: the self-rating that answers a question in the setting the set's authors published
    min_rating: int
    #: least NIST grade of a relevant passage (TREC DL: 2)
    relevant_from: int
    citation: str
    #: the question bank the file's grader was asked (path in the same repository, SHA-256):
    #: what a profile's own answerer is asked when it grades the file again
    bank: tuple[str, str] | None = None

    @property
    def regraded_title(self) -> str:
        """The set's title when a profile's own answerer grades its runs again: the same
        runs and questions, not the file's grader's grades."""
        return self.title.split(", graded by")[0] + ", its runs read again on the file's questions"

    def url_of(self, path: str) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{path}"

    @property
    def url(self) -> str:
        return self.url_of(self.path)

    @property
    def source(self) -> str:
        return f"github:{self.repo}@{self.commit[:12]}:{self.path}"

    @property
    def file_name(self) -> str:
        return Path(self.path).name


SETS: dict[str, RankingSet] = {
    s.id: s
    for s in (
        RankingSet(
            "dl19",
            "TREC DL 2019 passages, graded by EXAM++ (flan-t5-large, generated questions)",
            "laura-dietz/flan-t5-exam-appendix",
            "ef5915ee627ad3f6729f860e2d75d8e1aa4cd3ec",
            "EXAM-graded-data/DL19-graded-t5-rating-genq-exam-qrels-runs-with-text.jsonl.gz",
            "068e2aab588c10752b32f44ac233df1614452cd8362034b86c0fc2210958e751",
            2_041_177,
            "none stated; MS MARCO texts, NIST grades, TREC runs: research evaluation only",
            3,
            2,
            "Farzi & Dietz, Pencils Down! Automatic Rubric-based Evaluation of Retrieve/Generate "
            "Systems, ICTIR 2024 (online appendix: github.com/laura-dietz/flan-t5-exam-appendix)",
            (
                "dl19-questions/dl19-genq.jsonl.gz",
                "0012dfd4afd108607dd01bbcfbe77dfbde0c83ad788a7483a20171538a78a7aa",
            ),
        ),
    )
}


def fetch(set_id: str, data_dir: Path | None = None, *, bank: bool = False) -> Path:
    """The set's graded file (or, ``bank``, its question bank) on disk: from ``data_dir``
    when given, else downloaded once into the cache; either way checked against its pinned
    SHA-256."""
    if set_id not in SETS:
        raise InputError(Problem("--set", f"no ranking set {set_id!r}; known: {', '.join(SETS)}"))
    rs = SETS[set_id]
    if bank and rs.bank is None:
        raise InputError(Problem("--set", f"{rs.title} pins no question bank", field="--judge-profile"))
    repo_path, sha256 = rs.bank if bank and rs.bank else (rs.path, rs.sha256)
    url = rs.url_of(repo_path)
    path = (data_dir or cache_dir()) / rs.id / Path(repo_path).name
    if not path.exists():
        if data_dir is not None:
            raise InputError(Problem(str(path), f"no copy of {rs.title} here (expected from {url})"))
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(url, timeout=120) as resp:
                data = resp.read()
        except OSError as exc:
            raise InputError(
                Problem(url, f"cannot download {rs.title} ({exc}); offline, give --data-dir with a copy")
            ) from exc
        path.write_bytes(data)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise InputError(
            Problem(
                str(path),
                f"SHA-256 {digest[:16]}… is not the pinned {sha256[:16]}… of {rs.repo}@{rs.commit[:7]}",
            )
        )
    return path
