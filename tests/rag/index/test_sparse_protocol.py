"""Every registered sparse backend honours the SparseIndex contract, edge cases included."""

from __future__ import annotations

import pytest
from index_helpers import index_config, passage_docs, unique_name

from rag.index import delete_collection, open_collection
from rag.index.sparse import SPARSE_BACKENDS
from rag.registry import UnknownStrategyError


@pytest.mark.parametrize("backend", SPARSE_BACKENDS.names())
def test_contract_on_a_tiny_collection(backend: str) -> None:
    collection = open_collection(unique_name(backend), create=True)
    assert collection.sparse_search("packages", depth=5).candidates == ()  # nothing indexed yet
    collection.add_documents(passage_docs()[:3], index_config(backend), progress=False)

    ranked = collection.sparse_search("packages archive dependencies mirrors", depth=100)
    scores = [c.score for c in ranked.candidates]
    assert 0 < len(scores) <= 3  # depth larger than the collection is fine
    assert scores == sorted(scores, reverse=True) and min(scores) > 0
    assert [c.hits["bm25"].rank for c in ranked.candidates] == list(range(1, len(scores) + 1))
    assert len(collection.sparse_search("packages archive", depth=1).candidates) == 1
    assert collection.sparse_search("the and of", depth=5).candidates == ()  # only stopwords
    assert collection.sparse_search("", depth=5).candidates == ()
    delete_collection(collection.name)


def test_unknown_backend_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownStrategyError, match="bm25s, qdrant, rank-bm25"):
        SPARSE_BACKENDS.get("elasticsearch")
