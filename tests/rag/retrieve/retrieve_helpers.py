"""Builders for ranked lists in retrieval tests (imported by the test modules beside it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from rag.chunking.base import Chunk
from rag.index.hits import Candidate, RankedList


def chunk(cid: str, text: str = "", **metadata: Any) -> Chunk:
    body = text or f"text of {cid}"
    return Chunk(cid, f"doc-{cid}", 0, len(body), body, metadata=MappingProxyType(metadata))


def ranked(name: str, scored: Sequence[tuple[str, float]], **texts: str) -> RankedList:
    """A list named `name` holding (chunk_id, score) pairs in the given order."""
    return RankedList(
        name, tuple(Candidate(chunk(cid, texts.get(cid, "")), score) for cid, score in scored)
    )


def candidates(scored: Sequence[tuple[str, float]], **chunks: Chunk) -> tuple[Candidate, ...]:
    return tuple(Candidate(chunks.get(cid) or chunk(cid), s) for cid, s in scored)


def snapshot(value: object) -> str:
    """Every field, recursively (dataclass and mappingproxy reprs show their contents), to
    compare against after a call: proves the call changed nothing."""
    return repr(value)


def by_id(items: Sequence[Candidate]) -> Mapping[str, Candidate]:
    return {c.chunk_id: c for c in items}
