"""Chunk and the Chunker protocol, now in rag.records.chunk (below every stage); kept so old imports work."""

from rag.records.chunk import (
    Chunk,
    Chunker,
)

__all__ = [
    "Chunk",
    "Chunker",
]
