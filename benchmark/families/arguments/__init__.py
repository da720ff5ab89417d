"""Argument quality (ConQRet): LLM judges of arguments, their evidence and their groundedness."""
