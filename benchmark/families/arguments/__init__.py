"""Argument quality (ConQRet): LLM judges of arguments, their evidence and their groundedness."""

from benchmark.families.arguments.family import ArgumentsFamily

__all__ = ["ArgumentsFamily"]
