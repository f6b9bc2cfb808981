"""Qdrant: one client per process (embedded Qdrant Edge by default, a server when QDRANT_URL is
set), shared with other processes through a lease (store_lease.py), and a collection-bound store
with named vectors `dense` and `sparse` side by side (IntelliDocs). Both back ends implement
rag.index.points.StoreClient; tests/rag/index/test_store_parity.py runs the same calls on both.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from rag.index.filters import Filter, point_id
from rag.index.points import (
    DENSE,
    SPARSE,
    Point,
    ScoredId,
    ScoredPayload,
    SparseQuery,
    StoreClient,
)
from rag.index.store_lease import LEASE, session
from rag.paths import data_dir

__all__ = ["DENSE", "SPARSE", "Point", "QdrantStore", "ScoredPayload", "point_id", "store_session"]
EDGE_FOLDER = "edge"


def qdrant_location() -> str:
    """`QDRANT_URL` when set (server mode), else the embedded Edge folder under the data dir."""
    return os.environ.get("QDRANT_URL") or str(data_dir() / EDGE_FOLDER)


@contextlib.contextmanager
def store_session() -> Iterator[StoreClient]:
    """The process's client, held (never handed to another process) until the block ends.
    Embedded: waits up to RAG_WORKBENCH_STORE_WAIT seconds for another process to hand over."""
    with session(qdrant_location(), remote=bool(os.environ.get("QDRANT_URL"))) as client:
        yield client


def get_client() -> StoreClient:
    """The process's one store client (Edge allows one process per folder at a time)."""
    with store_session() as client:
        return client


def release_client() -> None:
    """Close the client now (its next use re-opens the folder and reads what others wrote)."""
    with LEASE.cond:
        if LEASE.sessions == 0:
            LEASE.close()


@atexit.register
def _close_client() -> None:
    """Flush and close while the interpreter still works."""
    with LEASE.cond:
        LEASE.close()


class QdrantStore:
    """A Qdrant collection: dense vectors (cosine), sparse vectors (dot, IDF modifier), payloads."""

    def __init__(self, collection: str) -> None:
        self.collection = collection
        self._written = False  # points written since the last optimize (Edge builds HNSW then)

    @contextlib.contextmanager
    def session(self) -> Iterator[StoreClient]:
        """Hold the client for several calls (a write phase) without handing it over between
        them; a write phase ends by letting the engine build its indexes (HNSW) once."""
        with store_session() as client:
            yield client
            if self._written:
                client.optimize(self.collection)
                self._written = False

    def exists(self) -> bool:
        with store_session() as client:
            return client.exists(self.collection)

    def create(self, dim: int) -> None:
        with store_session() as client:
            client.create(self.collection, dim)

    def drop(self) -> None:
        with store_session() as client:
            client.drop(self.collection)

    def upsert(self, points: Sequence[Point]) -> None:
        with store_session() as client:
            client.upsert(self.collection, points)
            self._written = True
        if LEASE.sessions == 0:  # not inside a write phase: index now
            self.optimize()

    def optimize(self) -> None:
        """Build what written segments need now (HNSW above the indexing threshold)."""
        with store_session() as client:
            client.optimize(self.collection)
            self._written = False

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            with store_session() as client:
                client.delete(self.collection, [point_id(c) for c in chunk_ids])

    def payloads(self, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by chunk id (missing ids are simply absent)."""
        return {str(p["chunk_id"]): p for p in self._read_payloads([point_id(c) for c in chunk_ids])}

    def payloads_by_point(self, point_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by point id (rag.index.filters.point_id of their chunk id); missing ids are
        simply absent."""
        return {point_id(str(p["chunk_id"])): p for p in self._read_payloads(point_ids)}

    def _read_payloads(self, point_ids: Sequence[str]) -> list[dict[str, Any]]:
        if not point_ids:
            return []
        with store_session() as client:
            records = client.retrieve(self.collection, point_ids, payload=True, dense=False)
        return [r.payload for r in records if r.payload]

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors by chunk id (unit length: Qdrant normalizes for cosine)."""
        if not chunk_ids:
            return {}
        with store_session() as client:
            records = client.retrieve(
                self.collection, [point_id(c) for c in chunk_ids], payload=["chunk_id"], dense=True
            )
        return {
            str(r.payload["chunk_id"]): r.dense
            for r in records
            if r.payload and r.dense is not None
        }

    def scroll(
        self, qfilter: Filter | None = None, with_payload: bool = True
    ) -> Iterator[dict[str, Any]]:
        """Every payload matching `qfilter` (only `chunk_id` when with_payload is False)."""
        selector: bool | list[str] = True if with_payload else ["chunk_id"]
        with store_session() as client:
            yield from client.scroll(self.collection, qfilter, selector)

    def count(self, qfilter: Filter | None = None) -> int:
        """Points (matching `qfilter`); 0 when the collection has no points yet."""
        with store_session() as client:
            return client.count(self.collection, qfilter)

    def search_dense(
        self, vector: np.ndarray, limit: int, qfilter: Filter | None, exact: bool = False
    ) -> list[ScoredPayload]:
        with store_session() as client:
            return client.query(self.collection, vector, DENSE, limit, qfilter, exact)

    def search_dense_ids(
        self, vector: np.ndarray, limit: int, qfilter: Filter | None
    ) -> list[ScoredId]:
        """search_dense without reading payloads: point ids and scores, best first."""
        with store_session() as client:
            return client.query_ids(self.collection, vector, DENSE, limit, qfilter)

    def search_sparse(
        self, indices: list[int], values: list[float], limit: int, qfilter: Filter | None
    ) -> list[ScoredPayload]:
        query = SparseQuery(tuple(indices), tuple(values))
        with store_session() as client:
            return client.query(self.collection, query, SPARSE, limit, qfilter)
