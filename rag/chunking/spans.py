"""Character spans and how they become Chunks: trimmed to non-whitespace, deterministic ids."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from rag.records.chunk import Chunk
from rag.records.document import Document


class Span(NamedTuple):
    """`text[start:end]` of a document (absolute offsets)."""

    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def trim(text: str, start: int, end: int) -> Span | None:
    """Shrink `[start, end)` to begin and end on non-whitespace; None if nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end) if start < end else None


def trim_all(text: str, spans: Iterable[tuple[int, int]]) -> list[Span]:
    """Trim every span, dropping empty ones and repeats (two windows can trim to one span)."""
    kept: list[Span] = []
    seen: set[Span] = set()
    for start, end in spans:
        span = trim(text, start, end)
        if span is not None and span not in seen:
            seen.add(span)
            kept.append(span)
    return kept


def chunk_id(doc_id: str, level: str, span: Span, parent_id: str | None = None) -> str:
    """Deterministic short id: the same span, level and parent always get the same id."""
    key = f"{doc_id}:{level}:{span.start}-{span.end}:{parent_id or ''}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def make_chunk(
    document: Document,
    span: Span,
    *,
    strategy: str,
    index: int,
    level: str = "chunk",
    parent_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Chunk:
    """A Chunk for `span` with the metadata every strategy records (strategy, index, page)."""
    meta: dict[str, Any] = {"strategy": strategy, "index": index}
    page = document.page_of(span.start)
    if page is not None:
        meta["page"] = page
        last_page = document.page_of(span.end - 1)
        if last_page is not None and last_page != page:
            meta["page_end"] = last_page
    meta.update(metadata or {})
    return Chunk(
        chunk_id=chunk_id(document.doc_id, level, span, parent_id),
        doc_id=document.doc_id,
        start=span.start,
        end=span.end,
        text=document.text[span.start : span.end],
        parent_id=parent_id,
        level=level,
        metadata=MappingProxyType(meta),
    )


def make_chunks(
    document: Document,
    spans: Iterable[Span],
    *,
    strategy: str,
    level: str = "chunk",
    parent_id: str | None = None,
) -> list[Chunk]:
    """One flat level of chunks, indexed in document order."""
    return [
        make_chunk(document, span, strategy=strategy, index=i, level=level, parent_id=parent_id)
        for i, span in enumerate(spans)
    ]
