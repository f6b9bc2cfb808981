"""Abstention: the pipeline's decision to decline rather than answer, and answer relevance."""
