"""The answer formats, read and written in one place.

groundcover scores answers that arrive in several formats; each has one module here, and
:func:`read_answers` is the one entry point every caller (the command line, the Python API,
``benchmark evaluate`` reading back its own outputs) uses to turn any of them into
:class:`AnswerSet` s, the answer records that are scored.

* :mod:`~benchmark.answers.row` — the answer record (:class:`OutputRow`);
* :mod:`~benchmark.answers.outputs` — groundcover's outputs JSONL, read and written;
* :mod:`~benchmark.answers.lm_eval_log` — lm-eval ``--log_samples`` files;
* :mod:`~benchmark.answers.trec_rag_run` — TREC RAG 2024/2025 run files (and hltcoe's);
* :mod:`~benchmark.answers.records` — DataFrames, ``datasets.Dataset`` s, lists of dicts;
* :mod:`~benchmark.answers.citations` — ``[n]`` citations and cited sentences.

The layer sits just above ``tasks``: it needs only ``core`` and the task it checks answers
against, and generation, the families, scoring, the boards and the API all use it.
Family-owned formats (a family's own input files) stay in the family's folder.
"""

from __future__ import annotations

from benchmark.answers.outputs import read_outputs, write_outputs
from benchmark.answers.read import Answers, AnswerSet, from_rows, read_answers
from benchmark.answers.row import OutputRow

__all__ = ["AnswerSet", "Answers", "OutputRow", "from_rows", "read_answers", "read_outputs", "write_outputs"]
