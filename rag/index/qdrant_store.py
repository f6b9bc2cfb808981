"""Qdrant: one client per process (local path by default, server when QDRANT_URL is set), shared
with other processes through a lease (store_lease.py), and a collection-bound store with named
vectors `dense` and `sparse` side by side (IntelliDocs).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from rag.index.store_lease import LEASE, session
from rag.paths import data_dir

DENSE = "dense"
SPARSE = "sparse"
_UPSERT_BATCH = 256


def qdrant_location() -> str:
    """`QDRANT_URL` when set (server mode), else the local folder under the data dir."""
    return os.environ.get("QDRANT_URL") or str(data_dir() / "qdrant")


@contextlib.contextmanager
def store_session() -> Iterator[QdrantClient]:
    """The process's client, held (never handed to another process) until the block ends.
    Local mode: waits up to RAG_WORKBENCH_STORE_WAIT seconds for another process to hand over."""
    with session(qdrant_location(), remote=bool(os.environ.get("QDRANT_URL"))) as client:
        yield client


def get_client() -> QdrantClient:
    """The process's one QdrantClient (local mode allows one client per path at a time)."""
    with store_session() as client:
        return client


def release_client() -> None:
    """Close the client now (its next use re-opens the folder and reads what others wrote)."""
    with LEASE.cond:
        if LEASE.sessions == 0:
            LEASE.close()


@atexit.register
def _close_client() -> None:
    """Close while the interpreter still works (local mode's __del__ fails during shutdown)."""
    with LEASE.cond:
        LEASE.close()


def _commit_without_fsync(client: QdrantClient, collection: str) -> None:
    """Local mode writes every point in its own sqlite transaction, and by default each commit
    waits for the disk (fsync): 16 ms per chunk here, most of the time of indexing a corpus.
    Write-ahead logging with synchronous=NORMAL commits without waiting; a crash of the process
    loses nothing, a power cut may lose the last commits but never corrupts the file (sqlite's
    documented guarantee). Reached through qdrant-client's local internals: when they are not
    where 1.20 keeps them (or the client is a server's), nothing changes."""
    local = getattr(client, "_client", None)
    holder = getattr(local, "collections", {}).get(collection) if local is not None else None
    connection = getattr(getattr(holder, "storage", None), "storage", None)
    if isinstance(connection, sqlite3.Connection):
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")


def point_id(chunk_id: str) -> str:
    """Qdrant ids are ints or UUIDs; a chunk id maps to a stable UUID (the id stays in the payload)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, chunk_id))


@dataclass(frozen=True)
class Point:
    """One chunk as Qdrant stores it."""

    chunk_id: str
    dense: np.ndarray
    sparse_indices: tuple[int, ...]
    sparse_values: tuple[float, ...]
    payload: dict[str, Any]


@dataclass(frozen=True)
class ScoredPayload:
    chunk_id: str
    score: float
    payload: dict[str, Any]


class QdrantStore:
    """A Qdrant collection: dense vectors (cosine), sparse vectors (dot, IDF modifier), payloads."""

    def __init__(self, collection: str) -> None:
        self.collection = collection

    def session(self) -> contextlib.AbstractContextManager[QdrantClient]:
        """Hold the client for several calls (a write phase) without handing it over between them."""
        return store_session()

    def exists(self) -> bool:
        with store_session() as client:
            return client.collection_exists(self.collection)

    def create(self, dim: int) -> None:
        with store_session() as client:
            client.create_collection(
                self.collection,
                vectors_config={
                    DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)
                },
                sparse_vectors_config={
                    SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
            )
            if os.environ.get("QDRANT_URL"):  # payload indexes speed up server-side filtering
                for key in ("doc_id", "source", "doc_type", "level", "tags", "owner", "visibility"):
                    client.create_payload_index(
                        self.collection, key, models.PayloadSchemaType.KEYWORD
                    )

    def drop(self) -> None:
        with store_session() as client:
            if client.collection_exists(self.collection):
                client.delete_collection(self.collection)

    def upsert(self, points: Sequence[Point]) -> None:
        with store_session() as client:
            _commit_without_fsync(client, self.collection)
            for start in range(0, len(points), _UPSERT_BATCH):
                client.upsert(
                    self.collection,
                    points=[_point_struct(p) for p in points[start : start + _UPSERT_BATCH]],
                    wait=True,
                )

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            ids: list[models.ExtendedPointId] = [point_id(c) for c in chunk_ids]
            with store_session() as client:
                client.delete(self.collection, points_selector=models.PointIdsList(points=ids))

    def payloads(self, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by chunk id (missing ids are simply absent)."""
        if not chunk_ids:
            return {}
        with store_session() as client:
            records = client.retrieve(
                self.collection, ids=[point_id(c) for c in chunk_ids], with_payload=True
            )
        return {r.payload["chunk_id"]: dict(r.payload) for r in records if r.payload}

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors by chunk id (unit length: Qdrant normalizes for cosine)."""
        if not chunk_ids:
            return {}
        with store_session() as client:
            records = client.retrieve(
                self.collection,
                ids=[point_id(c) for c in chunk_ids],
                with_payload=["chunk_id"],
                with_vectors=[DENSE],
            )
        return {
            str(r.payload["chunk_id"]): np.asarray(r.vector[DENSE], dtype=np.float32)
            for r in records
            if r.payload and isinstance(r.vector, dict)
        }

    def scroll(
        self, qfilter: models.Filter | None = None, with_payload: bool = True
    ) -> Iterator[dict[str, Any]]:
        """Every payload matching `qfilter` (only `chunk_id` when with_payload is False)."""
        offset = None
        selector: bool | list[str] = True if with_payload else ["chunk_id"]
        with store_session() as client:
            while True:
                records, offset = client.scroll(
                    self.collection,
                    scroll_filter=qfilter,
                    limit=1024,
                    offset=offset,
                    with_payload=selector,
                )
                for record in records:
                    yield dict(record.payload or {})
                if offset is None:
                    return

    def count(self, qfilter: models.Filter | None = None) -> int:
        """Points (matching `qfilter`); 0 when the Qdrant collection does not exist yet."""
        with store_session() as client:
            if not client.collection_exists(self.collection):
                return 0
            return client.count(self.collection, count_filter=qfilter, exact=True).count

    def search_dense(
        self, vector: np.ndarray, limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        return self._query(vector.tolist(), DENSE, limit, qfilter)

    def search_sparse(
        self, indices: list[int], values: list[float], limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        query = models.SparseVector(indices=indices, values=values)
        return self._query(query, SPARSE, limit, qfilter)

    def _query(
        self, query: Any, using: str, limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        with store_session() as client:
            response = client.query_points(
                self.collection,
                query=query,
                using=using,
                limit=limit,
                query_filter=qfilter,
                with_payload=True,
            )
        return [
            ScoredPayload(str(p.payload["chunk_id"]), float(p.score), dict(p.payload))
            for p in response.points
            if p.payload
        ]


def _point_struct(p: Point) -> models.PointStruct:
    return models.PointStruct(
        id=point_id(p.chunk_id),
        vector={
            DENSE: p.dense.tolist(),
            SPARSE: models.SparseVector(indices=list(p.sparse_indices), values=list(p.sparse_values)),
        },
        payload=p.payload,
    )
