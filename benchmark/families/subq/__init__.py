"""Sub-question coverage (Xie et al., 2024): core / background / follow-up coverage in retrieval and answers."""

from benchmark.families.subq.family import SubqFamily

__all__ = ["SubqFamily"]
