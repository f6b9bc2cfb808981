"""Each rerank test scores its own windows: the process-wide score cache (rag.rerank.rerank)
would otherwise hand one test's scores to the next test's scorer for the same query and texts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag.rerank.rerank import clear_score_cache


@pytest.fixture(autouse=True)
def fresh_score_cache() -> Iterator[None]:
    clear_score_cache()
    yield
    clear_score_cache()
