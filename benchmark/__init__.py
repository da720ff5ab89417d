"""groundcover: is a long-form answer grounded, and does it cover what matters?

The import package is ``benchmark`` (the distribution is ``groundcover``).  Library
entry points live in the modules named for each concept: :mod:`benchmark.tasks`,
:mod:`benchmark.claims`, :mod:`benchmark.retrieval`, :mod:`benchmark.grounding`,
:mod:`benchmark.coverage`, :mod:`benchmark.icat`, :mod:`benchmark.judges`,
:mod:`benchmark.results`.
"""

__version__ = "0.1.0"
