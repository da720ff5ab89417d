"""A metric family that lives outside ``benchmark/``, in a package of its own
(``groundcover-toy-family``): the proof that adding a family needs no edit inside
groundcover.  Its ``pyproject.toml`` registers :data:`TOY` (``family.py``) in the
``groundcover.families`` entry point group, and the registry finds it there
(``tests/unit/test_architecture.py`` scores it through the real command line).

Query-word recall: the share of the query's content words the answer repeats. Trivial on
purpose; what matters is that nothing of the platform had to change to run it.
"""

from groundcover_toy_family.family import TOY

__all__ = ["TOY"]
