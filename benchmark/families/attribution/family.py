"""Attribution as a metric family: are an answer's citations right?  What it is (its scores,
settings and judges)."""

from __future__ import annotations

from typing import ClassVar, Literal

from benchmark.families.attribution.trace import AttributionTrace
from benchmark.families.base import FamilySettings, JudgeRole, MetricFamily, ScoreColumn, UnitLabels, option

CITATION = """@inproceedings{gao2023alce,
  title     = {Enabling Large Language Models to Generate Text with Citations},
  author    = {Gao, Tianyu and Yen, Howard and Yu, Jiatong and Chen, Danqi},
  booktitle = {Proceedings of EMNLP},
  year      = {2023}
}
@inproceedings{thakur2025support,
  title     = {Support Evaluation for the {TREC} 2024 {RAG} Track: Comparing Human versus {LLM} Judges},
  author    = {Thakur, Nandan and Pradeep, Ronak and Upadhyay, Shivani and Campos, Daniel and Craswell, Nick and Lin, Jimmy},
  booktitle = {Proceedings of SIGIR},
  year      = {2025}
}"""

SUPPORT_SCORES = ("citation_recall", "citation_precision", "support_recall", "support_precision")


class AttributionSettings(FamilySettings):
    flag_prefix: ClassVar[str] = "attribution"

    judge: Literal["entailment", "llm"] = option(
        "entailment",
        "citation support judge: the profile's entailment judge (full / none), or the judge LLM (full / "
        "partial / none, as the TREC RAG support evaluation)",
    )
    units: Literal["sentences", "claims"] = option(
        "sentences",
        "what is checked: the answer's sentences, or the claims the profile's decomposition method "
        "splits each into (claims.extractor; ICAT's whole-answer 'llm' extractor splits as factscore), "
        "each citing what its sentence cites",
    )
    diagnostics: bool = option(
        True,
        "RAG diagnostics (RAGChecker): per sentence, supported by a given passage, by the corpus only "
        "(self-knowledge) or by neither (hallucination), and the relevant given passages the answer uses",
    )


ATTRIBUTION = MetricFamily(
    id="attribution",
    title="Attribution",
    description=(
        "Are the citations right? Per answer sentence, whether the passages it cites support it: ALCE's "
        "citation recall and precision, the TREC RAG track's weighted support recall and precision, and "
        "the shares of uncited sentences and of citations to passages the answer was not given; and, as "
        "RAGChecker, whether each sentence is backed by a passage given, the corpus only, or neither. "
        "Closed-book answers cite nothing: not applicable, so they are not on this board (never a 0)."
    ),
    primary="citation_recall",
    needs_evidence=True,
    judged_by={k: ("entailment", "citation-support") for k in SUPPORT_SCORES},
    judge_roles=(
        JudgeRole(
            "citation-support",
            "entailment judge ({entailment}) or the LLM ({llm})",
            "no public set with human citation-support labels is loaded yet (the TREC RAG track's "
            "support assessments are not public at the time of writing); with the default entailment "
            "judge, its line on this card is what the attribution scores rest on",
        ),
    ),
    citation=CITATION,
    stages={
        "claims": (),
        "support": ("claims",),
        "support-without": ("support",),
        "diagnostics:context": ("claims",),
        "diagnostics:corpus": ("diagnostics:context",),
    },
    required_tables=("queries",),
    trace_model=AttributionTrace,
    settings_model=AttributionSettings,
    columns=(
        ScoreColumn(
            "citation_recall",
            "citation recall",
            "share of sentences the passages they cite, together, fully support (uncited ones count against)",
        ),
        ScoreColumn(
            "citation_precision",
            "citation precision",
            "share of citations that support their sentence alone or are needed by the others (ALCE)",
        ),
        ScoreColumn(
            "support_recall",
            "support recall (weighted)",
            "per sentence the best support among its citations, full 1 / partial ½ / none 0 (TREC RAG)",
        ),
        ScoreColumn(
            "support_precision",
            "support precision (weighted)",
            "mean support of every citation, full 1 / partial ½ / none 0 (TREC RAG)",
        ),
        ScoreColumn(
            "faithfulness",
            "faithfulness",
            "RAG diagnostics: share of sentences some passage the answer was given supports",
            True,
            False,
        ),
        ScoreColumn(
            "self_knowledge",
            "self-knowledge",
            "share of sentences only the corpus supports, not the passages given",
            True,
            False,
        ),
        ScoreColumn(
            "hallucination",
            "hallucination",
            "share of sentences neither the passages given nor the corpus support",
            False,
            False,
        ),
        ScoreColumn(
            "context_utilisation",
            "context utilisation",
            "share of the relevant passages given (task qrels) that support a sentence",
            True,
            False,
        ),
        ScoreColumn("uncited", "uncited sentences", "share of sentences citing nothing", False, False),
        ScoreColumn(
            "invalid_citations",
            "citations not given",
            "share of citations naming a passage the answer was not given",
            False,
            False,
        ),
    ),
    labelled_units={
        "citation_recall": UnitLabels(
            "sentence",
            "s1, s2, … : the place of the sentence (a claim, with --attribution-units claims) among the "
            "trace's sentences",
            "1: the passages the sentence cites, together, fully support it, 0: they do not, or it cites "
            "nothing",
        ),
        "citation_precision": UnitLabels(
            "citation",
            "s2[3] for sentence s2's citation of passage [3]; s2[not given: 7] for a citation of a passage "
            "the answer was not given",
            "1: the citation is relevant — the sentence's citations together fully support it and this "
            "passage supports it alone or the others do not without it —, 0: it is not (a citation of a "
            "passage not given is 0)",
        ),
    },
)
