"""Groundedness: per-sentence support (lexical, embedding, LLM), citation check, confidence."""
