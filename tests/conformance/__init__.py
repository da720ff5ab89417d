"""Conformance with the field's own tools: the same verdicts and numbers, side by side."""
