"""Searching one collection: dense (Qdrant cosine) and sparse (BM25) ranked lists of the chunks
its manifest lists, with the filters, the privacy clause and the hiding of chunks a pending
write has not committed yet (rag.index.journal) applied inside the store.

The store answers with point ids and scores; chunks come from a cache of the chunks built from
payloads read earlier, kept for one manifest version (a chunk id names its text, since it holds
the document's content hash; what else a payload carries - owner, visibility, tags - changes
only through a write, which replaces the manifest). Only chunks not in it are read from the
store. Which points a query may see is decided in the store by the filter, never by the cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from rag.index import journal
from rag.index.catalogue import Catalogue
from rag.index.filters import Filter, build_filter, point_id, visibility_filter
from rag.index.manifest import Manifest
from rag.index.payload import chunk_from_payload
from rag.records.chunk import Chunk
from rag.records.hits import Candidate, RankedList, RetrieverHit
from rag.settings.retrieval import FilterConfig


class CollectionSearch:
    """Read-only queries over a catalogue; they never change it."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self._private: tuple[Manifest, bool] | None = None  # holds_private, for this manifest
        self._chunks: dict[str, Chunk] = {}  # point id -> chunk, for the manifest below
        self._chunks_of: Manifest | None = None

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
        hits = cat.store.search_dense_ids(query_vector, depth, self._filter(filters, since))
        return self._ranked("dense", [(h.score, h.point_id) for h in hits])

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
        return self._ranked("bm25", [(h.score, point_id(h.chunk_id)) for h in hits])

    def _chunks_for(self, point_ids: list[str]) -> dict[str, Chunk]:
        """The chunks of these points: cached ones, the rest built from payloads read now
        (points gone from the store are left out)."""
        cat = self.catalogue
        if self._chunks_of is not cat.manifest or len(self._chunks) > _CHUNKS_KEPT:
            self._chunks, self._chunks_of = {}, cat.manifest  # a new dict: readers keep theirs
        cache = self._chunks
        missing = [pid for pid in point_ids if pid not in cache]
        for pid, payload in cat.store.payloads_by_point(missing).items():
            cache[pid] = chunk_from_payload(payload)
        return {pid: cache[pid] for pid in point_ids if pid in cache}

    def _ranked(self, retriever: str, scored: list[tuple[float, str]]) -> RankedList:
        """The hits (score, point id) as candidates, ranked 1.. in order, keeping only chunks the
        manifest lists (whatever an older crash left in the store)."""
        listed = self.catalogue.manifest.chunk_ids
        chunks = self._chunks_for([pid for _, pid in scored])
        kept = [(score, chunks[pid]) for score, pid in scored
                if pid in chunks and chunks[pid].chunk_id in listed]  # fmt: skip
        candidates = tuple(
            Candidate(
                chunk=chunk,
                score=score,
                hits={retriever: RetrieverHit(retriever, rank, score)},
                contributions=_NONE,  # one shared empty mapping, not two new ones per candidate
                stage_scores=_NONE,
            )
            for rank, (score, chunk) in enumerate(kept, start=1)
        )
        return RankedList(retriever, candidates)


_NONE: Mapping[str, float] = MappingProxyType({})
# chunks kept per collection (~2 KB each with their text): 20,000 is ~40 MB at most, and the
# cache starts again empty when it grows past that
_CHUNKS_KEPT = 20_000
