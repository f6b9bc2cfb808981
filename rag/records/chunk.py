"""The Chunk shape every chunking strategy returns, and the Chunker protocol."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from rag.records.document import Document

# Levels used across strategies: "chunk" (flat), "parent"/"child" (parent-child),
# "document"/"section"/"paragraph" (hierarchical, Vexora).


@dataclass(frozen=True)
class Chunk:
    """A span of a document: `text == document.text[start:end]` always holds."""

    chunk_id: str
    doc_id: str
    start: int
    end: int
    text: str
    parent_id: str | None = None
    level: str = "chunk"
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def size(self) -> int:
        return self.end - self.start


class Chunker(Protocol):
    """A strategy: settings fixed at construction, one document in, span-carrying chunks out."""

    def chunk(self, document: Document) -> list[Chunk]: ...
