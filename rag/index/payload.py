"""Chunk <-> Qdrant payload: the chunk's fields plus what filters need (source, tags, owner …)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from rag.privacy import access_key, normalize_user
from rag.records.chunk import Chunk
from rag.records.document import Document

Visibility = Literal["public", "private"]
# Payload keys that become Chunk fields; every other key lands in Chunk.metadata.
_CHUNK_FIELDS = ("chunk_id", "doc_id", "start", "end", "text", "parent_id", "level")


@dataclass(frozen=True)
class Access:
    """Who may see what a batch adds: public, or private to `owner`; plus tags for filtering."""

    owner: str | None = None
    visibility: Visibility = "public"
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "owner", normalize_user(self.owner))  # one spelling per user
        if self.visibility == "private" and not self.owner:
            raise ValueError("private documents need an owner (--owner NAME)")

    @property
    def key(self) -> str:
        """What a stored document's access is compared by: a change re-indexes the document."""
        return access_key(self.visibility, self.owner, self.tags)


def _jsonable(metadata: Mapping[str, Any]) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(json.dumps(dict(metadata), default=str))
    return parsed


def chunk_payload(
    document: Document, chunk: Chunk, access: Access, created_at: float
) -> dict[str, Any]:
    meta = document.metadata
    doc_tags = meta.extra.get("tags", ())
    tags = sorted({*access.tags, *([doc_tags] if isinstance(doc_tags, str) else doc_tags)})
    return {
        **_jsonable(chunk.metadata),
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "start": chunk.start,
        "end": chunk.end,
        "text": chunk.text,
        "parent_id": chunk.parent_id,
        "level": chunk.level,
        "source": meta.source,
        "title": meta.title,
        "doc_type": meta.doc_type,
        "tags": tags,
        "created_at": created_at,
        "owner": access.owner,
        "visibility": access.visibility,
    }


def chunk_from_payload(payload: Mapping[str, Any]) -> Chunk:
    # a copy with the chunk fields popped: twice as fast as filtering every key (a search builds
    # 100-200 of these per query; benchmarks/results/store_engines_edge50k.json)
    extra = dict(payload)
    for key in _CHUNK_FIELDS:
        extra.pop(key, None)
    tags = extra.get("tags")
    if isinstance(tags, list):
        extra["tags"] = tuple(tags)
    return Chunk(
        chunk_id=str(payload["chunk_id"]),
        doc_id=str(payload["doc_id"]),
        start=int(payload["start"]),
        end=int(payload["end"]),
        text=str(payload["text"]),
        parent_id=payload.get("parent_id"),
        level=str(payload.get("level", "chunk")),
        metadata=MappingProxyType(extra),
    )
