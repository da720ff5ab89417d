"""The answer formats, read and written in one place, one module each; :func:`read_answers`
is the one entry point that turns any of them into :class:`AnswerSet` s.  The layer sits just
above ``tasks``; a family's own input files stay in the family's folder.
"""

from __future__ import annotations

from benchmark.answers.outputs import read_outputs, write_outputs
from benchmark.answers.read import Answers, AnswerSet, from_rows, read_answers
from benchmark.answers.row import OutputRow

__all__ = ["AnswerSet", "Answers", "OutputRow", "from_rows", "read_answers", "read_outputs", "write_outputs"]
