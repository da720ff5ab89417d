"""Judges built from models and retrieval: the judge stack, grounding, claim decomposition."""
