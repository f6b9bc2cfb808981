"""Summary numbers for a chunking of one document (the Chunk Lab's stats table)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.chunking.spans import Span
from rag.records.chunk import Chunk
from rag.records.document import Document

TokenCount = Callable[[str], int]


@dataclass(frozen=True)
class ChunkStats:
    """Sizes in characters (and tokens when counted); ratios in [0, 1]."""

    count: int
    min_chars: int
    mean_chars: float
    max_chars: int
    min_tokens: int | None  # None when no token counter was given
    mean_tokens: float | None
    max_tokens: int | None
    overlap_ratio: float  # share of chunk characters that another chunk also holds
    coverage: float  # share of the document's non-whitespace characters inside some chunk


def merged_spans(chunks: Sequence[Chunk]) -> list[Span]:
    """The union of the chunks' spans as sorted, disjoint spans."""
    merged: list[Span] = []
    for chunk in sorted(chunks, key=lambda c: (c.start, c.end)):
        if merged and chunk.start <= merged[-1].end:
            merged[-1] = Span(merged[-1].start, max(merged[-1].end, chunk.end))
        else:
            merged.append(Span(chunk.start, chunk.end))
    return merged


def uncovered(chunks: Sequence[Chunk], text: str) -> list[int]:
    """Offsets of non-whitespace characters that no chunk contains."""
    covered = bytearray(len(text))
    for span in merged_spans(chunks):
        covered[span.start : span.end] = b"\x01" * span.size
    return [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]


def chunk_stats(
    chunks: Sequence[Chunk], document: Document, count_tokens: TokenCount | None = None
) -> ChunkStats:
    """Stats over the given chunks (pass one level of a multi-level strategy at a time)."""
    sizes = [c.size for c in chunks]
    tokens = [count_tokens(c.text) for c in chunks] if count_tokens and chunks else None
    total = sum(sizes)
    union = sum(span.size for span in merged_spans(chunks))
    visible = sum(1 for ch in document.text if not ch.isspace())
    missing = len(uncovered(chunks, document.text))
    return ChunkStats(
        count=len(chunks),
        min_chars=min(sizes, default=0),
        mean_chars=total / len(sizes) if sizes else 0.0,
        max_chars=max(sizes, default=0),
        min_tokens=min(tokens) if tokens else None,
        mean_tokens=sum(tokens) / len(tokens) if tokens else None,
        max_tokens=max(tokens) if tokens else None,
        overlap_ratio=(total - union) / total if total else 0.0,
        coverage=(visible - missing) / visible if visible else 1.0,
    )


def stats_by_level(
    chunks: Sequence[Chunk], document: Document, count_tokens: TokenCount | None = None
) -> dict[str, ChunkStats]:
    """`chunk_stats` per level, in the order levels first appear (parent before child)."""
    levels = list(dict.fromkeys(c.level for c in chunks))
    return {
        level: chunk_stats([c for c in chunks if c.level == level], document, count_tokens)
        for level in levels
    }
