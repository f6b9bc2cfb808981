"""Search hits and queries, now in rag.records.hits (below every stage); kept so old imports work."""

from rag.records.hits import (
    Candidate,
    RankedList,
    RetrieverHit,
    SearchableCollection,
    SearchQuery,
    retriever_family,
)

__all__ = [
    "Candidate",
    "RankedList",
    "RetrieverHit",
    "SearchQuery",
    "SearchableCollection",
    "retriever_family",
]
