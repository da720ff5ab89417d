"""DecompScore (Wanner et al., 2024): how well a claim decomposition method decomposes."""
