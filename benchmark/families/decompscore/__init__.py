"""DecompScore (Wanner et al., 2024): how well a claim decomposition method decomposes."""

from benchmark.families.decompscore.family import DecompScoreFamily

__all__ = ["DecompScoreFamily"]
