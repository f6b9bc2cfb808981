"""What the store keeps and returns, the same for every back end (Edge, server)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rag.index.filters import Filter

DENSE = "dense"
SPARSE = "sparse"
# Payload fields the store filters on (rag.index.filters), indexed in every back end.
KEYWORD_FIELDS = ("doc_id", "source", "doc_type", "level", "tags", "owner", "visibility")
FLOAT_FIELDS = ("created_at",)


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


@dataclass(frozen=True)
class ScoredId:
    """A hit without its payload: the point id (rag.index.filters.point_id) and the score."""

    point_id: str
    score: float


@dataclass(frozen=True)
class StoredRecord:
    """A point read back: its payload and (when asked for) its dense vector."""

    payload: dict[str, Any]
    dense: np.ndarray | None = None


@dataclass(frozen=True)
class StoreSchema:
    """What a collection is built with: dense vector sizes by name, sparse vector names, and the
    payload fields that carry an index (and their index type, lower case)."""

    dense: dict[str, int]
    sparse: tuple[str, ...]
    indexed: dict[str, str]


@dataclass(frozen=True)
class SparseQuery:
    """A query for the `sparse` vector: term indices and their weights."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


Query = np.ndarray | SparseQuery  # a dense vector, or a sparse one


class StoreClient(Protocol):
    """One process's handle on a store: the embedded Edge folder or a Qdrant server."""

    def exists(self, collection: str) -> bool: ...
    def describe(self, collection: str) -> StoreSchema: ...
    def create(self, collection: str, dim: int) -> None: ...
    def drop(self, collection: str) -> None: ...
    def upsert(self, collection: str, points: Sequence[Point]) -> None: ...
    def delete(self, collection: str, ids: Sequence[str]) -> None: ...
    def retrieve(
        self, collection: str, ids: Sequence[str], payload: bool | list[str], dense: bool
    ) -> list[StoredRecord]: ...
    def scroll(
        self, collection: str, qfilter: Filter | None, payload: bool | list[str]
    ) -> Iterator[dict[str, Any]]: ...
    def count(self, collection: str, qfilter: Filter | None) -> int: ...
    def query(
        self, collection: str, query: Query, using: str, limit: int,
        qfilter: Filter | None, exact: bool = False,
    ) -> list[ScoredPayload]: ...  # fmt: skip
    def query_ids(
        self, collection: str, query: Query, using: str, limit: int, qfilter: Filter | None,
    ) -> list[ScoredId]: ...  # fmt: skip
    def optimize(self, collection: str) -> None: ...
    def close(self) -> None: ...
