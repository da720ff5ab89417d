"""Sub-question coverage (Xie et al., 2024): core / background / follow-up coverage in retrieval and answers."""
