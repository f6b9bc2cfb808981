"""Diagnostics tests: the local fake OpenAI server fixture (failure classes with an LLM answer)."""

from __future__ import annotations

from fake_openai import fake_openai, llm  # noqa: F401  (re-exported fixtures)
