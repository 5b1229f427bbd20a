"""Recall: the retrieval cascade (no LLM)."""
