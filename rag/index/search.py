"""Searching one collection: dense (Qdrant cosine) and sparse (BM25) ranked lists of the chunks
its manifest lists, with the filters, the privacy clause and the hiding of chunks a pending
write has not committed yet (rag.index.journal) applied inside the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from rag.index import journal
from rag.index.catalogue import Catalogue
from rag.index.filters import Filter, build_filter, visibility_filter
from rag.index.manifest import Manifest
from rag.index.payload import chunk_from_payload
from rag.retrieve.base import Candidate, RankedList, RetrieverHit
from rag.retrieve.settings import FilterConfig


class CollectionSearch:
    """Read-only queries over a catalogue; they never change it."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self._private: tuple[Manifest, bool] | None = None  # holds_private, for this manifest

    def holds_private(self) -> bool:
        """Whether any point is private, read from the points themselves (never from a flag a
        crash could leave stale): counted once per manifest version, and taken as True while a
        write is pending, since its points may be arriving right now."""
        if journal.pending(self.catalogue.directory) is not None:
            return True
        return self._private_points()

    def _private_points(self) -> bool:
        cat = self.catalogue
        if self._private is None or self._private[0] is not cat.manifest:
            found = cat.store.count(visibility_filter("private")) > 0
            self._private = (cat.manifest, found)
        return self._private[1]

    def _filter(self, filters: FilterConfig | None, since: float | None) -> Filter | None:
        intent = journal.pending(self.catalogue.directory)  # read once: holds_private reads it too
        hidden = sorted(intent.touched - self.catalogue.manifest.chunk_ids) if intent else ()
        privacy = intent is not None or self._private_points()
        return build_filter(filters, since, privacy=privacy, hidden=hidden)

    def matching_ids(self, filters: FilterConfig | None) -> set[str] | None:
        """Ids of the chunks `filters` lets through (None: the filter excludes nothing)."""
        qfilter = self._filter(filters, None)
        if qfilter is None or self.catalogue.is_empty:
            return None
        return {str(p["chunk_id"]) for p in self.catalogue.store.scroll(qfilter, with_payload=False)}

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored dense vectors of these chunks (no model runs); unknown ids are left out."""
        cat = self.catalogue
        cat.refresh()
        return {} if cat.is_empty else cat.store.dense_vectors(chunk_ids)

    def dense(
        self,
        query_vector: np.ndarray,
        depth: int,
        filters: FilterConfig | None = None,
        since: float | None = None,
    ) -> RankedList:
        """Cosine similarity in Qdrant's `dense` vector, filtered inside Qdrant."""
        cat = self.catalogue
        cat.refresh()
        if cat.is_empty:
            return RankedList("dense", ())
        hits = cat.store.search_dense(query_vector, depth, self._filter(filters, since))
        return self._ranked("dense", [(h.score, h.payload) for h in hits])

    def sparse(
        self,
        query: str,
        depth: int,
        filters: FilterConfig | None = None,
        since: float | None = None,
    ) -> RankedList:
        """BM25 over the collection's tokenizer with its sparse backend; raw BM25 scores."""
        cat = self.catalogue
        cat.refresh()
        if cat.is_empty:
            return RankedList("bm25", ())
        hits = cat.sparse.search(cat.tokenizer(query), depth, self._filter(filters, since))
        payloads = cat.store.payloads([h.chunk_id for h in hits])
        scored = [(h.score, payloads[h.chunk_id]) for h in hits if h.chunk_id in payloads]
        return self._ranked("bm25", scored)

    def _ranked(self, retriever: str, scored: list[tuple[float, dict[str, Any]]]) -> RankedList:
        """The hits as candidates, ranked 1.. in order, keeping only chunks the manifest lists
        (whatever an older crash left in the store)."""
        listed = self.catalogue.manifest.chunk_ids
        kept = [(score, payload) for score, payload in scored if payload.get("chunk_id") in listed]
        candidates = tuple(
            Candidate(
                chunk=chunk_from_payload(payload),
                score=score,
                hits={retriever: RetrieverHit(retriever, rank, score)},
                contributions=_NONE,  # one shared empty mapping, not two new ones per candidate
                stage_scores=_NONE,
            )
            for rank, (score, payload) in enumerate(kept, start=1)
        )
        return RankedList(retriever, candidates)


_NONE: Mapping[str, float] = MappingProxyType({})
