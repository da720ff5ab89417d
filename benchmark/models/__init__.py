"""Model access: LLMs, entailment, embeddings, local models, the model-call cache, structured replies, prompts and judge profiles."""
