"""groundcover: is a long-form answer grounded, and does it cover what matters?

The import package is ``benchmark`` (the distribution is ``groundcover``).  Library
entry points live in the modules named for each concept: :mod:`benchmark.tasks`,
:mod:`benchmark.retrieval`, :mod:`benchmark.models.entailment`, :mod:`benchmark.models.llm`,
:mod:`benchmark.judging.stack`, :mod:`benchmark.scoring.runner`, :mod:`benchmark.core.results`,
:mod:`benchmark.board.leaderboard`; each metric family lives in its own folder under
:mod:`benchmark.families`, registered once in its ``REGISTRY``.
"""

__version__ = "0.1.0"
