"""The TREC RAG nugget evaluation (Pradeep et al., 2024), interoperable with castorini's nuggetizer."""
