"""Scoring answers with metric families: the runner and the one function every command scores through."""
