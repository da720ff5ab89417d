"""Foundations every layer may use: errors, paths, untrusted input, text, statistics, checkpoints, exports, the result schema."""
