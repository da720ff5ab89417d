"""What a family's own sub-commands (``benchmark <family> …``) are handed from above the
families (the library's pieces and the command line's), so families import nothing from above.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmark.api.run import save_figures
from benchmark.families.command_context import CommandContext
from benchmark.scoring import run


def family_command_context(**command_line: Callable[..., Any]) -> CommandContext:
    """The :class:`CommandContext` of the command line's pieces (keywords) and the library's."""
    return CommandContext(
        **command_line,
        save_figures=save_figures,
        scoring_job=run.Job,
        score_jobs=run.score_jobs,
        judged_passage=_judged_passage,
        answerability_vs_relevance=_answerability_vs_relevance,
    )


# meta-evaluation's measures import scipy and scikit-learn: a second a help screen need not wait
def _judged_passage(*args: Any, **kwargs: Any) -> Any:
    from benchmark.metaeval.answerability import JudgedPassage

    return JudgedPassage(*args, **kwargs)


def _answerability_vs_relevance(*args: Any, **kwargs: Any) -> Any:
    from benchmark.metaeval.answerability import answerability_vs_relevance

    return answerability_vs_relevance(*args, **kwargs)
