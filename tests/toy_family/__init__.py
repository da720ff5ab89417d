"""A sixth metric family that lives outside ``benchmark/``: the proof that adding a family
is its folder, one registry line and a task card (``tests/unit/test_architecture.py``).

Query-word recall: the share of the query's content words the answer repeats. Trivial on
purpose; what matters is that nothing of the platform had to change to run it.
"""

from tests.toy_family.family import ToyFamily

__all__ = ["ToyFamily"]
