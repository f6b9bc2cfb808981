"""LLM client tests: the local fake OpenAI server fixture, and fresh circuit breakers per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import fake_openai, llm  # noqa: F401  (re-exported fixtures)

from rag.llm.breaker import reset_breakers


@pytest.fixture(autouse=True)
def _fresh_breakers() -> Iterator[None]:
    reset_breakers()  # breakers are process-wide: one test's failures must not open the next's
    yield
    reset_breakers()
