"""chunk_stats: the Chunk Lab's numbers, on hand-made chunks."""

from __future__ import annotations

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker
from rag.chunking.spans import Span, make_chunk
from rag.chunking.stats import chunk_stats, stats_by_level
from rag.documents.base import PageSpan


def test_sizes_overlap_and_coverage() -> None:
    doc = make_doc("abcdefghij klmno")  # 15 non-whitespace characters
    chunks = [
        make_chunk(doc, Span(0, 6), strategy="t", index=0),
        make_chunk(doc, Span(4, 10), strategy="t", index=1),  # 2 characters shared
        make_chunk(doc, Span(11, 13), strategy="t", index=2),  # "no" at 14–15 left out
    ]
    stats = chunk_stats(chunks, doc, count_tokens=lambda text: len(text) // 2)
    assert (stats.count, stats.min_chars, stats.max_chars) == (3, 2, 6)
    assert stats.mean_chars == pytest.approx(14 / 3)
    assert (stats.min_tokens, stats.max_tokens) == (1, 3)
    assert stats.overlap_ratio == pytest.approx(2 / 14)
    assert stats.coverage == pytest.approx(12 / 15)


def test_no_chunks_and_no_counter() -> None:
    stats = chunk_stats([], make_doc("text"))
    assert stats.count == 0 and stats.coverage == 0.0 and stats.min_tokens is None
    assert chunk_stats([], make_doc("   ")).coverage == 1.0


def test_stats_per_level_in_order() -> None:
    doc = make_doc("word " * 1000)
    chunks = get_chunker("parent_child").chunk(doc)
    stats = stats_by_level(chunks, doc)
    assert list(stats) == ["parent", "child"]
    assert stats["parent"].coverage == stats["child"].coverage == 1.0
    assert stats["child"].max_chars <= 400 < stats["parent"].max_chars


def test_page_numbers_come_from_the_document() -> None:
    text = "page one text\n\npage two text"
    doc = make_doc(text, pages=(PageSpan(1, 0, 13), PageSpan(2, 15, 28)))
    chunks = get_chunker("recursive", {"size": 20, "overlap": 0}).chunk(doc)
    assert [(c.text, c.metadata["page"]) for c in chunks] == [
        ("page one text", 1),
        ("page two text", 2),
    ]
    whole = get_chunker("recursive").chunk(doc)[0]
    assert (whole.metadata["page"], whole.metadata["page_end"]) == (1, 2)
