"""Public multi-system sets with human judgements, for ranking cards: EXAM++ graded-paragraph
files, fetched and checked as the judge cards' sets; what each is, its licence, and why TREC
DL 2020 is not here: docs/meta-evaluation.md (Ranking cards).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmark.core.errors import InputError
from benchmark.metaeval.human_sets import pinned_file


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
        """The set's title when a profile's own answerer grades its runs again."""
        return self.title.split(", graded by")[0] + ", its runs read again on the file's questions"

    @property
    def source(self) -> str:
        return f"github:{self.repo}@{self.commit[:12]}:{self.path}"


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
    """The set's graded file (or, ``bank``, its question bank), checked (:func:`pinned_file`)."""
    if set_id not in SETS:
        raise InputError.at("--set", f"no ranking set {set_id!r}; known: {', '.join(SETS)}")
    rs = SETS[set_id]
    if bank and rs.bank is None:
        raise InputError.at("--set", f"{rs.title} pins no question bank", field="--judge-profile")
    repo_path, sha256 = rs.bank if bank and rs.bank else (rs.path, rs.sha256)
    return pinned_file(rs, repo_path, sha256, data_dir, timeout=120)
