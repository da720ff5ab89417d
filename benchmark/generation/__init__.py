"""Answers from the model under evaluation: the harness, RAG, RAArg, lm-eval export, the outputs format."""
