"""BM25 inside Qdrant: the `sparse` named vector with Modifier.IDF (works the same on a server)."""

from __future__ import annotations

from collections.abc import Sequence

from rag.index.filters import Filter
from rag.index.sparse.base import SparseContext, SparseHit
from rag.index.sparse.vectors import query_vector


class QdrantSparseIndex:
    """Adds nothing itself: every point the collection writes already carries its sparse vector."""

    name = "qdrant"
    rebuilds_on_add = False  # Qdrant computes IDF at query time, so adding never re-indexes
    damaged: str | None = None  # nothing of its own on disk to damage

    def __init__(self, context: SparseContext) -> None:
        self.context = context

    def add(self, chunk_ids: Sequence[str], tokens: Sequence[list[str]]) -> None:
        return None

    def remove(self, chunk_ids: Sequence[str]) -> None:
        return None

    def save(self) -> None:
        return None

    def load_modules(self) -> None:
        return None

    def search(
        self, query_tokens: list[str], depth: int, qfilter: Filter | None
    ) -> list[SparseHit]:
        store = self.context.store
        if not query_tokens or store is None:
            return []
        indices, values = query_vector(query_tokens)
        hits = store.search_sparse(indices, values, depth, qfilter)
        return [SparseHit(h.chunk_id, h.score) for h in hits if h.score > 0]
